import { serverOf } from '../memory/layout';
import type { ChannelRef } from '../memory/paths';
import type { ChannelStore } from '../memory/store';
import { activatePackage, activeIn, deactivatePackage, deletePackage } from '../packages/activation';
import { PackageError } from '../packages/errors';
import { explainPackage, formatCreated, formatExplain, formatList, formatRefreshed } from '../packages/explain';
import { createPackage, listPackages, refreshPackage } from '../packages/library';
import { packageTokens } from '../packages/model';
import type { SearchRequest } from '../recall/service';
import type { RecallItem } from '../recall/types';

/**
 * `/pack create|activate|deactivate|explain|refresh|list|delete`, shared by console mode and Discord
 * (through commandList.ts): each returns the text to show; a refusal throws a PackageError whose message is one line
 * saying what to do, and the transport shows it as its errors. Everything acts on the conversation
 * the command is typed in and on its server's packages.
 */
export interface PackCommandContext {
  store: ChannelStore;
  /** Recall's explicit search (a query recipe runs it over this conversation's memory). */
  search: (r: SearchRequest) => Promise<RecallItem[]>;
  clock: () => Date;
  /** Who asked: recorded as the package's maker or the activation's. */
  actor: string;
  /** Creating, activating, deactivating, refreshing and deleting need an admin; list and explain do not. */
  isAdmin: boolean;
}

export const PACK_USAGE = [
  'Usage:',
  '  /pack list                         the packages of this server, and which are active here',
  '  /pack create NAME [--item ID]... [--max-items N] [--max-tokens N] [WORDS...]',
  "                                     gather this conversation's memory matching WORDS and/or the named items",
  "  /pack activate NAME                its items join this conversation's prompt",
  '  /pack deactivate NAME              they leave it',
  '  /pack explain NAME                 items, why each, provenance, size, where active',
  '  /pack refresh NAME                 run its recipes again and show the difference',
  '  /pack delete NAME                  deactivate it everywhere and remove it',
].join('\n');

/** The subcommands that change something: an admin's. */
export const PACK_ADMIN_ONLY = new Set(['create', 'activate', 'deactivate', 'refresh', 'delete']);

/** One `/pack` request, however it was typed (a console line, Discord's options). */
export interface PackRequest {
  sub: string;
  name: string;
  query?: string;
  items?: string[];
  maxItems?: number;
  maxTokens?: number;
}

/** A console line after `/pack`: `create NAME [--item ID]... [--max-items N] [--max-tokens N] [WORDS...]`, or `SUB NAME`. */
export function packCommand(ctx: PackCommandContext, ref: ChannelRef, args: string): Promise<string> {
  const req = packWords(args);
  return req ? runPack(ctx, ref, req) : Promise.resolve(PACK_USAGE);
}

/** That line as a request, or null when it names no subcommand (then /pack's usage is the answer). */
export function packWords(args: string): PackRequest | null {
  const [sub, name, ...rest] = args.trim().split(/\s+/).filter(Boolean);
  if (!sub) return null;
  return { sub, name: name ?? '', ...(sub === 'create' ? createArgs(rest) : {}) };
}

export async function runPack(ctx: PackCommandContext, ref: ChannelRef, req: PackRequest): Promise<string> {
  const { sub, name } = req;
  if (PACK_ADMIN_ONLY.has(sub) && !ctx.isAdmin)
    throw new PackageError('not-admin', `only admins can ${sub} packages; /pack list and /pack explain are open to everyone`);
  const server = serverOf(ref);
  if (sub !== 'list' && !name && PACK_SUBS.has(sub)) throw new PackageError('usage', `usage: /pack ${sub} NAME (/pack list shows the names)`);
  switch (sub) {
    case 'list': {
      const active = (await activeIn(ctx.store, ref)).map((a) => a.name);
      const list = formatList(await listPackages(ctx.store, server, ref));
      return `${list}\nActive here: ${active.length ? active.join(', ') : 'none'}`;
    }
    case 'create': {
      const created = await createPackage(
        { store: ctx.store, search: ctx.search, clock: ctx.clock },
        { name, from: ref, query: req.query, items: req.items, budget: { maxItems: req.maxItems, maxTokens: req.maxTokens }, actor: ctx.actor },
      );
      return `${formatCreated(created)}\n/pack activate ${name} in another conversation of this server puts it into that conversation's prompt.`;
    }
    case 'activate': {
      const { pkg, already } = await activatePackage({ store: ctx.store, clock: ctx.clock }, { target: ref, name, actor: ctx.actor });
      if (already) return `Package ${name} is already active here.`;
      return `Activated package ${name} here: its ${pkg.items.length} items (~${packageTokens(pkg.items)} tokens) are in this conversation's prompt from the next message on, until /pack deactivate ${name}.`;
    }
    case 'deactivate':
      return (await deactivatePackage(ctx.store, ref, name))
        ? `Deactivated package ${name} here: its items leave this conversation's prompt.`
        : `Package ${name} was not active here.`;
    case 'explain':
      return formatExplain(await explainPackage(ctx.store, server, name, ref));
    case 'refresh':
      return formatRefreshed(await refreshPackage({ store: ctx.store, search: ctx.search, clock: ctx.clock }, server, name, ref));
    case 'delete': {
      const { deactivated } = await deletePackage(ctx.store, server, name, ref);
      return `Deleted package ${name}${deactivated.length ? `; it was deactivated in ${deactivated.join(', ')}` : ''}.`;
    }
    default:
      throw new PackageError('usage', `unknown /pack command "${sub}": /pack alone lists them`);
  }
}

const PACK_SUBS = new Set(['list', 'create', 'activate', 'deactivate', 'explain', 'refresh', 'delete']);

/** `--item ID` (repeatable), `--max-items N`, `--max-tokens N`; every other word is the query. */
function createArgs(words: string[]): Omit<PackRequest, 'sub' | 'name'> {
  const items: string[] = [];
  const query: string[] = [];
  let maxItems: number | undefined;
  let maxTokens: number | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (w === '--item' || w === '--max-items' || w === '--max-tokens') {
      const v = words[++i];
      if (v === undefined) throw new PackageError('usage', `${w} needs a value`);
      if (w === '--item') items.push(v);
      else {
        const n = Number(v);
        if (!Number.isInteger(n)) throw new PackageError('bad-budget', `${w} must be a whole number, not "${v}"`);
        if (w === '--max-items') maxItems = n;
        else maxTokens = n;
      }
    } else query.push(w);
  }
  return { items, maxItems, maxTokens, query: query.join(' ') };
}
