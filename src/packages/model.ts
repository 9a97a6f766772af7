/**
 * A context package: a named, budgeted bundle of memory items gathered from one conversation of a
 * server (a channel, a thread, a console channel), which can be activated in other conversations of
 * the same server so its items join their prompt. Each item keeps where it came from; the recipes
 * that picked the items are kept too, so the package can be refreshed.
 *
 * The shapes here are what the package file holds (format.ts writes and reads it); nothing in this
 * module does I/O.
 */

/** The file format's version, written as `minutes_package:` in the manifest. */
export const PACKAGE_FORMAT = 1;

/** What picks items: a search over the source conversation's memory, or items named one by one. */
export type PackageRecipe = { kind: 'query'; query: string } | { kind: 'items'; items: string[] };

export interface PackageBudget {
  maxItems: number;
  /** Approximate: characters / 4, as estimateTokens counts. */
  maxTokens: number;
}

export interface PackageItem {
  /** The item's words (secrets redacted), one line or several. */
  text: string;
  /** The conversation it came from, as refLabel writes it: `111/222`, `111/222/threads/333`, `local/orders-team`. */
  channel: string;
  /** The file, relative to that conversation's channel folder: `MEMORY.md`, `condensations/<name>.md`, `CONTEXT.md`, `threads/<id>/SESSION.md`. */
  file: string;
  /** The MEMORY.md entry id, the CONTEXT.md section, or the heading the item sits under; absent when none. */
  entry?: string;
  /** YYYY-MM-DD: when it was said or decided, when known. */
  date?: string;
  /** The recipe (1-based, in the manifest's order) that picked it. */
  recipe: number;
}

export interface PackageSource {
  /** The conversation the recipes run over (refLabel). */
  channel: string;
  /** Set when that conversation is a private thread: the package may then be active only there. */
  privateThread?: boolean;
}

export interface ContextPackage {
  /** Stable id (`pkg-` + 12 hex), kept by refresh and import. */
  id: string;
  name: string;
  title: string;
  intent: string;
  /** The server it belongs to: `local` or a guild id; activated only in that server's conversations. */
  server: string;
  source: PackageSource;
  /** ISO date-time of creation, and who made it. */
  created: string;
  createdBy: string;
  /** ISO date-time of the last refresh that changed the items. */
  refreshed?: string;
  /**
   * Set by an import into another server, or of a file this data root did not sign (`unverified`:
   * taken on the operator's `--trust`): which server it was exported from, and when it came in.
   */
  imported?: { fromServer: string; at: string; unverified?: true };
  budget: PackageBudget;
  recipes: PackageRecipe[];
  items: PackageItem[];
}

export const DEFAULT_BUDGET: PackageBudget = { maxItems: 8, maxTokens: 1_200 };
/** The largest budget a package may have: a package rides in every prompt of its conversations. */
export const MAX_BUDGET: PackageBudget = { maxItems: 50, maxTokens: 8_000 };
/** An import larger than this is refused before it is parsed. */
export const MAX_PACKAGE_FILE_BYTES = 256 * 1024;
/** One item's words at most: longer text (a whole condensation, a CONTEXT.md section) is cut. */
export const MAX_ITEM_CHARS = 4_000;
/** A title, an intent or a query at most. */
export const MAX_LABEL_CHARS = 300;

/** Roughly four characters a token for English text; a budget, not a bill. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export function packageTokens(items: readonly Pick<PackageItem, 'text'>[]): number {
  return items.reduce((n, it) => n + estimateTokens(it.text), 0);
}

/**
 * The items that fit the budget, in order: an item that would pass the token budget is left out
 * and a smaller one after it may still fit. Returns what was kept and what was left out.
 */
export function fitBudget<T extends Pick<PackageItem, 'text'>>(items: readonly T[], budget: PackageBudget): { kept: T[]; left: T[] } {
  const kept: T[] = [];
  const left: T[] = [];
  let tokens = 0;
  for (const it of items) {
    const t = estimateTokens(it.text);
    if (kept.length >= budget.maxItems || tokens + t > budget.maxTokens) left.push(it);
    else {
      kept.push(it);
      tokens += t;
    }
  }
  return { kept, left };
}

/** What makes two items the same for a refresh's difference: where they came from and their words. */
export function itemKey(it: Pick<PackageItem, 'channel' | 'file' | 'entry' | 'text'>): string {
  return `${it.channel}\u0000${it.file}\u0000${it.entry ?? ''}\u0000${it.text}`;
}

/** One line, at most `max` characters: labels and provenance fields never span lines in the file. */
export function oneLine(text: string, max = MAX_LABEL_CHARS): string {
  const t = text
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** How a recipe reads in explain and in the prompt's label: `query "…"`, `items m-1, CONTEXT.md#key-decisions`. */
export function describeRecipe(r: PackageRecipe): string {
  return r.kind === 'query' ? `query "${r.query}"` : `items ${r.items.join(', ')}`;
}
