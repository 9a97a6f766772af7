import fs from 'node:fs';
import path from 'node:path';
import { auditChannel, formatAudit } from '../../src/condense/audit/audit';
import { Secretary } from '../../src/condense/saga/secretary';
import type { CondenseTarget, TranscriptMessage } from '../../src/condense/condensation/types';
import type { ChannelRef } from '../../src/memory/paths';
import type { ModelClient } from '../../src/llm/types';
import type { ChannelStore } from '../../src/memory/store';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';
import { FakePoster, msgs, secretaryModel, sideDeps } from './helpers';

const channel: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
const thread = (id: string): ChannelRef => ({ ...channel, threadId: id });

describe("the Secretary's state files (.minutes/ledger.json, .minutes/context.json)", () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let model: ModelClient;
  let store: ChannelStore;
  let sec: Secretary;
  const clock = manualClock('2026-11-21T09:00:00Z');

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer({ handler: secretaryModel() });
    const d = await sideDeps(tmp.dir, fake, clock.now);
    model = d.model;
    store = d.store;
    sec = new Secretary({ deps: d.deps });
  });
  afterEach(async () => {
    await model.close();
    await fake.close();
    tmp.cleanup();
  });

  const dir = () => store.paths(channel).channelDir;
  const file = (rel: string) => path.join(dir(), rel);
  const target = (ref: ChannelRef, name: string): CondenseTarget => ({
    ref,
    guildId: '100000000000000001',
    channelName: 'project-x',
    threadName: name,
    threadId: ref.threadId,
    trigger: 'explicit',
  });
  const discussions: [ChannelRef, string, TranscriptMessage[]][] = [
    ['database', 'decision: we use Postgres as the database for the importer'],
    ['deploy', 'decision: we deploy on Tuesdays only'],
    ['material', 'decision: the case material is recycled aluminium'],
    ['mirror', 'decision: the package mirror moves to the EU region'],
  ].map(([topic, line], i) => [
    thread(`30000000000000000${i}`),
    topic,
    msgs([
      ['al', `what about the ${topic}?`],
      ['bea', line],
    ]),
  ]);
  const condense = (i: number, poster = new FakePoster()) =>
    sec.condense({ target: target(discussions[i][0], discussions[i][1]), messages: discussions[i][2], poster });
  const strayComma = (rel: string) => fs.writeFileSync(file(rel), fs.readFileSync(file(rel), 'utf8').replace(/\n}\n$/, ',\n}\n'));
  const snapshot = () =>
    Object.fromEntries(
      ['CONTEXT.md', 'MEMORY.md', 'HISTORY.md', '.minutes/context.json', '.minutes/ledger.json'].map((f) => [f, fs.readFileSync(file(f), 'utf8')]),
    );

  it('a stray comma in either file stops the condensation with the file named, and nothing is reset or redone', async () => {
    for (const i of [0, 1, 2]) expect((await condense(i)).status).toBe('done');
    strayComma('.minutes/context.json');
    strayComma('.minutes/ledger.json');
    const before = snapshot();
    const requests = fake.requests.length;
    const poster = new FakePoster();

    const fourth = await condense(3, poster);
    expect(fourth).toMatchObject({ status: 'failed', error: expect.stringMatching(/ledger\.json is not valid JSON .*; fix or remove it$/) });
    expect(fourth.status === 'failed' && fourth.userMessage).toMatch(/did not run: .*ledger\.json.*fix or remove it/);
    // The first discussion is not condensed again either.
    expect((await condense(0, poster)).status).toBe('failed');
    expect(snapshot()).toEqual(before);
    expect(poster.posts).toHaveLength(0);
    expect(fake.requests.length).toBe(requests);

    // With the ledger fixed, the context file is the one named; CONTEXT.md still untouched.
    fs.writeFileSync(file('.minutes/ledger.json'), before['.minutes/ledger.json'].replace(/,\n}\n$/, '\n}\n'));
    const again = await condense(3, poster);
    expect(again).toMatchObject({ status: 'failed', error: expect.stringMatching(/context\.json is not valid JSON .*; fix or remove it$/) });
    expect(fs.readFileSync(file('CONTEXT.md'), 'utf8')).toBe(before['CONTEXT.md']);
    expect(fs.readFileSync(file('.minutes/context.json'), 'utf8')).toBe(before['.minutes/context.json']);

    // Once both are fixed, the failed run is retried and every decision is kept.
    fs.writeFileSync(file('.minutes/context.json'), before['.minutes/context.json'].replace(/,\n}\n$/, '\n}\n'));
    expect((await condense(3, poster)).status).toBe('done');
    expect((await condense(0, poster)).status).toBe('already');
    const context = fs.readFileSync(file('CONTEXT.md'), 'utf8');
    for (const d of ['Postgres', 'Tuesdays', 'aluminium', 'EU region']) expect(context).toContain(d);
  });

  it('the audit reports a malformed context.json and does not re-render CONTEXT.md from an empty one', async () => {
    expect((await condense(0)).status).toBe('done');
    strayComma('.minutes/context.json');
    fs.appendFileSync(file('CONTEXT.md'), '\nedited by hand, so the audit would re-render it\n');
    const before = snapshot();
    const report = await auditChannel({ store, ref: channel, fix: true, now: clock.now() });
    expect(report.contextFixed).toBe(false);
    expect(formatAudit(report)).toEqual([expect.stringMatching(/context\.json is not valid JSON .*; fix or remove it/)]);
    expect(snapshot()).toEqual(before);
  });

  it('the audit lists action items open longer than the configured age, without failing', async () => {
    expect((await condense(0)).status).toBe('done');
    const ctx = JSON.parse(fs.readFileSync(file('.minutes/context.json'), 'utf8'));
    const item = { id: 'a-0f0f0f', text: 'write the runbook', owner: 'bo', decisionId: ctx.decisions[0].id, opened: '2026-11-21', status: 'open' };
    ctx.actions = [item, { ...item, id: 'a-0e0e0e', text: 'done already', status: 'done', closed: '2026-11-22' }];
    fs.writeFileSync(file('.minutes/context.json'), JSON.stringify(ctx));
    const fresh = await auditChannel({ store, ref: channel, now: clock.now(), staleActionDays: 14 });
    expect(fresh.staleActions).toEqual([]);
    const later = new Date(Date.parse(`${item.opened}T00:00:00Z`) + 20 * 86_400_000);
    const report = await auditChannel({ store, ref: channel, now: later, staleActionDays: 14 });
    expect(report.staleActions.map((i) => i.id)).toEqual(['a-0f0f0f']);
    expect(formatAudit(report)).toContain(
      `${report.channel}: action item a-0f0f0f open since 2026-11-21 (bo): "write the runbook" — close it with /actions done:a-0f0f0f when done`,
    );
  });

  it('keeps backups of both files when they are rewritten', async () => {
    expect((await condense(0)).status).toBe('done');
    expect((await condense(1)).status).toBe('done');
    const backups = fs.readdirSync(file('.minutes/backups'));
    for (const base of ['.minutes__ledger.json.', '.minutes__context.json.']) {
      const mine = backups.filter((b) => b.startsWith(base) && b.endsWith('.bak'));
      expect(mine.length).toBeGreaterThan(0);
      for (const b of mine) expect(() => JSON.parse(fs.readFileSync(file(`.minutes/backups/${b}`), 'utf8'))).not.toThrow();
    }
  });
});
