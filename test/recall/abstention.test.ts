import fs from 'node:fs';
import path from 'node:path';
import { recallQueries } from '../helpers/recallQueries';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Abstention with the real sentence model (the packaged USE-lite): a channel whose lines all look
 * alike scores every short, empty chat line close to them, so one cosine floor let generic chat open
 * recall on it. The channel's own bar (what the shipped chat lines score against it) keeps it silent,
 * while questions about its lines still recall them.
 */
const THINGS = ['router', 'firewall', 'mail relay', 'print server', 'badge reader', 'wiki', 'build agent', 'proxy'];
const USES = ['certificate', 'service account', 'support contract', 'static IP', 'firmware image', 'UPS'];
const PARTIES = ['vendor', 'finance', 'the lab', 'marketing', 'legal'];
const PEOPLE = ['Mo', 'Ana', 'Kit', 'Raj', 'Ola'];

let tmp: ReturnType<typeof makeTmpDir>;
beforeAll(() => {
  tmp = makeTmpDir();
  const chan = path.join(tmp.dir, 'it-ops');
  fs.mkdirSync(chan, { recursive: true });
  const lines = ['# Channel Memory', '', '## Durable Facts', ''];
  for (let i = 0; i < 60; i++) {
    const id = `m-${(100000 + i * 7919).toString(36)}`;
    lines.push(
      `- [${id}] The ${THINGS[i % 8]} uses the ${USES[(i * 5) % 6]} for ${PARTIES[(i * 3) % 5]}; ${PEOPLE[(i * 7) % 5]} owns it (ticket ${1000 + ((i * 7717) % 9000)}) [from: #it-ops, 2026-03-${String((i % 27) + 1).padStart(2, '0')}]`,
    );
  }
  fs.writeFileSync(path.join(chan, 'MEMORY.md'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(chan, 'SESSION.md'), '# Session\n\n## Goal\n\n(no active task)\n');
});
afterAll(() => tmp.cleanup());

const recallEach = (queries: string[]) => recallQueries({ channelDir: path.join(tmp.dir, 'it-ops'), workDir: tmp.dir, queries, now: '2026-11-20' });

test('a channel of look-alike lines stays silent on everyday chat, and still answers about its lines', async () => {
  const chat = [
    'convert 72 fahrenheit to celsius',
    'what does HTTP 418 mean?',
    'give me a random number between 1 and 100',
    'welcome to the server!',
    'ping',
    'test',
    'testing 1 2 3',
    '+1',
    'good morning everyone',
    'thanks, that helped a lot',
  ];
  const onTopic = ['who owns the certificate on the router?', 'which support contract does the wiki use?', 'what is the static IP of the proxy for?'];
  const res = await recallEach([...chat, ...onTopic]);
  const spoke = (i: number) => res[i].items.length > 0;
  expect(chat.filter((_, i) => spoke(i))).toEqual([]);
  expect(onTopic.filter((_, i) => !spoke(chat.length + i))).toEqual([]);
}, 60_000);
