import fs from 'node:fs';
import path from 'node:path';
import { runCondense } from '../../src/cli/commands/condense';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { blocks, runCli, withCapturedIO } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { secretaryModel } from '../condense/helpers';

// Built at run time, so this file holds nothing a scanner would flag.
const hookPath = ['T0AAAA1111', 'B0BBBB2222', 'xYzxYzxYzxYzxYzxYzxYz123'].join('/');
/** What a new user typed (issue 15), and the part of each that must never be written anywhere. */
const SAID: [string, string][] = [
  ['the password for prod is Winter2026!Zebra', 'Winter2026!Zebra'],
  ['the root pw is Tr0ub4dor&3x', 'Tr0ub4dor&3x'],
  ['the wifi pass is CorrectHorse42', 'CorrectHorse42'],
  ['prod login is admin / Winter2026!Zebra', 'Winter2026!Zebra'],
  [`alerts post to https://hooks.slack.com/services/${hookPath}`, hookPath],
  ['the SSH passphrase for deploy is "blue sky 42 tango"', 'blue sky 42 tango'],
];

/** Every file under `dir`, with its text. */
function allFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

function leaks(texts: Record<string, string>): string[] {
  const found: string[] = [];
  for (const [file, text] of Object.entries(texts)) {
    for (const [, secret] of SAID) if (text.includes(secret)) found.push(`${file}: ${secret}`);
  }
  return found;
}

describe('a secret said in chat or in a condensed discussion is written nowhere', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ minCacheableTokens: 50 });
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });

  it('console chat: conversation, memory, logs and upkeep hold [redacted]; each reply says it was not stored', async () => {
    const data = path.join(tmp.dir, 'data');
    // Upkeep's model echoes back what it was shown, as a model proposing memory operations would.
    fake.setHandler((req) =>
      /durable memory/.test(req.system)
        ? JSON.stringify({
            operations: req.lastUserText
              .split('\n')
              .filter((l) => /msg /.test(l))
              .map((l) => ({ op: 'add', kind: 'fact', text: l.replace(/^.*?: /, '') })),
          })
        : `noted: ${req.lastUserText.slice(-200)}`,
    );
    const input = [...SAID.map(([s]) => s), `remember that ${SAID[0][0]}`];
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: data, LOG_LEVEL: 'debug' },
      cwd: tmp.dir,
      input,
    });
    expect(r.code).toBe(0);
    const b = blocks(r.stdout);
    expect(b).toHaveLength(input.length);
    for (const reply of b) expect(reply).toMatch(/not stored/);
    // Nothing the model was sent holds the secret either.
    expect(leaks(Object.fromEntries(fake.requests.map((q, i) => [`request ${i}`, JSON.stringify(q.body)])))).toEqual([]);
    const files = allFiles(data);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['local/ops/log.jsonl', 'local/ops/.minutes/conversation.json']));
    expect(leaks({ ...files, stdout: r.stdout, stderr: r.stderr })).toEqual([]);
    expect(files['local/ops/.minutes/conversation.json']).toContain('[redacted]');
  });

  it('condense --apply: CONTEXT.md, MEMORY.md, HISTORY.md, the condensation and the ledger hold [redacted]', async () => {
    fake.setHandler(secretaryModel());
    const dir = path.join(tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const transcript = path.join(tmp.dir, 't.jsonl');
    const lines = [
      ...SAID.map(([s], i) => ({ author: i % 2 ? 'al' : 'bea', timestamp: `2026-11-20T10:0${i}:00Z`, content: `constraint: ${s}` })),
      { author: 'al', timestamp: '2026-11-20T10:09:00Z', content: `decision: ${SAID[0][0]}` },
    ];
    fs.writeFileSync(transcript, lines.map((o) => JSON.stringify(o)).join('\n') + '\n');
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, LOG_LEVEL: 'debug' };
    const r = await withCapturedIO((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), { env, cwd: tmp.dir });
    expect(r.code).toBe(0);
    const files = allFiles(dir);
    expect(Object.keys(files)).toEqual(expect.arrayContaining(['CONTEXT.md', 'HISTORY.md', '.minutes/ledger.json']));
    expect(leaks({ ...files, stdout: r.stdout, stderr: r.stderr })).toEqual([]);
    expect(files['CONTEXT.md']).toContain('[redacted]');
  });
});
