import type { Asker } from '../../chat/commandRegistry';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { closeItem, formatItem, isNamedMember, openItems } from './actionItems';
import { ContextData } from './contextData';
import { readContext, writeContextFiles } from './contextFiles';
import type { ChannelRef } from '../../memory/paths';
import { MalformedStateError } from '../../memory/storeErrors';

/**
 * `/actions` lists the channel's open action items (only the asker sees it); `/actions done:<id>`
 * closes one — its owner, by the user id recorded when the condensation named them (never by
 * display name, which any member can change), or an admin. Closing re-renders CONTEXT.md
 * (the item leaves "Open Action Items"; hand edits kept as always) and records in MEMORY.md that the
 * open loop is done.
 */
export class ActionCommands {
  constructor(private readonly rt: { store: ChannelStore; logger: Logger; clock: () => Date }) {}

  async command(ref: ChannelRef, doneId: string | null, asker: Asker): Promise<string> {
    try {
      return doneId ? await this.done(ref, doneId, asker) : await this.list(ref);
    } catch (err) {
      if (err instanceof MalformedStateError) return `Cannot read this channel's action items: ${err.message}.`;
      throw err;
    }
  }

  private async list(ref: ChannelRef): Promise<string> {
    const open = openItems((await readContext(this.rt.store, ref)).actions);
    if (!open.length) return 'No open action items in this channel.';
    return [`Open action items (${open.length}); close one with /actions done:<id>:`, ...open.map((i) => `- ${formatItem(i)}`)].join('\n');
  }

  private async done(ref: ChannelRef, id: string, asker: Asker): Promise<string> {
    const { store, clock } = this.rt;
    const p = store.paths(ref);
    const file = p.contextData;
    const who = asker.name;
    const date = clock().toISOString().slice(0, 10);
    const outcome = await store.exclusive(p, async (tx) => {
      const prev = await readContext(this.rt.store, ref);
      const item = (prev.actions ?? []).find((i) => i.id === id.trim());
      if (item && item.status === 'open' && !asker.admin && !(asker.userId !== undefined && isNamedMember(item.ownerId, asker.userId))) {
        return { why: ownerOnly(item.owner, item.ownerId, `close ${item.id}`, 'its owner') };
      }
      const r = closeItem(prev.actions ?? [], id, who, date);
      if (!r.closed) return { why: r.why };
      const next: ContextData = { ...prev, actions: r.items };
      // A private thread's context is its own; CONTEXT.md is the parent channel's file.
      if (!ref.privateThread) await writeContextFiles(tx, prev, next);
      await tx.writeState(file, next);
      return { closed: r.closed };
    });
    if (!outcome.closed) return `Nothing closed: ${outcome.why}.`;
    const c = outcome.closed;
    if (c.memoryId) {
      await store
        .applyMemoryOps(ref, [
          { op: 'supersede', id: c.memoryId, text: `Action item ${c.id} done (${date}, ${who}): ${c.text}`, source: `/actions done by ${who}`, reason: 'done' },
        ])
        .catch((err) => this.rt.logger.warn({ err, id: c.id }, 'could not mark the action item done in MEMORY.md'));
    }
    return `Closed ${c.id}: ${c.text}`;
  }
}

/**
 * Who may do it, for a refusal: the person by the name shown, or an admin alone when nobody is
 * recorded by id (no name, or a name that was not one of the discussion's authors).
 */
export function ownerOnly(name: string | undefined, recordedId: string | undefined, what: string, role: string): string {
  if (!name) return `only an admin can ${what} (nobody is named)`;
  if (!recordedId) return `only an admin can ${what} (${name} is named as ${role}, but not by a Discord account)`;
  return `only ${name} (${role}) or an admin can ${what}`;
}
