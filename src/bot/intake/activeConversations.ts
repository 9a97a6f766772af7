import { LRUCache } from 'lru-cache';
import { existsSync } from '../../memory/dataFiles';

/**
 * Which conversations the bot works in (it answered there, in this run or an earlier one), and which
 * had their first-run record started by this process. Both remember the most recent `max`
 * conversations, so a bot in thousands of channels does not keep one entry each forever; forgetting
 * is harmless: an active one is found again by its folder (one existsSync), and a first-run record
 * asked for again keeps the date it already has (condense/saga/firstRun.ts).
 */
export class ActiveConversations {
  private readonly active: LRUCache<string, true>;
  private readonly activated: LRUCache<string, true>;

  constructor(o: { max?: number } = {}) {
    const max = o.max ?? DEFAULT_MAX;
    this.active = new LRUCache({ max });
    this.activated = new LRUCache({ max });
  }

  /** Whether the bot works in this conversation: it did in this run, or its folder exists. */
  isActive(convDir: string): boolean {
    if (this.active.get(convDir)) return true;
    // A folder on disk means the bot has worked here before (this or an earlier run).
    if (!existsSync(convDir)) return false;
    this.active.set(convDir, true);
    return true;
  }

  /** Marks it active; true when its first-run record should be started (not started or forgotten). */
  activate(convDir: string): boolean {
    this.active.set(convDir, true);
    if (this.activated.get(convDir)) return false;
    this.activated.set(convDir, true);
    return true;
  }

  /** The first-run record failed: the next message tries again. */
  activationFailed(convDir: string): void {
    this.activated.delete(convDir);
  }
}

/** More than the conversations a busy bot answers in at once; ~2 MB of folder names at most. */
const DEFAULT_MAX = 10_000;
