import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { auditChannel, formatAudit } from '../../src/condense/audit/audit';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { readContext } from '../../src/condense/knowledge/contextFiles';
import { ensureFirstRun } from '../../src/condense/saga/firstRun';
import { releaseLeases } from '../../src/condense/saga/leases';
import { mutateLedger, readLedger } from '../../src/condense/saga/ledgerFile';
import { Ledger } from '../../src/condense/saga/ledgerSchema';
import { listRetryable } from '../../src/condense/saga/retryPolicy';
import { silentLogger } from '../../src/log/logger';
import { Catalog } from '../../src/mcp/catalog';
import { readContextData } from '../../src/mcp/decisions';
import { McpRequestError } from '../../src/mcp/errors';
import type { ChannelRef } from '../../src/memory/paths';
import { StoreError } from '../../src/memory/storeErrors';
import { ActivePackages } from '../../src/packages/active';
import { ActiveState, activeIn, deactivatePackage } from '../../src/packages/activation';
import { PackageError } from '../../src/packages/errors';
import { parsePackage } from '../../src/packages/format';
import { startDashboard } from '../dashboard/helpers';
import { damaged, FUZZ_RUNS, fuzzDataRoots } from '../helpers/damagedFiles';
import type { ZodType } from 'zod';

/**
 * Every reader of the Secretary's and the packages' files (the ledger, context.json, a
 * conversation's packages.json, a package file) given what a disk fault, a half-finished copy or a
 * person's edit can leave there: only typed errors its callers handle, the bot's loops, the audit,
 * the dashboard and `minutes mcp` keep going, and a file that is refused is never rewritten.
 */
const GUILD = '100000000000000001';
const ref: ChannelRef = { kind: 'discord', guildId: GUILD, channelId: '200000000000000002' };
const NOW = new Date('2026-11-21T12:00:00Z');
const { freshRoot, put } = fuzzDataRoots(NOW);

function parses(bytes: Buffer, schema: ZodType): boolean {
  try {
    return schema.safeParse(JSON.parse(bytes.toString('utf8'))).success;
  } catch {
    return false;
  }
}

/** Runs `work`; a typed refusal (StoreError and its kinds) is an answer, anything else fails the test. */
async function answers(work: () => Promise<unknown>): Promise<void> {
  await work().catch((err: unknown) => expect(err).toBeInstanceOf(StoreError));
}

