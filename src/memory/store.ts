import path from 'node:path';
import type { ZodType } from 'zod';
import { LRUCache } from 'lru-cache';
import { Logger, silentLogger } from '../log/logger';
import { atomicWrite, NotUtf8Error, readTextForWrite, readTextIfExists, replaceIfUnchanged } from './atomicWrite';
import { backedUpWithinBurst, keepBackup } from './backups';
import { withChannelLock } from './lock';
import { applyMemoryOps, ApplyOpsResult, MemoryOp } from './memoryOps';
import { ChannelRef } from './paths';
import { ChannelPaths, channelPaths } from './layout';
import { KeyedQueue } from '../shared/queue';
import { TEMPLATES, TemplateFile } from './templates';
import { ChannelFolders } from './channelFolders';
import { makeTombstone, Tombstone, tombstonesOf } from './tombstones';
import { NotUtf8FileError, StoreError } from './storeErrors';
import { parsedJsonLines } from '../shared/jsonLines';
import { OrderedWrites } from './orderedWrites';
import { readStateFile } from './stateFile';
import { rewritePlaybookFile } from './playbookFiles';
import { ChannelSection, channelSection, ChannelTx, MemoryFileName, UpdateOptions } from './channelTx';

/** A rewrite may not shrink a file below this share of its size unless it is an explicit forget. */
const SHRINK_GUARD = 0.5;
/** Files smaller than this are exempt from the shrink guard: a near-empty file halves easily. */
const SHRINK_GUARD_MIN_BYTES = 400;
/** A human edit can land between our read and our write; re-apply this many times before giving up. */
const MAX_REAPPLY = 5;

export interface StoreOptions {
  root: string;
  clock?: () => Date;
  logger?: Logger;
  /** Shared with other writers in this process; one is made if absent. */
  queue?: KeyedQueue;
  /** Told after a memory file changed (recall re-indexes it in the background); must not throw. */
  onWrite?: (p: ChannelPaths, name: MemoryFileName) => void;
  /** Where a conversation's files live; by default the bot's layout under `root` (channelPaths). */
  layout?: (ref: ChannelRef) => ChannelPaths;
  /**
   * The random part of new MEMORY.md entry ids (6 hex digits); random bytes by default. The example
   * data root's generator passes a fixed sequence so `npm run example` writes the same files each time.
   */
  entryIds?: () => string;
  /**
   * Background first-contact work (a new conversation's folders and templates) waits for this before
   * each conversation: the turn worker passes "no turn is waiting to start", so a burst of new
   * channels gets its replies first. None by default.
   */
  lull?: () => Promise<void>;
}

/**
 * The channel store: every write to a channel's files passes through `update`, which runs in the
 * channel's queue, under the channel's lock file, re-reads what is on disk, refuses suspicious
 * shrinking, keeps a backup and writes atomically.
 */
export class ChannelStore {
  readonly root: string;
  readonly queue: KeyedQueue;
  private readonly clock: () => Date;
  private readonly log: Logger;
  private readonly onWrite: StoreOptions['onWrite'];
  private readonly entryIds: StoreOptions['entryIds'];
  private readonly layout: (ref: ChannelRef) => ChannelPaths;
  /** First contact: each conversation's folders and templates, made once per process. */
  private readonly folders: ChannelFolders;
  /**
   * Paths per conversation (~2 KB each), the most recently used 4,096: more than a busy bot answers
   * in at once, ~8 MB at most; a conversation dropped has its paths computed again.
   */
  private readonly pathCache = new LRUCache<string, ChannelPaths>({ max: 4_096 });
  /** JSONL appends and private state writes, in order per file (no queue or lock needed). */
  private readonly ordered = new OrderedWrites();
  private lockedTasks = 0;

