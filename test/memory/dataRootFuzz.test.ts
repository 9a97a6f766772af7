import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { ConversationStore } from '../../src/chat/conversationStore';
import { transcriptFromLog } from '../../src/condense/condensation/logTranscript';
import { silentLogger } from '../../src/log/logger';
import { parseMemory } from '../../src/memory/entries';
import { findProvenance, PROVENANCE } from '../../src/memory/grammar';
import { lineEntries } from '../../src/memory/markdownBlocks';
import { JournalLine } from '../../src/memory/conversationJournal';
import { shardLayoutFile } from '../../src/memory/layout';
import type { ChannelRef } from '../../src/memory/paths';
import { claimShardLayout } from '../../src/memory/shardLayout';
import { ChannelStore } from '../../src/memory/store';
import { StoreError } from '../../src/memory/storeErrors';
import { makeTombstone } from '../../src/memory/tombstones';
import { damaged, FUZZ_RUNS, randomBytes, wrongValue, fuzzDataRoots } from '../helpers/damagedFiles';
import { ConversationState } from '../../src/shared/conversation';
import type { ZodType } from 'zod';

/**
 * Every reader of the data root's memory-layer files (MEMORY.md and its tombstones, conversation.json
 * and its journal, shards.json, log.jsonl) given what a disk fault, a half-finished copy or a
 * person's edit can leave there: it never throws anything but a typed error its caller handles, and
 * a file it cannot use is never replaced by a write that drops what it held.
 */
const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
const NOW = new Date('2026-11-21T12:00:00Z');
const { freshRoot, put } = fuzzDataRoots(NOW);

/** The files in `dir` and below, relative names, with their bytes. */
function filesUnder(dir: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const e of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out.set(path.relative(dir, path.join(e.parentPath, e.name)), fs.readFileSync(path.join(e.parentPath, e.name)));
  }
  return out;
}

/** Whether the bytes survive somewhere in the folder: the file itself, or a copy kept aside. */
function keptSomewhere(dir: string, bytes: Buffer): boolean {
  return [...filesUnder(dir).values()].some((b) => b.equals(bytes));
}

const VALID_MEMORY = '# Memory\n\n## Durable Facts\n\n- [m-1a2b3c] The importer runs nightly [from: #general, 2026-11-01]\n- hand-written fact\n';