const ENTRY = {
  key: 'k1',
  status: 'failed',
  trigger: 'explicit',
  conversation: { label: 'general', channelName: 'general' },
  facts: { date: '2026-11-20', channelName: 'general', participants: ['al'], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
  decisionId: 'd-k1',
  steps: { filed: '2026-11-20-topic.md' },
  attempts: 1,
  lastError: 'model down',
  createdAt: '2026-11-20T10:00:00.000Z',
  updatedAt: '2026-11-20T10:00:00.000Z',
  leaseHolder: { host: 'elsewhere', pid: 1 },
};
const VALID_LEDGER = { version: 1, firstRunAt: '2026-11-01T00:00:00.000Z', entries: { k1: ENTRY } };
const VALID_CONTEXT = {
  version: 1,
  currentState: { text: 'shipping', date: '2026-11-20' },
  decisions: [{ id: 'd-k1', kind: 'decision', topic: 'db', text: 'Use Postgres', date: '2026-11-20', ledgerKey: 'k1', file: '2026-11-20-topic.md' }],
  constraints: [{ text: 'no MySQL', date: '2026-11-20', decisionId: 'd-k1' }],
  actions: [{ id: 'a-1', text: 'migrate', opened: '2026-11-20', decisionId: 'd-k1', status: 'open' }],
};
const text = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

describe('the ledger', () => {
  it('a damaged ledger is refused by every reader and writer, the audit reports it, and its bytes stay as they were', async () => {
    await fc.assert(
      fc.asyncProperty(damaged(text(VALID_LEDGER), VALID_LEDGER), async (bytes) => {
        const { store } = freshRoot();
        const file = store.paths(ref).ledger;
        put(file, bytes);
        await answers(() => readLedger(store, ref));
        await answers(() => mutateLedger(store, ref, (l) => (l.pinNotAllowedNoticeAt = NOW.toISOString())));
        await answers(() => ensureFirstRun(store, ref, NOW));
        await answers(() => releaseLeases(store, ref));
        await answers(() => listRetryable(store, ref, NOW));
        const audit = await auditChannel({ store, ref, fix: true, now: NOW });
        expect(formatAudit(audit).every((l) => !l.includes('\n'))).toBe(true);
        if (!parses(bytes, Ledger)) {
          expect(fs.readFileSync(file).equals(bytes)).toBe(true);
          expect(audit.context).toContain('ledger.json');
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

describe('context.json', () => {
  it('a damaged context.json is refused by the bot and the audit, reported, never rewritten, and `minutes mcp` answers with a request error', async () => {
    await fc.assert(
      fc.asyncProperty(damaged(text(VALID_CONTEXT), VALID_CONTEXT), async (bytes) => {
        const { root, store } = freshRoot();
        const p = store.paths(ref);
        put(p.contextData, bytes);
        put(p.context, '# Context\n');
        await answers(() => readContext(store, ref));
        const audit = await auditChannel({ store, ref, fix: true, now: NOW });
        const channel = await new Catalog({ root }).find(`${GUILD}/${ref.kind === 'discord' ? ref.channelId : ''}`);
        await readContextData(channel).catch((err: unknown) => {
          expect(err).toBeInstanceOf(McpRequestError);
          expect((err as Error).message).not.toMatch(/[\n\r]/);
        });
        if (!parses(bytes, ContextData)) {
          expect(fs.readFileSync(p.contextData).equals(bytes)).toBe(true);
          expect(fs.readFileSync(p.context, 'utf8')).toBe('# Context\n');
          expect(audit.context).toContain('context.json');
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('the dashboard keeps serving every page over damaged state files', async () => {
    const { root, store } = freshRoot();
    const p = store.paths(ref);
    put(p.memory, '# Memory\n\n- a fact\n');
    const dash = await startDashboard(root);
    try {
      await fc.assert(
        fc.asyncProperty(damaged(text(VALID_CONTEXT), VALID_CONTEXT), damaged(text(VALID_LEDGER), VALID_LEDGER), async (context, ledger) => {
          put(p.contextData, context);
          put(p.ledger, ledger);
          put(p.activePackages, context);
          for (const page of ['', `channel/${GUILD}/${ref.kind === 'discord' ? ref.channelId : ''}`, 'packages']) {
            const res = await fetch(`${dash.url}${page}`);
            expect(res.status).toBe(200);
          }
        }),
        { numRuns: Math.ceil(FUZZ_RUNS / 4) },
      );
    } finally {
      await dash.close();
    }
  });
});

describe("a conversation's packages.json", () => {
  const VALID_ACTIVE = { active: [{ name: 'release-notes', id: 'p-1', since: '2026-11-20T10:00:00.000Z', by: 'al' }] };

  it('a damaged one activates nothing, and a change to it keeps its bytes aside before rewriting it', async () => {
    await fc.assert(
      fc.asyncProperty(damaged(text(VALID_ACTIVE), VALID_ACTIVE), async (bytes) => {
        const { store } = freshRoot();
        const file = store.paths(ref).activePackages;
        put(file, bytes);
        expect(new ActivePackages({ store, logger: silentLogger() }).forConversation(ref)).toEqual([]);
        await activeIn(store, ref);
        await deactivatePackage(store, ref, 'release-notes');
        if (parses(bytes, ActiveState)) return;
        const dir = path.dirname(file);
        const kept = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile() && fs.readFileSync(path.join(dir, f)).equals(bytes));
        expect(kept.length).toBeGreaterThan(0);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('a damaged package file is refused with a PackageError, never another exception', () => {
    const valid = '---\nname: notes\nid: p-1\n---\n# Notes\n';
    fc.assert(
      fc.property(damaged(valid), (bytes) => {
        try {
          parsePackage(bytes.toString('utf8'), { label: 'notes.md' });
        } catch (err) {
          expect(err).toBeInstanceOf(PackageError);
        }
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});