  constructor(opts: StoreOptions) {
    this.root = opts.root;
    this.clock = opts.clock ?? (() => new Date());
    this.log = opts.logger ?? silentLogger();
    this.queue = opts.queue ?? new KeyedQueue();
    this.onWrite = opts.onWrite;
    this.entryIds = opts.entryIds;
    this.layout = opts.layout ?? ((ref) => channelPaths(this.root, ref));
    this.folders = new ChannelFolders({
      root: this.root,
      log: this.log,
      exclusive: (p, task) => this.exclusive(p, task),
      fileFor: (p, name) => this.fileFor(p, name),
      lull: opts.lull,
    });
  }

  /** Paths are pure in the ref; computed once per conversation (the hot path asks per message). */
  paths(ref: ChannelRef): ChannelPaths {
    const key = ref.kind === 'local' ? `l|${ref.name}` : `d|${ref.guildId}|${ref.channelId}|${ref.threadId ?? ''}|${ref.privateThread ? 1 : 0}`;
    let p = this.pathCache.get(key);
    if (!p) {
      p = this.layout(ref);
      this.pathCache.set(key, p);
    }
    return p;
  }

  fileFor(p: ChannelPaths, name: MemoryFileName): string {
    switch (name) {
      case 'CONTEXT.md':
        return p.context;
      case 'CONTEXT.archive.md':
        return p.contextArchive;
      case 'MEMORY.md':
        return p.memory;
      case 'SESSION.md':
        return p.session;
      case 'HISTORY.md':
        return p.history;
      case 'HISTORY.archive.md':
        return p.historyArchive;
    }
  }

  /**
   * ensureChannel in the background, a few conversations at a time, for callers that need nothing
   * of it now (a turn: every write creates what it needs). A failure is logged.
   */
  ensureChannelSoon(ref: ChannelRef): void {
    this.folders.ensureSoon(this.paths(ref));
  }

  /** Creates the channel's folders and any missing memory file from its template. */
  async ensureChannel(ref: ChannelRef): Promise<ChannelPaths> {
    const p = this.paths(ref);
    await this.folders.ensure(p);
    return p;
  }

  /** Reads a memory file; null when it does not exist. Never creates anything. */
  async read(ref: ChannelRef, name: MemoryFileName): Promise<string | null> {
    const p = this.paths(ref);
    const file = this.fileFor(p, name);
    try {
      return await readTextIfExists(file);
    } catch (err) {
      throw new StoreError(`cannot read ${path.relative(this.root, file)}: ${(err as Error).message}; check its permissions`);
    }
  }

  /**
   * The one write path for markdown files. `change` receives the file as it is on disk now and
   * returns the new text (or the same text for no change). It may be called more than once: if
   * the file changes between our read and our write (a person editing it), the change is applied
   * again to the newer text, so the edit is kept.
   */
  async update(
    ref: ChannelRef,
    name: MemoryFileName,
    change: (current: string) => string,
    opts: UpdateOptions = {},
  ): Promise<{ changed: boolean; text: string }> {
    return this.exclusive(this.paths(ref), (tx) => tx.update(name, change, opts));
  }

  /** `update` under the lock the caller's section holds (ChannelTx.update). */
  private async rewrite(
    p: ChannelPaths,
    name: MemoryFileName,
    change: (current: string) => string,
    opts: UpdateOptions = {},
  ): Promise<{ changed: boolean; text: string }> {
    const file = this.fileFor(p, name);
    const useTemplate = opts.template ?? name in TEMPLATES;
    for (let attempt = 0; attempt < MAX_REAPPLY; attempt++) {
      const onDisk = await this.readForWrite(file);
      const before = onDisk ?? this.missingText(name, useTemplate);
      const next = change(before);
      if (next === before) return { changed: false, text: before };
      this.checkShrink(file, before, next, opts.allowShrink === true);
      if (onDisk) await this.backup(p, file, onDisk);
      if (await replaceIfUnchanged(file, onDisk, next, (f) => this.readForWrite(f))) {
        this.onWrite?.(p, name);
        return { changed: true, text: next };
      }
      this.log.info({ file: path.relative(this.root, file) }, 'file changed on disk during a write; applying the change again');
    }
    throw new StoreError(`${path.relative(this.root, file)} kept changing while being written; try again`);
  }

