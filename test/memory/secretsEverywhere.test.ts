import fs from 'node:fs';
import path from 'node:path';
import { runCondense } from '../../src/cli/commands/condense';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { blocks, runCli, withCapturedIO } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { secretaryModel } from '../condense/helpers';
import { DEFAULT_MODELS } from '../../src/llm/provider';

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
  // Issue 22: plain words after "secret", "password", "passphrase"; a token and a hex secret "for X".
  ['the secret for staging is hunter2', 'hunter2'],
  ['the api token for the bot is abc123def456ghi', 'abc123def456ghi'],
  ['the client secret for oauth is 9f8e7d6c5b4a', '9f8e7d6c5b4a'],
  ['my password is swordfish', 'swordfish'],
  ['the wifi passphrase is correct-horse-battery-staple', 'correct-horse-battery-staple'],
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
    const input = [...SAID.map(([s]) => s), ...SAID.slice(-6).map(([s]) => `remember that ${s}`)];
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: data, LOG_LEVEL: 'debug' },
      cwd: tmp.dir,
      input,
    });
    expect(r.code).toBe(0);
    const b = blocks(r.stdout);
    expect(b).toHaveLength(input.length);
    for (const reply of b) expect(reply).toMatch(/not stored/);
    for (const reply of b) expect(reply).not.toMatch(/Saved to memory/);
    // Nothing the model was sent holds the secret either.
    expect(leaks(Object.fromEntries(fake.requests.map((q, i) => [`request ${i}`, JSON.stringify(q.body)])))).toEqual([]);
    const files = allFiles(data);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'local/ops/log.jsonl',
        'local/ops/.minutes/conversation.json',
        'local/ops/MEMORY.md',
        'local/ops/SESSION.md',
        'local/ops/HISTORY.md',
      ]),
    );
    expect(Object.keys(files).some((f) => f.startsWith('local/ops/.minutes/backups/MEMORY.md.'))).toBe(true);
    expect(leaks({ ...files, stdout: r.stdout, stderr: r.stderr })).toEqual([]);
    expect(files['local/ops/.minutes/conversation.json']).toContain('[redacted]');
  });

  it('console chat: the five wordings of issue 22 are refused and a reply repeating them is stored redacted; facts about secrets are saved', async () => {
    const data = path.join(tmp.dir, 'data');
    const secrets = SAID.slice(-5);
    const facts = [
      'passwords must be at least 14 characters',
      'we rotate the API tokens every 90 days',
      'the secret santa exchange is on December 18',
      'the key decision is to use Postgres',
    ];
    // The model sees the message redacted; this one repeats the secret anyway (as a model shown it
    // before would), so what is stored of the reply is what is tested.
    let chat = 0;
    fake.setHandler((req) => (req.model === DEFAULT_MODELS.anthropic.chat ? `Understood: ${secrets[chat++]?.[0] ?? 'noted'}.` : '{"operations": []}'));
    const r = await runCli(['chat', '--channel', 'ops'], {
      env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: data, LOG_LEVEL: 'debug' },
      cwd: tmp.dir,
      input: [...secrets.map(([s]) => s), ...facts].map((s) => `remember that ${s}`),
    });
    expect(r.code).toBe(0);
    const b = blocks(r.stdout);
    expect(b).toHaveLength(secrets.length + facts.length);
    for (const [i, [, secret]] of secrets.entries()) {
      expect(b[i]).toMatch(/not stored/);
      expect(b[i]).not.toMatch(/Saved to memory/);
      expect(b[i]).not.toContain(secret);
      expect(b[i]).toMatch(/^Understood: .*\[redacted\]/);
    }
    for (const [i, fact] of facts.entries()) expect(b[secrets.length + i]).toMatch(new RegExp(`Saved to memory as m-\\w+: "${fact}"`, 'i'));
    const files = allFiles(data);
    expect(leaks({ ...files, stdout: r.stdout, stderr: r.stderr })).toEqual([]);
    const memory = files['local/ops/MEMORY.md'];
    for (const fact of facts) expect(memory).toContain(fact);
    const replies = files['local/ops/log.jsonl']
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { type: string; content: string })
      .filter((rec) => rec.type === 'reply');
    expect(replies.slice(0, secrets.length).map((rec) => rec.content)).toEqual(secrets.map(() => expect.stringContaining('[redacted]')));
    expect(files['local/ops/.minutes/conversation.json']).toContain('Understood: the secret for staging is [redacted]');
  });

  it('condense --apply: CONTEXT.md, MEMORY.md, HISTORY.md, the condensation and the ledger hold [redacted]', async () => {
    fake.setHandler(secretaryModel());
    const dir = path.join(tmp.dir, 'chan');
    fs.mkdirSync(dir);
    const transcript = path.join(tmp.dir, 't.jsonl');
    const lines = [
      ...SAID.map(([s], i) => ({ author: i % 2 ? 'al' : 'bea', timestamp: `2026-11-20T10:${String(i).padStart(2, '0')}:00Z`, content: `constraint: ${s}` })),
      { author: 'al', timestamp: '2026-11-20T10:30:00Z', content: `decision: ${SAID[0][0]}` },
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
