import fs from 'node:fs';
import path from 'node:path';
import type { ContextData } from '../../src/condense/knowledge/contextData';
import { byMeaning, DecisionInForce, driftCandidates, driftLine, MAX_CANDIDATES, pickContradicted } from '../../src/condense/observers/drift';
import { DriftChecker } from '../../src/condense/observers/driftChecker';
import type { ChannelRef } from '../../src/memory/paths';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { sideDeps } from './helpers';

const d = (id: string, topic: string, text: string): DecisionInForce => ({
  id,
  date: '2026-11-16',
  topic,
  text,
  ledgerKey: `${id}-key`,
  file: `2026-11-16-${id}.md`,
});
const DB = d('d-0000000001', 'Orders database', 'the orders database moves to Postgres 16');
const REL = d('d-0000000002', 'Release process', 'releases go out from the release branch on Tuesdays');

describe('drift notes: which decisions a message may contradict', () => {
  it('a stance and one specific shared word, or two shared words without one; everyday chat never', () => {
    expect(driftCandidates("let's just put the orders on MySQL", [DB, REL])).toEqual([DB]);
    expect(driftCandidates('the orders page is slow today', [DB, REL])).toEqual([]);
    expect(driftCandidates('is the orders database on Postgres yet?', [DB, REL])).toEqual([DB]);
    for (const chat of ['hey everyone', 'lunch at noon?', 'thanks, that helps!', 'happy friday!']) expect(driftCandidates(chat, [DB, REL])).toEqual([]);
    const many = Array.from({ length: 20 }, (_, i) => d(`d-${String(i).padStart(10, '0')}`, 'Orders', `orders rule ${i}`));
    expect(driftCandidates("let's change the orders", many)).toHaveLength(MAX_CANDIDATES);
  });

  it('keeps only an id the model was shown', () => {
    expect(pickContradicted({ contradicts: 'd-0000000001', why: '' }, [DB])).toBe(DB);
    expect(pickContradicted({ contradicts: 'd-0000000002', why: '' }, [DB])).toBeUndefined();
    expect(pickContradicted({ contradicts: null, why: '' }, [DB])).toBeUndefined();
  });

  it('maps a match by meaning to the decision whose MEMORY.md line it is, above the floor', () => {
    const items = [
      { text: 'Decision (Orders database): the orders database moves to Postgres 16', meaning: 1.6 },
      { text: 'Decision (Release process): releases go out from the release branch on Tuesdays', meaning: -0.2 },
      { text: 'Some other line', semantic: 0.9 },
    ];
    expect(byMeaning(items, [DB, REL], 0.5)).toEqual([DB]);
  });

  it('the line: Discord small text with the link (or the file), the console with the file; no mention survives', () => {
    expect(driftLine(DB, { link: 'https://discord.com/channels/1/2/3' })).toBe(
      '-# This differs from a decision in force since 2026-11-16: “the orders database moves to Postgres 16” — <https://discord.com/channels/1/2/3>. If that has changed, record the new decision: react 📝 or run /condense.',
    );
    expect(driftLine({ ...DB, text: 'ping <@123> and @everyone about `it`' }, {})).toContain(
      '“ping and everyone about it” — condensations/2026-11-16-d-0000000001.md.',
    );
    expect(driftLine(DB, { consoleDir: '/srv/minutes/channels/local/orders' })).toContain('(condensations/2026-11-16-d-0000000001.md)');
    // The command works as printed: the channel's folder, quoted for the shell when it needs it.
    expect(driftLine(DB, { consoleDir: '/srv/minutes/channels/local/orders' })).toContain(
      'minutes condense --channel-dir /srv/minutes/channels/local/orders --apply.)',
    );
    expect(driftLine(DB, { consoleDir: "/home/o'neil/my data/local/orders" })).toContain(
      `minutes condense --channel-dir '/home/o'\\''neil/my data/local/orders' --apply.)`,
    );
  });
});