describe('MEMORY.md', () => {
  it('parses any text into one line each, never throwing', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string({ unit: 'binary' }),
          randomBytes.map((b) => b.toString('utf8')),
        ),
        (text) => {
          expect(parseMemory(text)).toHaveLength(text.split(/\r?\n/).length);
        },
      ),
      { numRuns: FUZZ_RUNS * 5 },
    );
  });

  it('a long line of a hand edit is read in linear time, by the writer and by recall (quadratic patterns stalled the bot for minutes)', () => {
    const N = 200_000;
    const shapes = [
      ' '.repeat(N) + 'x',
      '[from:'.repeat(N / 6),
      '~~' + ' '.repeat(N) + 'x',
      '- [m-abcdef]' + ' '.repeat(N) + 'x',
      '|' + ' |'.repeat(N / 2) + 'x',
    ];
    for (const line of shapes) {
      const started = Date.now();
      parseMemory(`# Memory\n\n${line}\n`);
      lineEntries(`# Memory\n\n${line}\n`);
      // The line's start in the result, so a failure says which shape was slow.
      expect([JSON.stringify(line.slice(0, 14)), Date.now() - started < 1_000]).toEqual([JSON.stringify(line.slice(0, 14)), true]);
    }
  });

  it('finds the provenance tag the pattern finds, in linear time', () => {
    const piece = fc.constantFrom(' ', '\t', '\n', '[from:', '[from: ', ']', '[', 'a', '2026-11-01', ',');
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((xs) => xs.join('')),
        (text) => {
          const m = PROVENANCE.exec(text);
          expect(findProvenance(text)).toEqual(m ? { index: m.index, source: m[1] } : null);
        },
      ),
      { numRuns: FUZZ_RUNS * 20 },
    );
  });

  it('a write to a damaged MEMORY.md either keeps every line or is refused with a StoreError, the file untouched', async () => {
    await fc.assert(
      fc.asyncProperty(damaged(VALID_MEMORY), async (bytes) => {
        const { store } = freshRoot();
        const file = store.paths(ref).memory;
        put(file, bytes);
        try {
          await store.applyMemoryOps(ref, [{ op: 'add', text: 'The deploy window is Tuesday', source: 'test', explicit: true }]);
        } catch (err) {
          expect(err).toBeInstanceOf(StoreError);
          expect(fs.readFileSync(file).equals(bytes)).toBe(true);
          return;
        }
        const after = fs.readFileSync(file, 'utf8');
        // Hand-written lines gain an id, their words stay: every old line's text is still there.
        for (const l of parseMemory(bytes.toString('utf8'))) if (l.kind !== 'other' || l.raw.trim()) expect(after).toContain(l.text || l.raw.trim());
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('tombstones of any shape do not stop a memory write', async () => {
    const stone = JSON.stringify(makeTombstone('the wifi is slow', NOW, 'm-abcdef', 'forgotten'));
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            wrongValue.map((v) => JSON.stringify(v)),
            fc.string(),
          ),
          { maxLength: 5 },
        ),
        async (lines) => {
          const { store } = freshRoot();
          put(store.tombstoneFile(store.paths(ref)), [...lines, stone].join('\n') + '\n');
          const res = await store.applyMemoryOps(ref, [{ op: 'add', text: 'The deploy window is Tuesday', source: 'test' }]);
          expect(res.applied).toHaveLength(1);
          // The readable tombstone still works.
          const again = await store.applyMemoryOps(ref, [{ op: 'add', text: 'the wifi is slow', source: 'test' }]);
          expect(again.skipped.map((s) => s.why)).toEqual(['matches a forgotten entry']);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});

const turn = (role: 'user' | 'assistant', content: string) => ({ role, content, at: '2026-11-21T11:00:00.000Z' });
const VALID_SNAPSHOT = { version: 1, turns: [turn('user', 'hello'), turn('assistant', 'hi')], compactedTurns: 0, journalSeq: 1 };
const VALID_JOURNAL = [
  { seq: 2, turns: [turn('user', 'second'), turn('assistant', 'two')] },
  { seq: 3, turns: [turn('user', 'third'), turn('assistant', 'three')] },
];
const journalText = (lines: unknown[]) => lines.map((l) => JSON.stringify(l) + '\n').join('');

function parses(bytes: Buffer, schema: ZodType): boolean {
  try {
    return schema.safeParse(JSON.parse(bytes.toString('utf8'))).success;
  } catch {
    return false;
  }
}

/** Whether every line of a journal is one the loader applies (so nothing of it is dropped). */
function wholeJournal(bytes: Buffer): boolean {
  const text = bytes.toString('utf8');
  if (!text.endsWith('\n') && text.length) return false;
  if (!Buffer.from(text, 'utf8').equals(bytes)) return false;
  return text
    .split('\n')
    .filter((l) => l.trim())
    .every((l) => {
      try {
        return JournalLine.safeParse(JSON.parse(l)).success;
      } catch {
        return false;
      }
    });
}

describe('conversation.json and its journal', () => {
  async function loadThenRewrite(store: ChannelStore): Promise<void> {
    const conversations = new ConversationStore({ store, logger: silentLogger() });
    const state = await conversations.get(ref);
    expect(Array.isArray(state.turns)).toBe(true);
    // A /new: the whole conversation is written and the journal cut.
    const { saved } = await conversations.update(ref, (c) => ({ ...c, summary: 'after a reset' }));
    await saved;
    await conversations.close();
  }

  it('a damaged snapshot is read as a new conversation, its bytes kept beside it', async () => {
    const valid = JSON.stringify(VALID_SNAPSHOT, null, 2) + '\n';
    await fc.assert(
      fc.asyncProperty(damaged(valid, VALID_SNAPSHOT), async (bytes) => {
        const { store } = freshRoot();
        const p = store.paths(ref);
        put(p.conversation, bytes);
        await loadThenRewrite(store);
        if (!parses(bytes, ConversationState.partial({ compactedTurns: true }))) expect(keptSomewhere(p.stateDir, bytes)).toBe(true);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('a second damage of the file never overwrites the copy kept of the first', async () => {
    const { store } = freshRoot();
    const p = store.paths(ref);
    for (const bytes of ['{"version": 1, "turns": [{"role": "user", "content": "first damage', '{"version": 1, "turns": "second damage"}']) {
      put(p.conversation, bytes);
      put(p.conversationJournal, `${bytes}\n`);
      await loadThenRewrite(store);
    }
    const kept = [...filesUnder(p.stateDir).values()].map((b) => b.toString('utf8'));
    expect(kept.filter((t) => t.includes('first damage'))).toHaveLength(2);
    expect(kept.filter((t) => t.includes('second damage'))).toHaveLength(2);
  });

  it('a damaged journal is read as far as it goes, and what it could not apply is kept aside before it is cut', async () => {
    const valid = journalText(VALID_JOURNAL);
    const damagedLines = fc
      .array(
        fc.oneof(
          wrongValue.map((v) => JSON.stringify(v)),
          fc.constant('{"seq":4,"turns":[{"role":"user"'),
          randomBytes.map((b) => b.toString('latin1')),
        ),
        {
          minLength: 1,
          maxLength: 3,
        },
      )
      .map((ls) => Buffer.from(journalText(VALID_JOURNAL.slice(0, 1)) + ls.join('\n') + '\n' + journalText(VALID_JOURNAL.slice(1)), 'latin1'));
    await fc.assert(
      fc.asyncProperty(fc.oneof(damaged(valid), damagedLines), async (bytes) => {
        const { store } = freshRoot();
        const p = store.paths(ref);
        put(p.conversation, JSON.stringify(VALID_SNAPSHOT));
        put(p.conversationJournal, bytes);
        await loadThenRewrite(store);
        if (!wholeJournal(bytes)) expect(keptSomewhere(p.stateDir, bytes)).toBe(true);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

describe('shards.json', () => {
  it('a damaged record refuses the start with one line and is left as it is', async () => {
    const valid = '{"total":4,"shards":[0,1]}\n';
    await fc.assert(
      fc.asyncProperty(damaged(valid, { total: 4, shards: [0, 1] }), async (bytes) => {
        const { root } = freshRoot();
        put(shardLayoutFile(root), bytes);
        const res = await claimShardLayout(root, { total: 4, shards: [0] }, { reshard: false });
        if ('problem' in res) {
          expect(res.problem).not.toContain('\n');
          expect(fs.readFileSync(shardLayoutFile(root)).equals(bytes)).toBe(true);
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

describe('log.jsonl', () => {
  it('a log with lines of any shape reads as the messages it can', () => {
    const good = JSON.stringify({ type: 'message', id: '1', at: '2026-11-21T11:00:00Z', author: { id: '9', name: 'al' }, content: 'hello' });
    const record = fc.record({ type: fc.constantFrom('message', 'edit', 'delete'), id: wrongValue, at: wrongValue, author: wrongValue, content: wrongValue });
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            wrongValue.map((v) => JSON.stringify(v)),
            record.map((r) => JSON.stringify(r)),
            fc.string(),
          ),
          { maxLength: 6 },
        ),
        (lines) => {
          const out = transcriptFromLog([good, ...lines].join('\n'));
          for (const m of out) expect(typeof m.content).toBe('string');
        },
      ),
      { numRuns: FUZZ_RUNS * 3 },
    );
  });
});
