import fs from 'node:fs';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { readContext, writeContextFiles } from '../../src/condense/knowledge/contextFiles';
import { withHashLine } from '../../src/condense/knowledge/contextHash';
import { renderContextBody, STATUS_SUFFIX } from '../../src/condense/knowledge/contextRender';
import { contextStaleness } from '../../src/condense/knowledge/contextStaleness';
import { confirmInChannel, reopenInChannel } from '../../src/condense/knowledge/ratifyFiles';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { MalformedStateError } from '../../src/memory/storeErrors';
import { makeTmpDir } from '../helpers/tmp';
import { draftMaker, EMPTY_CONTEXT, folder } from './helpers';

/**
 * Confirm and Reopen on a real channel folder (issue 43 §1): context.json and CONTEXT.md change
 * together under the channel's lock, hand edits are kept, a refusal writes nothing.
 */
const draft = draftMaker({ topic: 'Orders database', decision: 'the orders service stores its data in MySQL 8' });
const fold = folder(draft);
const AT = new Date('2026-11-28T15:00:00Z');
const ana = { id: '111', name: 'Ana', roles: [] };
const ben = { id: '222', name: 'Ben_the *builder*', roles: [] };
const ONE = { minConfirmations: 1 };

/** MySQL (replaced) → Postgres, as two condensations leave them. */
function decisions(): ContextData {
  const mysql = fold(EMPTY_CONTEXT, { decisionId: 'd-mysql00001', ledgerKey: 'k1', date: '2026-11-20', file: '2026-11-20-orders-database.md' });
  return fold(mysql, {
    decisionId: 'd-postgres01',
    ledgerKey: 'k2',
    date: '2026-11-24',
    file: '2026-11-24-orders-database.md',
    supersedes: ['d-mysql00001'],
    draft: draft({ decision: 'the orders database moves to Postgres 16' }),
  });
}

