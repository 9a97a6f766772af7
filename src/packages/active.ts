import { LRUCache } from 'lru-cache';
import type { Logger } from '../log/logger';
import { packageFile, serverLabel, serverOf } from '../memory/layout';
import { ChannelRef, isPackageName, refLabel } from '../memory/paths';
import { StatCachedFiles } from '../memory/statCachedFiles';
import type { ChannelStore } from '../memory/store';
import { ActiveState } from './activation';
import { parsePackage } from './format';
import { ContextPackage, fitBudget, PackageItem, packageTokens } from './model';
import { MAX_ACTIVE_TOKENS } from './activation';

/** A package as the prompt carries it: its label and the items its budget keeps. */
export interface ActivePackage {
  name: string;
  title: string;
  intent: string;
  items: PackageItem[];
}

export interface ActivePackageReader {
  /** The packages active in this conversation, in the order they were activated. */
  forConversation(ref: ChannelRef): ActivePackage[];
}

/** Parsed package files kept (by path, with the text they were parsed from). */
const PARSED_MAX = 1_024;

/**
 * What the chat engine asks on every turn: the conversation's `.minutes/packages.json` and each
 * listed package's file, re-read only when their stat changes (one stat each per turn) and parsed
 * only when their text changes, so the prompt's stable part costs nothing new turn to turn and stays
 * byte-identical until a package is activated, deactivated or refreshed. The rules are checked again
 * here (the package's own server; a private thread's package only in that thread), so a state file
 * edited by hand cannot carry a package where activation would have refused it.
 */
export class ActivePackages implements ActivePackageReader {
  private readonly files: StatCachedFiles;
  private readonly parsed = new LRUCache<string, { text: string; pkg: ContextPackage | null }>({ max: PARSED_MAX });
  private readonly states = new LRUCache<string, { text: string; names: string[] }>({ max: PARSED_MAX });

  constructor(private readonly o: { store: ChannelStore; logger: Logger }) {
    this.files = new StatCachedFiles({
      onUnreadable: (file, err) => o.logger.warn({ file, err }, 'cannot read this context package file; answering without it until it is readable'),
    });
  }

  forConversation(ref: ChannelRef): ActivePackage[] {
    const names = this.activeNames(this.o.store.paths(ref).activePackages);
    if (!names.length) return [];
    const server = serverOf(ref);
    const out: ActivePackage[] = [];
    let tokens = 0;
    for (const name of names) {
      if (!isPackageName(name)) continue;
      const pkg = this.packageAt(packageFile(this.o.store.root, server, name));
      if (!pkg || pkg.server !== serverLabel(server)) continue;
      if (pkg.source.privateThread && pkg.source.channel !== refLabel(ref)) continue;
      const { kept } = fitBudget(pkg.items, pkg.budget);
      // All active packages together stay within the bound activation checks (a refresh may grow one).
      const room = fitBudget(kept, { maxItems: kept.length, maxTokens: MAX_ACTIVE_TOKENS - tokens }).kept;
      tokens += packageTokens(room);
      if (room.length) out.push({ name: pkg.name, title: pkg.title, intent: pkg.intent, items: room });
    }
    return out;
  }

  private activeNames(file: string): string[] {
    const text = this.files.read(file);
    if (!text) return [];
    const hit = this.states.get(file);
    if (hit && hit.text === text) return hit.names;
    let names: string[] = [];
    try {
      const parsed = ActiveState.safeParse(JSON.parse(text));
      if (parsed.success) names = parsed.data.active.map((a) => a.name);
    } catch {
      this.o.logger.warn(
        { file },
        'the active packages file is not valid JSON; no package is active here until it is fixed or the next activation rewrites it',
      );
    }
    this.states.set(file, { text, names });
    return names;
  }

  private packageAt(file: string): ContextPackage | null {
    const text = this.files.read(file);
    if (text === null) return null;
    const hit = this.parsed.get(file);
    if (hit && hit.text === text) return hit.pkg;
    let pkg: ContextPackage | null = null;
    try {
      // No signature check: a package in the data root is its operators' (one taken in on --trust
      // says so in explain); the prompt quotes every package's words as reference material alike.
      pkg = parsePackage(text, { label: file }).pkg;
    } catch (err) {
      this.o.logger.warn({ file, err }, 'an active context package cannot be read; answering without it (minutes pack explain says why)');
    }
    this.parsed.set(file, { text, pkg });
    return pkg;
  }
}
