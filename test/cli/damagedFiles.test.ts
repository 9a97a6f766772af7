import fs from 'node:fs';
import path from 'node:path';
import { ConversationStore } from '../../src/chat/conversationStore';
import { silentLogger } from '../../src/log/logger';
import type { ChannelRef } from '../../src/memory/paths';
import { shardLayoutFile } from '../../src/memory/layout';
import { ChannelStore } from '../../src/memory/store';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

/**
 * A damaged file of the data root is named where an operator looks: `minutes doctor` lists every
 * state file that does not parse and every copy kept aside of one that was rewritten, each with
 * its fix on the same line, and so does `minutes audit`.
 */
const GUILD = '100000000000000001';
const ref: ChannelRef = { kind: 'discord', guildId: GUILD, channelId: '200000000000000002' };
let tmp: ReturnType<typeof makeTmpDir>;
let root: string;

beforeEach(async () => {
  tmp = makeTmpDir('minutes-damaged-');
  root = path.join(tmp.dir, 'data');
  const store = new ChannelStore({ root, logger: silentLogger() });
  const p = store.paths(ref);
  fs.mkdirSync(p.stateDir, { recursive: true });
  // A ledger cut short (refused, never rewritten), and a conversation that was (its bytes kept aside).
  fs.writeFileSync(p.ledger, '{"version": 1, "entries": {"k1": {"key"');
  fs.writeFileSync(p.conversation, '{"version": 1, "turns": [{"role": "user", "content": "the only copy');
  const conversations = new ConversationStore({ store, logger: silentLogger() });
  await (
    await conversations.update(ref, (c) => ({ ...c, summary: 'restarted' }))
  ).saved;
  await conversations.close();
  fs.mkdirSync(path.dirname(shardLayoutFile(root)), { recursive: true });
  fs.writeFileSync(shardLayoutFile(root), '{"total": "four"}');
});
afterEach(() => tmp.cleanup());

const env = () => ({ MINUTES_DATA_DIR: root, ANTHROPIC_API_KEY: '' });
const rel = (f: string) => path.join(GUILD, '200000000000000002', '.minutes', f);

it('minutes doctor names each damaged state file and each kept copy, with the fix', async () => {
  const r = await runCli(['doctor'], { env: env(), cwd: tmp.dir });
  expect(r.code).toBe(1);
  const lines = r.stdout.split('\n');
  expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^FAIL data files: ${rel('ledger.json')} is not valid JSON \\(.*\\); fix or remove it`)));
  expect(lines).toContainEqual(expect.stringMatching(/^FAIL data files: \.minutes\/shards\.json does not have the expected shape .*; fix or remove it/));
  expect(lines).toContainEqual(
    expect.stringMatching(new RegExp(`^FAIL data files: ${rel('conversation.json.unreadable')} is a copy kept of a damaged file: .*then delete the copy$`)),
  );
});

it('minutes audit names the kept copy with the fix, beside the damaged ledger', async () => {
  const r = await runCli(['audit'], { env: env(), cwd: tmp.dir });
  expect(r.stdout).toMatch(/ledger\.json is not valid JSON/);
  expect(r.stdout).toMatch(/\.minutes\/conversation\.json\.unreadable is a copy kept of a damaged file: .*then delete the copy/);
});