  /**
   * Applies memory operations to the parent channel's MEMORY.md as it is on disk now, and records
   * a tombstone for each forgotten entry, in one step of the channel's queue.
   */
  async applyMemoryOps(ref: ChannelRef, ops: MemoryOp[]): Promise<ApplyOpsResult> {
    const p = this.paths(this.parentRef(ref));
    const explicitForget = ops.some((o) => o.op === 'forget');
    return this.exclusive(p, async (tx) => {
      const tombstones = await this.loadTombstones(p);
      const now = this.clock();
      // Tombstones first: a crash between the two writes must not let a forgotten fact be
      // learned again. A tombstone for a forget that then did not happen only blocks re-learning.
      if (explicitForget) {
        // Strict like the write below: a file that will not be rewritten gets no tombstones either.
        const current = (await this.readForWrite(p.memory)) ?? '';
        for (const f of applyMemoryOps(current, ops, { now, tombstones, random: this.entryIds }).forgotten) {
          await this.ordered.append(this.tombstoneFile(p), makeTombstone(f.text, now, f.id, 'forgotten'));
        }
      }
      let result: ApplyOpsResult | undefined;
      await tx.update(
        'MEMORY.md',
        (current) => {
          result = applyMemoryOps(current, ops, { now, tombstones, random: this.entryIds });
          return result.text;
        },
        { allowShrink: explicitForget },
      );
      const res = result as ApplyOpsResult;
      for (const s of res.skipped) this.log.debug({ op: s.op.op, why: s.why }, 'memory op skipped');
      return res;
    });
  }

  tombstoneFile(p: ChannelPaths): string {
    return p.tombstones;
  }

  async loadTombstones(p: ChannelPaths): Promise<Tombstone[]> {
    // Silent on purpose: a missing file is no tombstones, and a torn last line from a crash is skipped.
    const text = await readTextIfExists(this.tombstoneFile(p)).catch(() => null);
    return tombstonesOf(parsedJsonLines(text ?? ''));
  }

  /**
   * Appends one JSON record to a channel's JSONL file (log.jsonl or a .minutes/ file), redacted.
   * No queue or lock: one O_APPEND write of one line never interleaves with another, and a crash
   * can only tear the last line, which readers skip.
   */
  async appendJsonl(file: string, record: unknown): Promise<void> {
    await this.ordered.append(file, record);
  }

  /** A `.minutes/` state file, checked against its schema (see readStateFile); null when missing. */
  readState<T>(file: string, schema: ZodType<T, T>, opts: { strict?: boolean } = {}): Promise<T | null> {
    return readStateFile(file, schema, { root: this.root, log: this.log, strict: opts.strict });
  }

  /**
   * For state only this process writes (the conversation, usage): atomic, but without the
   * channel's queue and lock, so the reply path never waits behind other channels' writers. The
   * value is serialised now (later changes to it are not written); writes of one file land in the
   * order they were asked for, so the file always ends with the latest.
   */
  writePrivateState(file: string, value: unknown): Promise<void> {
    return this.ordered.writePrivate(file, value);
  }

  /**
   * writePrivateState for counts (usage.json): one fsync instead of two. The rename is not
   * synced, so a power cut may bring back the previous totals (never a mix of two).
   */
  writeCounterState(file: string, value: unknown): Promise<void> {
    return this.ordered.writePrivate(file, value, { syncDir: false });
  }

  /** ChannelTx.writeState, under the lock the caller's section holds. */
  private async rewriteState(p: ChannelPaths, file: string, value: unknown): Promise<void> {
    const text = JSON.stringify(value, null, 2) + '\n';
    const prev = await readTextIfExists(file);
    if (prev === text) return;
    // One backup per burst (a condensation's steps): the state from before it stays in the slots.
    if (prev && !(await backedUpWithinBurst(p, file, this.clock()))) await this.backup(p, file, prev);
    await atomicWrite(file, text);
  }

