import path from 'node:path';
import { draftCondensation, DecisionForModel } from '../../src/condense/saga/draft';
import { DECISION_SLICE, sliceFor } from '../../src/condense/saga/decisionSlice';
import type { ChannelRef } from '../../src/memory/paths';
import { manualClock } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';
import { msgs, sideDeps } from './helpers';

const SERVICES = ['payments', 'search', 'auth', 'billing', 'notify', 'media', 'ledger', 'reports', 'geo', 'inbox'];
const PROPS = ['timeout', 'replicas', 'database', 'queue', 'retention'];

/** 200 current decisions, newest first, on distinct subjects ("payments timeout", ...). */
function decisions(n: number): DecisionForModel[] {
  const out: DecisionForModel[] = [];
  for (let i = 0; i < n; i++) {
    const s = `${SERVICES[i % SERVICES.length]}${Math.floor(i / 50) || ''} ${PROPS[Math.floor(i / SERVICES.length) % PROPS.length]}`;
    out.push({
      id: `d-${String(i).padStart(10, '0')}`,
      date: `2026-${String(12 - Math.floor(i / 20)).padStart(2, '0')}-01`,
      topic: s,
      text: `Use option ${i} for the ${s}.`,
    });
  }
  return out;
}

describe('the Secretary request of an old channel', () => {
  const world = withTmpAndFakeModel();
  const ref: ChannelRef = { kind: 'local', name: 'proj' };

  it('shows every decision while there are few, and a bounded slice with the relevant old one when there are many', async () => {
    const few = decisions(DECISION_SLICE.showAllUpTo);
    expect(sliceFor(few, (d) => d.text, 'anything', DECISION_SLICE)).toEqual(few);
    const many = decisions(200);
    const oldest = many[199];
    const picked = sliceFor(many, (d) => `${d.topic}: ${d.text}`, `we should change the ${oldest.topic} after the incident`, DECISION_SLICE);
    expect(picked.length).toBeLessThanOrEqual(DECISION_SLICE.relevant + DECISION_SLICE.newest);
    expect(picked).toContain(oldest);
    // The newest are always there, whatever the discussion is about.
    for (const d of many.slice(0, DECISION_SLICE.newest)) expect(picked).toContain(d);
  });

  it('keeps the request as small at 2,000 decisions as at the most it shows whole, and still supersedes an old decision the discussion is about', async () => {
    const clock = manualClock();
    const d = await sideDeps(path.join(world.tmp.dir, 'channels'), world.fake, clock.now);
    const inputs: string[] = [];
    world.fake.setHandler((req) => {
      inputs.push(req.lastUserText);
      const target = /^- (d-\d+) \[[^\]]+\] geo3 queue:/m.exec(req.lastUserText)?.[1];
      return JSON.stringify({ topic: 'geo3 queue', decision: 'Use Kafka for the geo3 queue.', supersedes: [target ?? 'd-none', 'd-0000000150'] });
    });
    const human = msgs([
      ['al', 'The geo3 queue keeps falling behind at night.'],
      ['bea', 'Agreed: Kafka for the geo3 queue.'],
    ]);
    const sizes: number[] = [];
    let last;
    for (const n of [DECISION_SLICE.showAllUpTo, 2_000]) {
      const all = decisions(n);
      last = await draftCondensation(d.deps, { ref, channelName: 'proj', human, currentDecisions: all, activeConstraints: [], budgetChars: 40_000 });
      sizes.push(inputs[inputs.length - 1].length);
    }
    await d.model.close();
    // 2,000 decisions cost no more than the most shown whole did.
    expect(sizes[1]).toBeLessThan(sizes[0] * 1.1);
    const shown = DECISION_SLICE.relevant + DECISION_SLICE.newest;
    expect(inputs[1]).toContain(`(${shown} of 2000 current decisions: those related to this discussion and the newest)`);
    const geo3 = decisions(2_000).find((x) => x.topic === 'geo3 queue');
    expect(geo3).toBeDefined();
    // The old decision on the same subject was shown and is superseded; an id the model was not shown is dropped.
    expect(last?.supersedes).toEqual([geo3?.id]);
  });
});
