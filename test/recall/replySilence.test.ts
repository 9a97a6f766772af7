import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { createRecall } from '../../src/recall/lexical';
import type { RecallInput } from '../../src/recall/types';
import { handMadeView, meaningFigures, ORDERS_LINES, ORDERS_WORDS, ordersChannelPerTest } from '../helpers/handMadeMeaning';

/**
 * Issue 41 §4: a turn's result names the gate that kept recall silent (RecallResult.silence), the
 * same name an explanation gives, without the turn asking for one. Meaning is a hand-made view
 * (cosines on a scale of mean 0, sd 1), as in explain.test.ts.
 */
const NOW = new Date('2026-11-20T00:00:00Z');
const chanDir = ordersChannelPerTest();
const LINES = ORDERS_LINES;
const view = handMadeView;

const input = (query: string, o: Partial<RecallInput> = {}): RecallInput => ({ channelDirs: [chanDir()], query, now: NOW, ...o });

test('named gates without an explanation: words below the gate, a meaning gate, nothing fits, an empty channel', () => {
  const recall = createRecall();
  expect(recall.recall(input('happy friday everyone')).silence).toBe('words-below-gate');
  expect(recall.recall(input('regex to match an email address'), view({ best: 1.6, chat: 1.0, tech: 2.7, bar: 0.2, bestId: 0 })).silence).toBe(
    'closer-to-tech',
  );
  expect(recall.recall(input('which postgres version do the orders use', { budgetChars: 20 })).silence).toBe('nothing-fits');
  const spoke = recall.recall(input('which postgres version do the orders use'));
  expect(spoke.items.length).toBeGreaterThan(0);
  expect(spoke.silence).toBeUndefined();
  fs.writeFileSync(path.join(chanDir(), 'MEMORY.md'), '# Channel Memory\n');
  expect(createRecall().recall(input('postgres')).silence).toBe('empty-channel');
});

test('a turn names the same gate an explanation does, and names one exactly when it injects nothing', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...ORDERS_WORDS), { minLength: 0, maxLength: 6 }),
      fc.option(
        fc.tuple(meaningFigures(), fc.integer({ min: 0, max: LINES.length - 1 })).map(([m, bestId]) => ({ ...m, bestId })),
        { nil: undefined },
      ),
      fc.constantFrom(undefined, 20, 90, 2000),
      (words, v, budgetChars) => {
        const q = words.join(' ');
        const dense = v ? view(v) : undefined;
        const turn = createRecall().recall(input(q, { budgetChars }), dense);
        const asked = createRecall().recall(input(q, { budgetChars, explain: true }), dense);
        expect(turn.silence).toBe(asked.explain!.silence);
        expect(turn.silence === undefined).toBe(turn.items.length > 0);
      },
    ),
    { numRuns: 300 },
  );
});
