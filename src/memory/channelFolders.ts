import fs from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../log/logger';
import { OncePerKey } from '../shared/queue';
import { readTextIfExists, stageWrite } from './atomicWrite';
import { sweepLeftovers } from './backups';
import type { ChannelPaths } from './layout';
import { TEMPLATES, TemplateFile } from './templates';

/**
 * First-contact work run side by side in the background: few enough that libuv's four file-system
 * threads stay free for the turns, enough that their completions share wake-ups (one at a time
 * cost a burst of new channels ~15 more system calls per message under bench:load --strace).
 */
const BACKGROUND_LANES = 4;

/**
 * A conversation's folders and memory-file templates, made once per process per conversation: the
 * store's first contact with a channel. Owned by ChannelStore, which lends it its lock.
 */
export class ChannelFolders {
  /** Per conversation, the first check in flight or done: a burst shares one. */
  private readonly ensured = new OncePerKey();
  /** ensureSoon's work: BACKGROUND_LANES chains, each one conversation after another. */
  private readonly lanes: Promise<void>[] = Array.from({ length: BACKGROUND_LANES }, () => Promise.resolve());
  private queuedCount = 0;
  private readonly queued = new Set<string>();

  constructor(
    private readonly o: {
      root: string;
      log: Logger;
      /** The channel's queue and lock (ChannelStore.exclusive). */
      exclusive: (p: ChannelPaths, task: () => Promise<void>) => Promise<void>;
      fileFor: (p: ChannelPaths, name: TemplateFile) => string;
      /** ensureSoon waits for this before each conversation (StoreOptions.lull). */
      lull?: () => Promise<void>;
    },
  ) {}

  /**
   * `ensure` in the background. A burst of first messages in new channels would otherwise queue a
   * hundred conversations' folders, templates and locks at once in libuv's four file-system
   * threads, ahead of the turns' own reads and writes; and with a `lull`, after the turns waiting to
   * start (under `bench:load` at 2,000 new channels the part of it that fell inside the burst went
   * from ~2 % of the worker's time there to ~1 %; the rest already ran after it). A failure is logged.
   */
  ensureSoon(p: ChannelPaths): void {
    if (this.ensured.get(p.convDir) || this.queued.has(p.convDir)) return;
    this.queued.add(p.convDir);
    const lane = this.queuedCount++ % BACKGROUND_LANES;
    this.lanes[lane] = this.lanes[lane]
      .then(() => this.o.lull?.())
      .then(() => this.ensure(p))
      .then(
        () => undefined,
        (err) => this.o.log.error({ channel: path.relative(this.o.root, p.convDir), err }, 'could not create the channel folder; check the data root'),
      )
      .finally(() => this.queued.delete(p.convDir));
  }

  /** Creates the folders and any missing memory file from its template; checked once per process. */
  ensure(p: ChannelPaths): Promise<void> {
    // Once per conversation: the reply path should not stat four files a turn.
    return this.ensured.run(p.convDir, async () => {
      // The common case after a restart: everything is there, seen in one listing per folder,
      // without the channel's lock.
      if (!(await this.allThere(p))) await this.createMissing(p);
      await this.sweepLeftovers(p);
    });
  }

  /** Settles when the background work queued so far is done. */
  async idle(): Promise<void> {
    await Promise.all(this.lanes);
  }

  /** Whether the state folders and every templated file exist: one readdir per folder holding them. */
  private async allThere(p: ChannelPaths): Promise<boolean> {
    const wanted = new Map<string, string[]>();
    const want = (file: string) => {
      const dir = path.dirname(file);
      wanted.set(dir, [...(wanted.get(dir) ?? []), path.basename(file)]);
    };
    want(p.channelStateDir);
    want(p.stateDir);
    for (const name of Object.keys(TEMPLATES) as TemplateFile[]) want(this.o.fileFor(p, name));
    for (const [dir, names] of wanted) {
      // Silent on purpose: a folder that cannot be listed is created (or reported) by createMissing.
      const present = new Set(await fs.readdir(dir).catch(() => [] as string[]));
      if (!names.every((n) => present.has(n))) return false;
    }
    return true;
  }

  /** Temp files of writes a crash interrupted; nothing else removes them. */
  private async sweepLeftovers(p: ChannelPaths): Promise<void> {
    try {
      for (const f of await sweepLeftovers(p)) this.o.log.info({ file: path.relative(this.o.root, f) }, 'removed a temp file left by an interrupted write');
    } catch (err) {
      this.o.log.warn({ dir: path.relative(this.o.root, p.channelDir), err }, 'could not sweep leftover temp files');
    }
  }

  private createMissing(p: ChannelPaths): Promise<void> {
    return this.o.exclusive(p, async () => {
      await fs.mkdir(p.channelStateDir, { recursive: true });
      await fs.mkdir(p.stateDir, { recursive: true });
      for (const name of Object.keys(TEMPLATES) as TemplateFile[]) {
        const file = this.o.fileFor(p, name);
        if ((await readTextIfExists(file)) !== null) continue;
        // Placed only if still absent: a file a person created since the check is theirs. Not
        // fsynced: a template a power cut loses is made again at the next first contact, and eight
        // fsyncs per new channel were most of a burst's fsyncs.
        const staged = await stageWrite(file, TEMPLATES[name], { durable: false });
        if (await staged.commitIfAbsent()) this.o.log.debug({ file: path.relative(this.o.root, file) }, 'created from template');
      }
    });
  }
}