  async writeState(ref: ChannelRef, file: string, value: unknown): Promise<void> {
    const p = this.paths(ref);
    await this.exclusive(p, () => atomicWrite(file, JSON.stringify(value, null, 2) + '\n'));
  }

  /**
   * Bumped after every task this store ran under a channel's lock (every write of memory and
   * state files but the bot's private ones): a cache of such a file that this process checked
   * at version N is still current while the version is N (other processes' writes aside).
   */
  get version(): number {
    return this.lockedTasks;
  }

  /**
   * Runs a task in the channel's queue and under its lock: for multi-file steps. The task gets the
   * writers that need the lock (ChannelTx), valid until it settles.
   */
  exclusive<T>(p: ChannelPaths, task: (tx: ChannelTx) => Promise<T>): Promise<T> {
    const counted = () => {
      const section = this.openSection(p);
      return task(section.tx).finally(() => {
        section.close();
        this.lockedTasks++;
      });
    };
    return this.queue.run(p.queueKey, () =>
      withChannelLock(p.channelStateDir, counted, {
        onStrayLock: (msg) => this.log.warn({ dir: path.relative(this.root, p.channelStateDir) || '.' }, msg),
        onLost: (err) =>
          this.log.warn(
            { dir: path.relative(this.root, p.channelStateDir) || '.', err },
            "lost the channel lock while writing (stalled too long, or another process took it over); the write re-reads each file before replacing it, but check the channel's files if another writer was running",
          ),
      }),
    );
  }

  /** Waits for every queued write to finish (shutdown). */
  async idle(): Promise<void> {
    await this.folders.idle();
    await this.queue.idle();
    await this.ordered.idle();
  }

  parentRef(ref: ChannelRef): ChannelRef {
    // A private thread is its own durable scope (see channelPaths).
    if (ref.kind === 'local' || !ref.threadId || ref.privateThread) return ref;
    return { kind: 'discord', guildId: ref.guildId, channelId: ref.channelId };
  }

  /** The writers of one exclusive section of the channel at `p` (channelTx.ts). */
  private openSection(p: ChannelPaths): ChannelSection {
    return channelSection(p, () => path.relative(this.root, p.channelDir) || '.', {
      update: (name, change, opts = {}) => this.rewrite(p, name, change, opts),
      writeState: (file, value) => this.rewriteState(p, file, value),
      updatePlaybook: (slug, change) => rewritePlaybookFile(p, slug, change, this.clock()),
    });
  }

  /** The file as it is on disk, strictly decoded; null when missing. */
  private async readForWrite(file: string): Promise<string | null> {
    try {
      return await readTextForWrite(file);
    } catch (err) {
      const rel = path.relative(this.root, file);
      if (err instanceof NotUtf8Error) {
        const refused = new NotUtf8FileError(rel);
        this.log.warn({ file: rel }, refused.message);
        throw refused;
      }
      throw new StoreError(`cannot read ${rel}: ${(err as Error).message}; check its permissions`);
    }
  }

  private missingText(name: MemoryFileName, useTemplate: boolean): string {
    return useTemplate && name in TEMPLATES ? TEMPLATES[name as TemplateFile] : '';
  }

  private checkShrink(file: string, before: string, next: string, allowed: boolean): void {
    if (allowed || before.length < SHRINK_GUARD_MIN_BYTES) return;
    if (next.length < before.length * SHRINK_GUARD) {
      throw new StoreError(
        `refused to rewrite ${path.relative(this.root, file)}: it would shrink from ${before.length} to ${next.length} characters; ` +
          'only an explicit forget may remove that much',
      );
    }
  }

  private backup(p: ChannelPaths, file: string, content: string): Promise<void> {
    return keepBackup(p, file, content, this.clock());
  }
}
