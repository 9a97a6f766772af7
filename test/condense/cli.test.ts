import fs from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { runAudit } from '../../src/cli/commands/audit';
import { copyForDryRun, runCondense } from '../../src/cli/commands/condense';
import type { CliIO } from '../../src/shared/cliIO';
import { Secretary } from '../../src/condense/saga/secretary';
import { renderContextBody } from '../../src/condense/knowledge/contextRender';
import { splitContext } from '../../src/condense/knowledge/contextHash';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { withCapturedIO } from '../helpers/cli';
import { msgs, secretaryModel, sideDeps } from './helpers';

const cli = (fn: (io: CliIO) => Promise<number>, env: NodeJS.ProcessEnv, cwd: string) => withCapturedIO(fn, { env, cwd });

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    if (!fs.existsSync(d)) return;
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = fs.readFileSync(p, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('offline condense and the audit', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ handler: secretaryModel() });
  });
  afterEach(async () => {
    await fake.close();
    tmp.cleanup();
  });
  const env = () => ({ ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: path.join(tmp.dir, 'channels') });

  it('condense: the dry run writes nothing and prints diffs; --apply writes what the dry run printed', async () => {
    const dir = path.join(tmp.dir, 'Project Folder');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Channel Memory\n\n## Durable Facts\n\n- The importer reads CSV files\n');
    const transcript = path.join(tmp.dir, 't.jsonl');
    fs.writeFileSync(
      transcript,
      [
        { author: 'al', timestamp: '2026-11-20T10:00:00Z', content: 'which database?' },
        { author: 'minutes', timestamp: '2026-11-20T10:01:00Z', content: 'maybe Postgres', bot: true },
        { author: 'bea', timestamp: '2026-11-20T10:02:00Z', content: 'constraint: imports must finish under 5 minutes' },
        { author: 'al', timestamp: '2026-11-20T10:03:00Z', content: 'decision: we use Postgres as the database for the importer' },
      ]
        .map((o) => JSON.stringify(o))
        .join('\n') + '\n',
    );
    const before = snapshot(dir);

    const dry = await cli((io) => runCondense({ channelDir: dir, transcript }, io), env(), tmp.dir);
    expect(dry.stderr).not.toMatch(/Error/);
    expect(dry.code).toBe(0);
    expect(snapshot(dir)).toEqual(before);
    expect(dry.stdout).toContain('## 📝 Condensation: Database choice\n**Date:** 2026-11-20\n**Channel:** #Project Folder\n**Participants:** al, bea');
    for (const f of ['CONTEXT.md', 'MEMORY.md', 'HISTORY.md', 'condensations/2026-11-20-database-choice.md']) expect(dry.stdout).toContain(`+++ b/${f}`);
    expect(dry.stdout).toMatch(/Dry run: nothing was written/);

    const applied = await cli((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), env(), tmp.dir);
    expect(applied.code).toBe(0);
    const after = snapshot(dir);
    const ids = (s: string) => s.replace(/m-[0-9a-f]{6}/g, 'm-X');
    // Every line the dry run said it would add is in the written file.
    for (const section of dry.stdout.split(/^--- /m).slice(1)) {
      const file = /^\+\+\+ b\/(.*)$/m.exec(section)![1];
      expect(after[file]).toBeDefined();
      const added = section
        .split('\n')
        .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
        .map((l) => ids(l.slice(1)));
      const written = ids(after[file]).split('\n');
      for (const l of added) expect(written).toContain(l);
    }
    expect(after['MEMORY.md']).toContain('The importer reads CSV files');

    const again = await cli((io) => runCondense({ channelDir: dir, transcript, apply: true }, io), env(), tmp.dir);
    expect(again.stdout).toMatch(/Already condensed: condensations\/2026-11-20-database-choice.md/);
  });

  it('condense: a broken ledger is one line, said once, with the path as the user gave the folder', async () => {
    const dir = path.join('teams', 'ops', 'chan');
    fs.mkdirSync(path.join(tmp.dir, dir, '.minutes'), { recursive: true });
    fs.writeFileSync(path.join(tmp.dir, dir, '.minutes', 'ledger.json'), '{bad');
    fs.writeFileSync(path.join(tmp.dir, 't.jsonl'), '{"author":"al","timestamp":"2026-11-20T10:00:00Z","content":"decision: use Postgres"}\n');
    // LOG_LEVEL unset, as a person runs it (the test helper sets it otherwise).
    const r = await cli((io) => runCondense({ channelDir: dir, transcript: 't.jsonl', apply: true }, io), { ...env(), LOG_LEVEL: undefined }, tmp.dir);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^minutes condense: /);
    expect(lines[0]).toContain(`${path.join(dir, '.minutes', 'ledger.json')} is not valid JSON`);
    expect(lines[0].split('is not valid JSON')).toHaveLength(2);
  });

  it('condense: the dry run copies only what the pipeline reads, and works with TMPDIR inside the folder', async () => {
    const dir = path.join(tmp.dir, 'big');
    fs.mkdirSync(path.join(dir, 'threads', '300000000000000003'), { recursive: true });
    fs.mkdirSync(path.join(dir, '.minutes', 'backups'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'condensations'));
    fs.writeFileSync(path.join(dir, 'MEMORY.md'), '# Channel Memory\n\n## Durable Facts\n\n- The importer reads CSV files\n');
    fs.writeFileSync(path.join(dir, 'condensations', '2026-11-01-x.md'), 'old condensation\n');
    fs.writeFileSync(path.join(dir, '.minutes', 'ledger.json'), '{"version":1,"entries":{}}\n');
    fs.writeFileSync(path.join(dir, '.minutes', 'backups', 'MEMORY.md.1'), 'backup\n');
    fs.writeFileSync(path.join(dir, '.minutes', 'conversation.json'), '{}\n');
    fs.writeFileSync(path.join(dir, 'log.jsonl'), `${JSON.stringify({ type: 'message', content: 'x'.repeat(1000) })}\n`.repeat(2000));
    fs.writeFileSync(path.join(dir, 'threads', '300000000000000003', 'log.jsonl'), 'thread log\n');
    const copy = path.join(tmp.dir, 'copy');
    await copyForDryRun(dir, copy);
    const files = Object.keys(snapshot(copy)).sort();
    expect(files).toEqual(['.minutes/ledger.json', 'MEMORY.md', 'condensations/2026-11-01-x.md']);

    // TMPDIR inside the folder: a whole-folder copy would be a copy into itself.
    const innerTmp = path.join(dir, 'tmp');
    fs.mkdirSync(innerTmp);
    fs.writeFileSync(
      path.join(tmp.dir, 't.jsonl'),
      '{"author":"al","timestamp":"2026-11-20T10:00:00Z","content":"decision: we use Postgres as the database"}\n',
    );
    const script = `require('./src/cli/main.ts').run(['node', 'minutes', 'condense', '--channel-dir', ${JSON.stringify(dir)}, '--transcript', ${JSON.stringify(path.join(tmp.dir, 't.jsonl'))}]).then((c) => { process.exitCode = c; })`;
    // Asynchronous: the fake model server answering it runs in this process.
    const proc = spawn(process.execPath, ['-r', './test/helpers/register-ts.js', '-e', script], {
      cwd: path.resolve(__dirname, '../..'),
      env: { ...process.env, ...env(), TMPDIR: innerTmp },
    });
    const child = { stdout: '', stderr: '', status: null as number | null };
    proc.stdout.on('data', (d) => {
      child.stdout += d;
    });
    proc.stderr.on('data', (d) => {
      child.stderr += d;
    });
    child.status = await new Promise<number | null>((resolve) => proc.once('close', resolve));
    expect(child.stderr).not.toMatch(/Error|subdirectory/i);
    expect(child.status).toBe(0);
    expect(child.stdout).toMatch(/Dry run: nothing was written/);
    expect(fs.readdirSync(innerTmp)).toEqual([]);
  });

  it('condense: a bad transcript line is one clear message, exit code 2', async () => {
    const dir = path.join(tmp.dir, 'c');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(tmp.dir, 'bad.jsonl'), '{"author":"al"}\n');
    const r = await cli((io) => runCondense({ channelDir: dir, transcript: 'bad.jsonl' }, io), env(), tmp.dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('minutes condense: bad.jsonl line 1: expected {"author": "...", "timestamp": "...", "content": "..."}\n');
  });

  it('audit: finds a stale CONTEXT.md and lines restating a superseded decision; --fix repairs them', async () => {
    const root = path.join(tmp.dir, 'channels');
    const clock = manualClock('2026-11-23T09:00:00Z');
    const d = await sideDeps(root, fake, clock.now);
    const sec = new Secretary({ deps: d.deps });
    const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002', threadId: '300000000000000003' };
    const target = { ref, channelName: 'project-x', threadName: 'db', threadId: ref.threadId, trigger: 'explicit' as const };
    const first = msgs([
      ['al', 'which database?'],
      ['al', 'decision: we use Postgres as the database for the importer'],
    ]);
    await sec.condense({ target, messages: first });
    const dir = d.store.paths(ref).channelDir;
    const oldContext = fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8');
    await sec.condense({ target, messages: [...first, ...msgs([['bea', 'decision: switch the database to SQLite for the importer prototype']])] });
    await d.model.close();
    // A restore from an old backup, and hand-written lines that never got the news.
    fs.writeFileSync(path.join(dir, 'CONTEXT.md'), oldContext);
    fs.appendFileSync(path.join(dir, 'MEMORY.md'), '- The importer database is Postgres\n');
    fs.writeFileSync(path.join(dir, 'SESSION.md'), '# Session\n\n## Current State\n\n- Postgres is the importer database\n');

    const report = await cli((io) => runAudit({}, io), env(), tmp.dir);
    expect(report.code).toBe(1);
    expect(report.stderr).toMatch(/DISCORD_TOKEN is not set: checking the files only/);
    expect(report.stdout).toContain('100000000000000001/200000000000000002: CONTEXT.md is out of date with .minutes/context.json');
    expect(report.stdout).toMatch(/MEMORY\.md:\d+ still states superseded decision d-[0-9a-f]{10} .*"The importer database is Postgres"/);
    expect(report.stdout).toMatch(/SESSION\.md:5 still states superseded decision/);

    const fixed = await cli((io) => runAudit({ fix: true }, io), env(), tmp.dir);
    expect(fixed.stdout).toMatch(/re-rendered/);
    expect(fixed.stdout).toMatch(/marked superseded/);
    const ctxJson = JSON.parse(fs.readFileSync(path.join(dir, '.minutes', 'context.json'), 'utf8'));
    expect(splitContext(fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8')).main).toBe(renderContextBody(ctxJson));
    const mem = parseMemory(fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8'));
    const stale = mem.find((l) => l.text === 'The importer database is Postgres')!;
    const current = ctxJson.decisions.find((x: { supersededBy?: string }) => !x.supersededBy);
    expect(stale.superseded).toBe(true);
    expect(stale.supersededBy).toBe(current.memoryId);

    const clean = await cli((io) => runAudit({}, io), env(), tmp.dir);
    // Only the SESSION.md line is left: SESSION.md is re-rendered by code, so the audit only reports it.
    expect(clean.stdout.trim().split('\n')).toEqual([expect.stringMatching(/SESSION\.md:5/)]);
    // That line is not the audit's to fix: it says so, and --fix does not fail on it forever.
    expect(clean.stdout).toMatch(/not fixable by the audit/);
    const again = await cli((io) => runAudit({ fix: true }, io), env(), tmp.dir);
    expect(again.stdout).toMatch(/SESSION\.md:5 .*not fixable by the audit/);
    expect(again.code).toBe(0);
  });
});