describe('drift notes: the checker', () => {
  const world = withTmpAndFakeModel();
  const ref: ChannelRef = { kind: 'local', name: 'orders' };
  /** The channel's context.json with one decision in force: the orders database moves to Postgres. */
  const writeDecisionInForce = (file: string) => {
    const data: ContextData = {
      version: 1,
      decisions: [{ id: DB.id, kind: 'decision', topic: DB.topic, text: DB.text, date: DB.date, file: DB.file, ledgerKey: DB.ledgerKey }],
      constraints: [],
    };
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(data));
  };

  it('asks by meaning only when words found nothing and the message takes a stance; asks once per decision per day', async () => {
    const clock = manualClock('2026-11-20T09:00:00Z');
    const s = await sideDeps(world.tmp.dir, world.fake, clock.now);
    const p = await s.store.ensureChannel(ref);
    writeDecisionInForce(p.contextData);
    const asked: string[] = [];
    const checker = new DriftChecker({
      deps: s.deps,
      meaning: async (_ref, text) => {
        asked.push(text);
        return [{ text: 'Decision (Orders database): the orders database moves to Postgres 16', meaning: 2 }];
      },
    });
    world.fake.setHandler((req) => {
      const id = /^- (d-[0-9a-f]{10}) /m.exec(req.messages[0].text)?.[1];
      return JSON.stringify({ contradicts: /mongo/i.test(req.messages[0].text) ? id : 'd-9999999999', why: 'a different store' });
    });
    // No shared word, no stance: nothing asked at all.
    expect(await checker.check(ref, { authorName: 'al', content: 'the weather is nice' })).toBeNull();
    expect(asked).toEqual([]);
    // An invented id: no finding.
    expect(await checker.check(ref, { authorName: 'al', content: 'we should try a document store' })).toBeNull();
    expect(asked).toEqual(['we should try a document store']);
    const found = await checker.check(ref, { authorName: 'al', content: "let's use Mongo for everything" });
    expect(found).toMatchObject({ decision: { id: DB.id }, why: 'a different store' });
    const calls = world.fake.requests.length;
    expect(await checker.check(ref, { authorName: 'al', content: "let's use Mongo, seriously" })).toBeNull();
    expect(world.fake.requests.length).toBe(calls);
    // The next day it may be raised again.
    clock.advance(86_400_000);
    expect(await checker.check(ref, { authorName: 'al', content: "let's use Mongo, seriously" })).toMatchObject({ decision: { id: DB.id } });
    expect(JSON.parse(fs.readFileSync(p.drift, 'utf8')).raised).toEqual({ [`local:orders|${DB.id}`]: '2026-11-21' });
    await s.model.close();
  });

  it('asks whether it may act only of a message that passes the words rule, and asks nothing more when it may not', async () => {
    const clock = manualClock('2026-11-20T09:00:00Z');
    const s = await sideDeps(world.tmp.dir, world.fake, clock.now);
    const p = await s.store.ensureChannel(ref);
    writeDecisionInForce(p.contextData);
    world.fake.setHandler(() => JSON.stringify({ contradicts: DB.id, why: 'a different store' }));
    const checker = new DriftChecker({ deps: s.deps });
    const mayAct = jest.fn(() => false);
    expect(await checker.check(ref, { authorName: 'al', content: 'the weather is nice' }, { mayAct })).toBeNull();
    expect(mayAct).not.toHaveBeenCalled();
    const before = world.fake.requests.length;
    expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" }, { mayAct })).toBeNull();
    expect(mayAct).toHaveBeenCalledTimes(1);
    expect(world.fake.requests.length).toBe(before);
    expect(fs.existsSync(p.drift)).toBe(false);
    mayAct.mockReturnValue(true);
    expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" }, { mayAct })).toMatchObject({
      decision: { id: DB.id },
    });
    await s.model.close();
  });

  it("reads context.json once a second per channel, and at once after this process's store wrote", async () => {
    const clock = manualClock('2026-11-20T09:00:00Z');
    const s = await sideDeps(world.tmp.dir, world.fake, clock.now);
    const p = await s.store.ensureChannel(ref);
    let now = 0;
    const checker = new DriftChecker({ deps: s.deps, monotonicMs: () => now });
    world.fake.setHandler((req) => JSON.stringify({ contradicts: /^- (d-[0-9a-f]{10}) /m.exec(req.messages[0].text)?.[1] ?? null, why: 'a different store' }));
    const data = JSON.stringify({
      version: 1,
      decisions: [{ id: DB.id, kind: 'decision', topic: DB.topic, text: DB.text, date: DB.date, file: DB.file, ledgerKey: DB.ledgerKey }],
      constraints: [],
    } satisfies ContextData);
    const stats = jest.spyOn(fs.promises, 'stat');
    const statsOfContext = () => stats.mock.calls.filter(([f]) => String(f) === p.contextData).length;
    try {
      expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" })).toBeNull();
      const first = statsOfContext();
      expect(first).toBeGreaterThan(0);
      expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" })).toBeNull();
      expect(statsOfContext()).toBe(first);
      // Another process condenses: seen once the second is over, not before.
      fs.writeFileSync(p.contextData, data);
      now += 500;
      expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" })).toBeNull();
      expect(statsOfContext()).toBe(first);
      now += 600;
      expect(await checker.check(ref, { authorName: 'al', content: "let's drop Postgres for the orders database" })).toMatchObject({ decision: { id: DB.id } });
      const second = statsOfContext();
      expect(second).toBeGreaterThan(first);
      // This process's store writes (a condensation here): the next message looks again at once.
      const rel = { id: REL.id, kind: 'decision' as const, topic: REL.topic, text: REL.text, date: REL.date, file: REL.file, ledgerKey: REL.ledgerKey };
      await s.store.writeState(ref, p.contextData, { version: 1, decisions: [rel], constraints: [] } satisfies ContextData);
      const written = statsOfContext();
      expect(written).toBeGreaterThanOrEqual(second);
      expect(await checker.check(ref, { authorName: 'al', content: "let's stop shipping releases from the release branch" })).toMatchObject({
        decision: { id: REL.id },
      });
      expect(statsOfContext()).toBeGreaterThan(written);
    } finally {
      stats.mockRestore();
      await s.model.close();
    }
  });
});
