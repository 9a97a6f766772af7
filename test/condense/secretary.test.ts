import fs from 'node:fs';
import path from 'node:path';
import { Secretary, FaultPoint } from '../../src/condense/saga/secretary';
import { readLedger } from '../../src/condense/saga/ledgerFile';
import { listRetryable } from '../../src/condense/saga/retryPolicy';
import { readFrontmatter } from '../../src/condense/condensation/render';
import type { CondenseTarget, TranscriptMessage } from '../../src/condense/condensation/types';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import type { ModelClient } from '../../src/llm/types';
import type { ChannelStore } from '../../src/memory/store';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { hiddenCondensationMark } from '../../src/shared/markers';
import { FakePoster, msgs, secretaryModel, sideDeps } from './helpers';

const channel: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
const thread = (id: string, privateThread = false): ChannelRef => ({ ...channel, threadId: id, privateThread: privateThread || undefined });

describe('the Secretary pipeline', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let model: ModelClient;
  let store: ChannelStore;
  let sec: Secretary;
  let faultAt: FaultPoint | undefined;
  const state = { inputs: [] as string[] };
  const clock = manualClock('2026-11-21T09:00:00Z');

  beforeEach(async () => {
    tmp = makeTmpDir();
    state.inputs = [];
    faultAt = undefined;
    fake = await startFakeModelServer({ handler: secretaryModel(state) });
    const d = await sideDeps(tmp.dir, fake, clock.now);
    model = d.model;
    store = d.store;
    sec = new Secretary({
      deps: d.deps,
      fault: (p) => {
        if (p === faultAt) {
          faultAt = undefined;
          throw new Error(`injected crash at ${p}`);
        }
      },
    });
  });
  afterEach(async () => {
    await model.close();
    await fake.close();
    tmp.cleanup();
  });

  const dir = () => store.paths(channel).channelDir;
  const read = (rel: string) => fs.readFileSync(path.join(dir(), rel), 'utf8');
  const condFiles = (d = dir()) => (fs.existsSync(path.join(d, 'condensations')) ? fs.readdirSync(path.join(d, 'condensations')).sort() : []);
  const target = (ref: ChannelRef, over: Partial<CondenseTarget> = {}): CondenseTarget => ({
    ref,
    guildId: channel.kind === 'discord' ? channel.guildId : undefined,
    channelName: 'project-x',
    threadName: ref.threadId ? 'Importer database' : undefined,
    threadId: ref.threadId,
    trigger: 'explicit',
    ...over,
  });

  const dbThread: TranscriptMessage[] = msgs([
    ['al', 'which database for the importer?'],
    ['minutes', '<recalled_memory>old stuff</recalled_memory> I think Postgres fits.'],
    ['bea', 'Postgres has the JSON support we need'],
    ['al', 'constraint: imports must finish under 5 minutes'],
    ['bea', 'todo: bea writes the schema migration'],
    ['al', 'decision: we use Postgres as the database for the importer'],
  ]);

  it('posts, pins, files, renders CONTEXT.md, adds MEMORY entries and one HISTORY block, with facts from the messages', async () => {
    const poster = new FakePoster();
    const r = await sec.condense({ target: target(thread('300000000000000003')), messages: dbThread, poster });
    expect(r.status).toBe('done');
    if (r.status !== 'done') return;
    // The model saw no bot message and no recall block.
    expect(state.inputs[0]).not.toMatch(/recalled_memory|I think Postgres fits/);
    expect(r.body).toBe(
      [
        '## 📝 Condensation: Database choice',
        '**Date:** 2026-11-20',
        '**Channel:** #project-x › Importer database',
        '**Participants:** al, bea',
        '**Context:** The team discussed options.',
        '**Decision:** we use Postgres as the database for the importer',
        '**Rationale:** It was the simplest option that meets the constraints.',
        '**Action items:** bea writes the schema migration',
        '**Supersedes:** none',
      ].join('\n'),
    );
    expect(poster.posts).toHaveLength(1);
    const [heading, ...rest] = r.body.split('\n');
    expect(poster.posts[0].content).toBe([`${heading}${hiddenCondensationMark(r.key.slice(0, 12))}`, ...rest].join('\n'));
    expect(poster.pins).toEqual([poster.posts[0].messageId]);

    expect(condFiles()).toEqual(['2026-11-20-database-choice.md']);
    const file = read('condensations/2026-11-20-database-choice.md');
    const fm = readFrontmatter(file)!;
    expect(fm).toMatchObject({
      date: '2026-11-20',
      guild: '100000000000000001',
      channel: 'project-x',
      thread: 'Importer database',
      thread_id: '300000000000000003',
      participants: ['al', 'bea'],
      first_message_id: dbThread[0].id,
      last_message_id: dbThread[5].id,
      supersedes: [],
      ledger_key: r.key,
      post_message_id: poster.posts[0].messageId,
    });
    expect(file.endsWith(`${r.body}\n`)).toBe(true);

    const context = read('CONTEXT.md');
    expect(context).toContain('## Current State\n\nGoing with: we use Postgres as the database for the importer _(as of 2026-11-20)_');
    expect(context).toContain(
      `1. [2026-11-20] **Database choice:** we use Postgres as the database for the importer ([condensation](condensations/2026-11-20-database-choice.md))`,
    );
    expect(context).toContain('## Active Constraints\n\n- imports must finish under 5 minutes');
    expect(context).toMatch(/^<!-- minutes:context-hash [0-9a-f]{12} /m);

    const mem = parseMemory(read('MEMORY.md')).filter((l) => l.kind === 'entry');
    expect(mem.map((l) => l.text)).toEqual(
      expect.arrayContaining([
        'Decision (Database choice): we use Postgres as the database for the importer',
        'Constraint: imports must finish under 5 minutes',
      ]),
    );
    const history = read('HISTORY.md');
    expect(history.match(/Condensation: Database choice/g)).toHaveLength(1);
    expect(history).toContain('Condensed 5 messages of #project-x › Importer database (al, bea)');
  });

  it('condenses the same discussion once, however often asked, and bot messages do not change the key', async () => {
    const poster = new FakePoster();
    const t = target(thread('300000000000000003'));
    const first = await sec.condense({ target: t, messages: dbThread, poster });
    const withBot = [...dbThread, ...msgs([['minutes', '## 📝 Condensation: Database choice\n…']])];
    const again = await sec.condense({ target: t, messages: withBot, poster });
    const third = await sec.condense({ target: { ...t, trigger: 'auto' }, messages: dbThread, poster });
    expect(first.status).toBe('done');
    expect(again).toMatchObject({ status: 'already', key: (first as { key: string }).key });
    expect(third.status).toBe('already');
    expect(poster.posts).toHaveLength(1);
    expect(condFiles()).toHaveLength(1);
    expect(fake.requests).toHaveLength(1);
  });

  it('a thread that grew is condensed again and the new condensation supersedes the old one everywhere', async () => {
    const poster = new FakePoster();
    const t = target(thread('300000000000000003'));
    const first = await sec.condense({ target: t, messages: dbThread, poster });
    const grown = [
      ...dbThread,
      ...msgs(
        [
          ['bea', 'Postgres is overkill for the prototype'],
          ['al', 'decision: switch the database to SQLite for the importer prototype'],
        ],
        { start: '2026-11-22T10:00:00Z' },
      ),
    ];
    const second = await sec.condense({ target: t, messages: grown, poster });
    expect(second.status).toBe('done');
    if (first.status !== 'done' || second.status !== 'done') return;
    expect(second.replaced).toEqual([first.key]);
    expect(second.body).toContain('**Supersedes:** [2026-11-20] we use Postgres as the database for the importer');

    const oldFm = readFrontmatter(read(`condensations/${first.file}`))!;
    expect(oldFm.superseded_by).toBe(second.file);
    expect(readFrontmatter(read(`condensations/${second.file}`))!.superseded_by).toBeUndefined();

    const context = read('CONTEXT.md');
    expect(context).toContain('1. [2026-11-22] **Database choice:** switch the database to SQLite for the importer prototype');
    expect(context).toContain(
      '- ~~[2026-11-20] Database choice: we use Postgres as the database for the importer~~ → Replaced by switch the database to SQLite for the importer prototype (2026-11-22)',
    );
    expect(context.split('## Superseded Decisions')[0]).not.toContain('Postgres as the database');

    const mem = parseMemory(read('MEMORY.md')).filter((l) => l.kind === 'entry');
    const oldEntry = mem.find((l) => l.text.includes('Postgres as the database'))!;
    const newEntry = mem.find((l) => l.text.includes('SQLite'))!;
    expect(oldEntry.superseded).toBe(true);
    expect(oldEntry.supersededBy).toBe(newEntry.id);
    expect(newEntry.superseded).toBe(false);
    const ledger = await readLedger(store, channel);
    expect(ledger.entries[first.key].supersededBy).toBe(second.key);
  });

  it('a discussion without a conclusion renders decision "none"; an automatic one is filed but not posted', async () => {
    const poster = new FakePoster();
    const chat = msgs([
      ['al', 'thoughts on the logo?'],
      ['bea', 'no strong opinion yet'],
      ['al', 'let us revisit next week'],
    ]);
    const r = await sec.condense({ target: target(thread('300000000000000004'), { trigger: 'auto' }), messages: chat, poster });
    expect(r.status).toBe('done');
    if (r.status !== 'done') return;
    expect(r.body).toContain('**Decision:** none (no conclusion reached)');
    expect(poster.posts).toHaveLength(0);
    expect(condFiles()).toHaveLength(1);
    expect(read('CONTEXT.md')).toContain('## Key Decisions\n\n_None yet._');
    expect(fs.existsSync(path.join(dir(), 'MEMORY.md'))).toBe(false);
  });

  it('invalid JSON twice: nothing written, the failure in the ledger, listed for a retry; a retry then succeeds', async () => {
    fake.enqueue('not json at all', '{"still": "wrong"');
    const poster = new FakePoster();
    const r = await sec.condense({ target: target(thread('300000000000000003')), messages: dbThread, poster });
    expect(r).toMatchObject({ status: 'failed', attempts: 1 });
    if (r.status !== 'failed') return;
    expect(r.userMessage).toMatch(/could not use/);
    expect(poster.posts).toHaveLength(0);
    for (const f of ['CONTEXT.md', 'MEMORY.md', 'HISTORY.md']) expect(fs.existsSync(path.join(dir(), f))).toBe(false);
    expect(condFiles()).toEqual([]);
    const ledger = await readLedger(store, channel);
    expect(ledger.entries[r.key]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(ledger.entries[r.key].lastError).toMatch(/invalid|not valid JSON/i);
    const retry = await listRetryable(store, channel, clock.now());
    expect(retry).toEqual([
      expect.objectContaining({ key: r.key, attempts: 1, hasDraft: false, conversation: expect.objectContaining({ threadId: '300000000000000003' }) }),
    ]);

    const again = await sec.condense({ target: target(thread('300000000000000003')), messages: dbThread, poster });
    expect(again.status).toBe('done');
    expect(await listRetryable(store, channel, clock.now())).toEqual([]);
  });

  it('a private thread keeps everything inside the thread: the parent CONTEXT.md and MEMORY.md stay untouched', async () => {
    const priv = thread('300000000000000009', true);
    const poster = new FakePoster();
    const r = await sec.condense({ target: target(priv), messages: dbThread, poster });
    expect(r.status).toBe('done');
    for (const f of ['CONTEXT.md', 'MEMORY.md', 'HISTORY.md']) expect(fs.existsSync(path.join(dir(), f))).toBe(false);
    expect(condFiles()).toEqual([]);
    expect(fs.existsSync(path.join(dir(), '.minutes', 'ledger.json'))).toBe(false);
    const tdir = store.paths(priv).convDir;
    expect(condFiles(tdir)).toHaveLength(1);
    expect(fs.readFileSync(path.join(tdir, 'MEMORY.md'), 'utf8')).toContain('Postgres as the database');
    expect(fs.readFileSync(path.join(tdir, 'HISTORY.md'), 'utf8')).toContain('Condensation: Database choice');
    expect(fs.existsSync(path.join(tdir, 'CONTEXT.md'))).toBe(false);
    expect(poster.posts).toHaveLength(1);
  });

  it.each<FaultPoint>(['posted', 'filed', 'context', 'memory', 'history'])(
    'a crash after the %s step: the next run completes the rest without posting or writing twice',
    async (point) => {
      const poster = new FakePoster();
      const t = target(thread('300000000000000003'));
      faultAt = point;
      const r1 = await sec.condense({ target: t, messages: dbThread, poster });
      expect(r1.status).toBe('failed');
      const r2 = await sec.condense({ target: t, messages: dbThread, poster });
      expect(r2).toMatchObject({ status: 'done', resumed: true });
      expect(poster.posts).toHaveLength(1);
      expect(fake.requests).toHaveLength(1);
      expect(condFiles()).toHaveLength(1);
      const mem = parseMemory(read('MEMORY.md')).filter((l) => l.kind === 'entry' && l.text.includes('Postgres as the database'));
      expect(mem).toHaveLength(1);
      expect(read('HISTORY.md').match(/Condensation: Database choice/g)).toHaveLength(1);
      expect(read('CONTEXT.md').match(/Postgres as the database/g)).toHaveLength(2); // current state + key decision
      const ctx = JSON.parse(read('.minutes/context.json'));
      expect(ctx.decisions).toHaveLength(1);
      expect(ctx.decisions[0].memoryId).toBe(mem[0].id);
    },
  );

  it('pinning not allowed: posted anyway, said once per channel', async () => {
    const poster = new FakePoster();
    poster.pinOutcome = 'not-allowed';
    const r1 = await sec.condense({ target: target(thread('300000000000000003')), messages: dbThread, poster });
    const r2 = await sec.condense({
      target: target(thread('300000000000000005')),
      messages: msgs([
        ['al', 'decision: deploy on Tuesdays'],
        ['bea', 'ok'],
      ]),
      poster,
    });
    expect(r1).toMatchObject({ status: 'done', notices: [expect.stringMatching(/can't pin/)] });
    expect(r2).toMatchObject({ status: 'done', notices: [] });
    expect(poster.posts).toHaveLength(2);
  });

  it('summarizes a transcript over the budget in chunks first, with progress', async () => {
    const progress: string[] = [];
    const d = await sideDeps(tmp.dir, fake, clock.now);
    const small = new Secretary({ deps: d.deps, budgetChars: 3_000, onProgress: (m) => progress.push(m) });
    const long = msgs(
      Array.from(
        { length: 120 },
        (_, i) =>
          [i % 2 ? 'al' : 'bea', i === 100 ? 'decision: deploy every Tuesday' : `a long remark number ${i} about nothing much in particular`] as [
            string,
            string,
          ],
      ),
    );
    const r = await small.condense({ target: target(channel), messages: long });
    await d.model.close();
    expect(r).toMatchObject({ status: 'done', draft: expect.objectContaining({ decision: 'deploy every Tuesday' }) });
    expect(fake.requests.length).toBeGreaterThan(2);
    expect(progress[0]).toMatch(/summarizing part 1 of \d+/);
    expect(progress[progress.length - 1]).toBe('condensing');
  });
});