describe('confirming and reopening a decision in a channel folder', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let store: ChannelStore;
  const ref: ChannelRef = { kind: 'local', name: 'orders' };
  const read = (f: string) => fs.readFileSync(f, 'utf8');
  const seed = async (r: ChannelRef, data: ContextData, context?: string) => {
    const p = store.paths(r);
    await store.ensureChannel(r);
    await store.exclusive(p, async (tx) => {
      if (!r.privateThread) await writeContextFiles(tx, EMPTY_CONTEXT, data);
      await tx.writeState(p.contextData, data);
    });
    if (context !== undefined) fs.writeFileSync(p.context, context);
    return p;
  };

  beforeEach(() => {
    tmp = makeTmpDir('minutes-ratify-');
    store = new ChannelStore({ root: tmp.dir, clock: () => AT });
  });
  afterEach(() => tmp.cleanup());

  it('Confirm writes who and when to context.json and "ratified by" to CONTEXT.md, whose hash still matches', async () => {
    const p = await seed(ref, decisions());
    expect(read(p.context)).toContain(
      '**Orders database:** the orders database moves to Postgres 16 ([condensation](condensations/2026-11-24-orders-database.md)) — proposed',
    );
    const r = await confirmInChannel(store, ref, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE });
    expect(r).toMatchObject({ ok: true, status: 'ratified' });
    const data = await readContext(store, ref);
    expect(data.decisions.find((d) => d.id === 'd-postgres01')).toMatchObject({
      status: 'ratified',
      ratifiedBy: [{ id: '111', name: 'Ana', at: AT.toISOString() }],
      ratifiedAt: AT.toISOString(),
    });
    const context = read(p.context);
    expect(context).toContain('([condensation](condensations/2026-11-24-orders-database.md)) — ratified by Ana (2026-11-28)');
    expect(context).toContain('- ~~[2026-11-20] Orders database: the orders service stores its data in MySQL 8~~ → Replaced by');
    expect(contextStaleness(context, data)).toBeNull();
  });

  it('Reopen marks it disputed; a display name cannot bring markdown into CONTEXT.md; a refusal writes nothing', async () => {
    const p = await seed(ref, decisions());
    const r = await reopenInChannel(store, ref, { decisionId: 'd-postgres01', member: ben, at: AT, settings: ONE });
    expect(r).toMatchObject({ ok: true, status: 'disputed' });
    const context = read(p.context);
    expect(context).toContain(' — disputed: reopened by Ben\\_the \\*builder\\* (2026-11-28)');
    const before = [read(p.context), read(p.contextData)];
    const refused = await confirmInChannel(store, ref, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE });
    expect(refused).toMatchObject({ ok: false, reason: 'disputed' });
    expect(await confirmInChannel(store, ref, { decisionId: 'd-mysql00001', member: ana, at: AT, settings: ONE })).toMatchObject({
      ok: false,
      reason: 'superseded',
    });
    expect([read(p.context), read(p.contextData)]).toEqual(before);
  });

  it("keeps a person's edit to CONTEXT.md, and does not take a CONTEXT.md drawn before decisions had a status for one", async () => {
    const data = decisions();
    const legacy = withHashLine(
      renderContextBody(data)
        .split('\n')
        .map((l) => l.replace(STATUS_SUFFIX, ''))
        .join('\n'),
    );
    expect(legacy).not.toContain(' — proposed');
    // Untouched since it was drawn (its hash matches), then with a person's line added.
    const p = await seed(ref, data, legacy);
    await confirmInChannel(store, ref, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE });
    expect(read(p.context)).not.toContain('## Notes (hand-written)');
    fs.writeFileSync(p.context, read(p.context).replace('## Active Constraints', 'Ask Dana before any schema change.\n\n## Active Constraints'));
    await confirmInChannel(store, ref, { decisionId: 'd-postgres01', member: ben, at: AT, settings: ONE });
    const notes = read(p.context).split('## Notes (hand-written)')[1];
    expect(notes.trim()).toBe('Ask Dana before any schema change.');

    // A legacy file with a hand edit: only the edit moves to Notes, not its decision lines.
    fs.writeFileSync(p.context, legacy.replace('## Active Constraints', 'Dana owns the schema.\n\n## Active Constraints'));
    await reopenInChannel(store, ref, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE });
    expect(read(p.context).split('## Notes (hand-written)')[1].trim()).toBe('Dana owns the schema.');
  });

  it('two members confirming at once are both recorded (the writes are serialised on the channel)', async () => {
    const p = await seed(ref, decisions());
    const two = { minConfirmations: 2 };
    const clicks = [ana, ben, { id: '333', name: 'Cy', roles: [] }].map((member) =>
      confirmInChannel(store, ref, { decisionId: 'd-postgres01', member, at: AT, settings: two }),
    );
    expect((await Promise.all(clicks)).map((r) => r.ok)).toEqual([true, true, true]);
    const d = (await readContext(store, ref)).decisions.find((x) => x.id === 'd-postgres01');
    expect(d?.ratifiedBy?.map((c) => c.id)).toEqual(['111', '222', '333']);
    expect(d?.status).toBe('ratified');
    expect(read(p.context)).toContain(' — ratified by Ana, Ben\\_the \\*builder\\*, Cy (2026-11-28)');
  });

  it("in a private thread changes only the thread's own context.json; an unreadable context.json is refused, not replaced", async () => {
    const thread: ChannelRef = { kind: 'discord', guildId: '1', channelId: '2', threadId: '3', privateThread: true };
    const p = await seed(thread, decisions());
    const own = read(p.context);
    expect(await confirmInChannel(store, thread, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE })).toMatchObject({ ok: true });
    expect(read(p.context)).toBe(own);
    expect((await readContext(store, thread)).decisions.find((x) => x.id === 'd-postgres01')?.status).toBe('ratified');

    const q = await seed(ref, decisions());
    fs.writeFileSync(q.contextData, '{"version": 1, "decisions": [');
    await expect(confirmInChannel(store, ref, { decisionId: 'd-postgres01', member: ana, at: AT, settings: ONE })).rejects.toThrow(MalformedStateError);
    expect(read(q.contextData)).toBe('{"version": 1, "decisions": [');
  });
});
