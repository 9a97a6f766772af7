import type { ChannelRef } from '../../memory/paths';
import type { ChannelStore } from '../../memory/store';
import type { ContextData } from './contextData';
import { readContext, writeContextFiles } from './contextFiles';
import { confirmDecision, DecisionChange, Member, RatifySettings, reopenDecision } from './ratify';

/**
 * Confirm and Reopen carried out on a channel's files: context.json changed by the pure operation
 * (ratify.ts) on what is on disk now, and CONTEXT.md (with its archive) re-rendered from it, in one
 * exclusive section of the channel, so a click never races a condensation folding in. A private
 * thread's context.json is its own and CONTEXT.md is the parent's, so there only context.json
 * changes (as a private thread's condensation does). A context.json that does not parse is refused
 * (MalformedStateError, from readContext), never replaced by one holding only this decision.
 */
export interface DecisionClick {
  decisionId: string;
  member: Member;
  at: Date;
  settings: RatifySettings;
}

type Operation = (data: ContextData, decisionId: string, m: Member, at: Date, s: RatifySettings) => DecisionChange;

async function changeDecision(store: ChannelStore, ref: ChannelRef, click: DecisionClick, op: Operation): Promise<DecisionChange> {
  const p = store.paths(ref);
  return store.exclusive(p, async (tx) => {
    const prev = await readContext(store, ref);
    const r = op(prev, click.decisionId, click.member, click.at, click.settings);
    if (!r.ok) return r;
    // CONTEXT.md first, as the condensation's step: a crash before context.json leaves a file whose hash still matches.
    if (!ref.privateThread) await writeContextFiles(tx, prev, r.data);
    await tx.writeState(p.contextData, r.data);
    return r;
  });
}

/** A member's Confirm: the decision's confirmations and status in context.json and CONTEXT.md. */
export function confirmInChannel(store: ChannelStore, ref: ChannelRef, click: DecisionClick): Promise<DecisionChange> {
  return changeDecision(store, ref, click, confirmDecision);
}

/** A member's Reopen: the decision is disputed in context.json and CONTEXT.md until a condensation replaces it. */
export function reopenInChannel(store: ChannelStore, ref: ChannelRef, click: DecisionClick): Promise<DecisionChange> {
  return changeDecision(store, ref, click, reopenDecision);
}
