import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { createRecall } from '../../src/recall/lexical';
import type { DenseView } from '../../src/recall/vectors';
import type { Index, RecallInput } from '../../src/recall/types';
import { DEFAULT_TUNING } from '../../src/recall/tuning';
import { renderExplanation } from '../../src/recall/explainText';
import { handMadeView, meaningFigures, ORDERS_WORDS, ordersChannelPerTest } from '../helpers/handMadeMeaning';

/**
 * Issue 41 §3: recall says why it injected each line or stayed silent, naming the gate that decided,
 * with the figures it used. Meaning is a hand-made view here (cosines on a scale of mean 0, sd 1, so
 * the embedder's units are the cosines themselves): each gate of fusion.ts is reached on purpose.
 * The real model's explanations are in explainModel.test.ts.
 */
const NOW = new Date('2026-11-20T00:00:00Z');
const chanDir = ordersChannelPerTest();
const view = handMadeView;

const input = (query: string, explain = true): RecallInput => ({ channelDirs: [chanDir()], query, now: NOW, explain });
const T = DEFAULT_TUNING;

describe('the explanation names the gate that decided', () => {
  test('words only: a chat line stays below the evidence gate, with each word and its evidence', () => {
    const r = createRecall().recall(input('happy friday everyone, see you at the release party'));
    expect(r.items).toEqual([]);
    const e = r.explain!;
    expect(e.silence).toBe('words-below-gate');
    expect(e.semantic).toBe('off');
    const release = e.words.find((w) => w.word === 'releas')!;
    expect(release.lines).toBe(1);
    expect(release.written).toBe('release');
    expect(e.words.find((w) => w.word === 'friday')).toMatchObject({ lines: 0, evidence: 0 });
    expect(e.gate.best).toBeLessThan(T.gateMin);
    expect(e.gate.open).toBe(false);
    expect(renderExplanation(e)).toMatch(/^Recall stayed silent: words did not open it \(the best line's evidence [01]\.\d\d < 1\.15\), and meaning was off\./);
  });

  test('a chat line closer to everyday chat than to the channel: closer-to-chat, in the embedder units', () => {
    const r = createRecall().recall(input('anyone up for tacos at lunch?'), view({ best: 0.5, chat: 1.2, tech: 0.1, bar: 0.1 }));
    expect(r.items).toEqual([]);
    expect(r.explain!.silence).toBe('closer-to-chat');
    expect(r.explain!.meaning).toMatchObject({ best: 0.5, chat: 1.2, tech: 0.1, chatBar: 0.1, chatMargin: T.chatMargin });
    expect(renderExplanation(r.explain!)).toContain('closer to everyday chat (+1.20) than to the channel (its best line +0.50; needs ≥ +0.91)');
  });

  test('a technical question about nothing the channel knows: closer-to-tech', () => {
    const r = createRecall().recall(input('regex to match an email address'), view({ best: 1.6, chat: 1.0, tech: 2.7, bar: 0.2 }));
    expect(r.explain!.silence).toBe('closer-to-tech');
    expect(r.explain!.meaning).toMatchObject({ tech: 2.7, techGap: 1.1, techMargin: T.techMargin });
    expect(renderExplanation(r.explain!)).toContain(
      'closer to a generic technical message than to the channel (by 1.10 on what sets texts apart; meaning opens at 1.00 or less)',
    );
  });

  test('the other meaning gates, each by name', () => {
    const recall = createRecall();
    const silence = (q: string, v: Parameters<typeof view>[0]) => recall.recall(input(q), view(v)).explain!.silence;
    expect(silence('offsite roadmap planning', { best: T.denseFloor - 0.01, chat: -2, tech: -2, bar: -2 })).toBe('meaning-below-floor');
    expect(silence('offsite roadmap planning', { best: 1, chat: -2, tech: -2, bar: 1 - T.chatBarMargin + 0.01 })).toBe('below-chat-bar');
    // Only small and everyday words: meaning may never open recall alone.
    expect(silence('thanks, have a great one', { best: 3, chat: -2, tech: -2, bar: -2 })).toBe('no-content-word');
    // Words open it ("orders" and "postgres"), and are withdrawn for a message far closer to chat or to the technical null.
    expect(silence('postgres orders', { best: 0.2, chat: 0.21 + T.chatVeto, tech: -2, bar: -2 })).toBe('chat-veto');
    expect(silence('postgres orders', { best: 0.2, chat: -2, tech: 0.21 + T.techVeto, bar: -2 })).toBe('tech-veto');
    expect(silence('postgres orders', { best: 0.2, chat: -2, tech: -2, bar: -2 })).toBeUndefined();
  });

  test('one rare word opens recall alone only where meaning does not find the message closer to a generic technical one', () => {
    const recall = createRecall();
    // "buildkite" is rare in the language and in one line: its evidence alone is below the gate but opens it.
    const about = recall.recall(input('buildkite?'), view({ best: 1.6, chat: -1, tech: 0.2, bar: -1 })).explain!;
    expect(about.opened).toBe('rare-word');
    expect(about.gate).toMatchObject({ open: true, rareWord: 'buildkite' });
    expect(about.gate.best).toBeLessThan(T.gateMin);
    const generic = recall.recall(input('buildkite?'), view({ best: 1.6, chat: -1, tech: 1.6 - T.techMargin + 0.01, bar: -1 })).explain!;
    expect(generic.silence).toBe('rare-word-tech');
    expect(generic.items).toEqual([]);
    expect(renderExplanation(generic)).toContain('one rare word opened it ("buildkite"), and was withdrawn');
    // Words that clear the gate themselves are not asked the same (only the far larger techVeto withdraws them).
    const words = recall.recall(input('buildkite nightly backup'), view({ best: 1.6, chat: -1, tech: 1.6 - T.techMargin + 0.01, bar: -1 })).explain!;
    expect(words.opened).toBe('words');
  });

  test('no word recall scores, and an empty channel', () => {
    expect(createRecall().recall(input('?? !!')).explain!.silence).toBe('no-words');
    fs.writeFileSync(path.join(chanDir(), 'MEMORY.md'), '# Channel Memory\n');
    expect(createRecall().recall(input('postgres')).explain!.silence).toBe('empty-channel');
  });

  test('words open recall and no line fits the budget: nothing fits', () => {
    const r = createRecall().recall({ ...input('which postgres version do the orders use'), budgetChars: 20 });
    expect(r.items).toEqual([]);
    expect(r.explain!.silence).toBe('nothing-fits');
  });
});

describe('what brought each line in', () => {
  test('words: each line with the words it shares and their evidence; meaning alone for a line with none', () => {
    // Line 1 (releases) shares no word: meaning adds it (at or above denseAdmit).
    const dense = (index: Index): DenseView => {
      const cos = new Float32Array(index.n).fill(-0.5);
      cos[0] = 1.5;
      cos[1] = T.denseAdmit + 0.1;
      return { cos, chat: -1, tech: -1, techGap: () => -2.5, calibration: { mean: 0, sd: 1 }, chatBar: () => 0 };
    };
    const r = createRecall().recall(input('which postgres version do the orders use'), dense);
    const e = r.explain!;
    expect(e.opened).toBe('words');
    expect(e.silence).toBeUndefined();
    expect(e.items.map((i) => i.text)).toEqual(r.items.map((i) => i.text));
    const first = e.items.find((i) => i.text.includes('Postgres 16'))!;
    expect(first).toMatchObject({ by: 'words', words: ['postgr', 'order'], meaning: 1.5 });
    const shared = e.words.filter((w) => first.words.includes(w.word)).reduce((a, w) => a + w.evidence, 0);
    expect(first.evidence).toBeCloseTo(shared, 2);
    expect(first.evidence).toBeGreaterThanOrEqual(T.gateMin);
    expect(e.items.find((i) => i.text.includes('Releases'))).toMatchObject({ by: 'meaning', words: [], evidence: 0 });
    const text = renderExplanation(e);
    expect(text).toMatch(/^Recall injected \d lines: words opened it \(the best line's evidence \d\.\d\d ≥ 1\.15\)\./);
    expect(text).toContain('by words: postgres, orders (evidence');
    expect(text).toContain('by meaning alone');
  });

  test('one rare word opens the gate, and says so', () => {
    const e = createRecall().recall(input('buildkite?')).explain!;
    expect(e.opened).toBe('rare-word');
    expect(e.gate).toMatchObject({ rareWord: 'buildkite', open: true });
    expect(e.words[0]).toMatchObject({ word: 'buildkit', written: 'buildkite', rare: true, lines: 1 });
    expect(renderExplanation(e)).toContain('one rare word opened it ("buildkite": the best line\'s evidence');
  });

  test('meaning alone opens it: every meaning gate cleared', () => {
    const e = createRecall().recall(input('offsite roadmap planning'), view({ best: 1.5, chat: 0, tech: 0, bar: 0 })).explain!;
    expect(e.opened).toBe('meaning');
    expect(e.items.map((i) => i.by)).toEqual(['meaning']);
  });
});

test('asking why changes nothing of what recall injects', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...ORDERS_WORDS), { minLength: 0, maxLength: 6 }), fc.option(meaningFigures(), { nil: undefined }), (words, v) => {
      const q = words.join(' ');
      const dense = v ? view(v) : undefined;
      const plain = createRecall().recall(input(q, false), dense);
      const { explain, ...traced } = createRecall().recall(input(q, true), dense);
      expect(traced).toEqual(plain);
      expect(plain.explain).toBeUndefined();
      // The explanation agrees with the result: silent exactly when nothing was injected.
      if (q.trim()) expect(Boolean(explain!.silence)).toBe(plain.items.length === 0);
    }),
    { numRuns: 200 },
  );
});
