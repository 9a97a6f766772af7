import fs from 'node:fs/promises';
import {
  AnyThreadChannel, ChannelType, ChatInputCommandInteraction, Client, Events, GuildMember, Message, MessageReaction,
  PartialMessageReaction, PartialUser, PermissionFlagsBits, TextBasedChannel, User,
} from 'discord.js';
import cron, { type ScheduledTask } from 'node-cron';
import { autoGate } from '../condense/gate';
import { botThereSince, noteServersSeen } from './firstSeen';
import { watchNames } from './names';
import { ensureFirstRun, lastCondensedMessageId, ledgerFile, listRetryable, readLedger, releaseLeases, skipIfMalformed } from '../condense/ledger';
import { Secretary, CondenseResult, SecretaryOptions } from '../condense/secretary';
import { humanMessages, messagesSince } from '../condense/transcript';
import type { CondenseTarget, TranscriptMessage } from '../condense/types';
import { auditChannel, formatAudit, listChannelRefs } from '../condense/audit';
import { listCondensations } from '../condense/listing';
import type { Runtime } from '../app/runtime';
import { ChannelRef, refLabel } from '../memory/paths';
import { KeyedQueue, OncePerKey } from '../shared/queue';
import { findMissingCondensations, queueFile, takeQueuedThreads } from './auditThreads';
import { discordPoster, gatherAll, gatherFrom } from './gather';
import { refOfChannel } from './refs';
import { placeAllowed } from './gate';
import { InFlight } from './inFlight';
import { ownsGuild, ownsRef, shardsOf } from './ownership';
import { isAdmin, SecretaryCommands } from './slash';

export const CONDENSE_EMOJI = '📝';
export const RESOLVE_EMOJI = '✅';
/** A sweep condenses at most this many threads per run, so a backlog never floods a server. */
export const SWEEP_MAX_PER_RUN = 3;
/** How far back a sweep looks at archived threads, per channel. */
const SWEEP_LOOKBACK = 25;

type Sendable = TextBasedChannel & { send: (o: object) => Promise<Message>; id: string };

/**
 * The Secretary on Discord: reactions, slash commands, thread archive/lock, forum "resolved" tags,
 * a sweep of recently archived threads (discord.js only reports updates for cached threads) and
 * the audit on a schedule. The pipeline itself is transport-free (src/condense).
 */
export class DiscordSecretary implements SecretaryCommands {
  private readonly secretary: Secretary;
  /**
   * One condensation at a time per channel: each must see the decisions the previous one wrote
   * (to name what it supersedes), and the pins are shared.
   */
  private readonly perChannel = new KeyedQueue();
  private tasks: ScheduledTask[] = [];
  /** Event handlers, sweeps and the audit in flight; `stop` closes it. */
  private readonly events: InFlight;
  /** Per channel, the first-run record this process started (see noteChannel). */
  private readonly firstRuns = new OncePerKey();

  constructor(private readonly o: {
    client: Client; runtime: Runtime; sweepSchedule?: string; auditSchedule?: string;
    /** Tests only: called at each step of a condensation (crash-safety tests kill the process there). */
    fault?: SecretaryOptions['fault'];
  }) {
    const rt = o.runtime;
    this.events = new InFlight((err, event) => this.log.error({ err, event }, 'secretary event failed'));
    this.secretary = new Secretary({
      deps: { model: rt.model, store: rt.store, logger: rt.logger.child({ component: 'secretary' }), clock: rt.clock },
      fault: o.fault,
    });
  }

  private get log() { return this.o.runtime.logger; }
  private get config() { return this.o.runtime.settings.config.discord; }

  attach(): void {
    const { client } = this.o;
    client.on(Events.MessageReactionAdd, (r, u) => { void this.events.run('reaction', () => this.onReaction(r, u)); });
    client.on(Events.ThreadUpdate, (before, after) => { void this.events.run('threadUpdate', () => this.onThreadUpdate(before, after)); });
    const seen = (ids: string[]) => noteServersSeen(this.o.client, this.o.runtime.store, ids, this.o.runtime.clock(), this.log);
    client.once(Events.ClientReady, () => { void this.events.run('sweep', async () => { await seen([...client.guilds.cache.keys()]); await this.resumeInterrupted({ atStart: true }); await this.sweep(); }); });
    client.on(Events.GuildCreate, (g) => { void this.events.run('guildCreate', () => seen([g.id])); });
    watchNames(client, this.o.runtime.store, this.log, (name, fn) => { void this.events.run(name, fn); });
  }

  start(): void {
    this.tasks.push(cron.schedule(this.o.sweepSchedule ?? '*/30 * * * *', () => {
      void this.events.run('sweep', async () => { await this.resumeInterrupted(); await this.sweep(); });
    }, { noOverlap: true }));
    this.tasks.push(cron.schedule(this.o.auditSchedule ?? '17 4 * * *', () => { void this.events.run('audit', () => this.audit()); }, { noOverlap: true }));
  }

  async stop(): Promise<void> {
    // A condensation in flight finishes its steps (its files would otherwise be half updated
    // until the next start resumes it); sweeps stop between threads.
    const closed = this.events.close();
    for (const t of this.tasks) await t.destroy();
    this.tasks = [];
    await closed;
    await this.perChannel.idle();
    await this.firstRuns.settled();
  }

  /**
   * Records when the Secretary first worked in a channel: auto triggers ignore older archives.
   * The bot does not wait for it; `firstRunNoted` lets a trigger that follows at once wait.
   */
  noteChannel(ref: ChannelRef): Promise<void> {
    // Keyed by the ledger the record goes to: a private thread keeps its own, apart from its channel's.
    const key = ledgerFile(this.o.runtime.store.paths(ref), ref);
    return this.firstRuns.run(key, () => ensureFirstRun(this.o.runtime.store, ref, this.o.runtime.clock()).then(() => undefined));
  }

  /** Waits for a first-run record this process started for the conversation's ledger, if any. */
  private async firstRunNoted(ref: ChannelRef): Promise<void> {
    // Silent on purpose: the first-run record logs its own failure where it is made.
    await this.firstRuns.get(ledgerFile(this.o.runtime.store.paths(ref), ref))?.catch(() => undefined);
  }

  // ---- slash commands -----------------------------------------------------------------------

  async condense(ix: ChatInputCommandInteraction, ref: ChannelRef, topic: string | null): Promise<string> {
    const ch = ix.channel;
    if (!ch) return 'I cannot see this channel.';
    if (ch.isThread()) return this.describe(await this.condenseThread(ch, 'explicit', topic ?? undefined));
    const recent = await gatherAll(ch).then((all) => all.slice(-100));
    if (!recent.length) return 'There is no discussion here to condense yet.';
    return this.describe(await this.condenseMessages(ch as Sendable, ref, recent, 'explicit', topic ?? undefined));
  }

  async resolve(ix: ChatInputCommandInteraction, _ref: ChannelRef): Promise<string> {
    const ch = ix.channel;
    if (!ch?.isThread()) return '/resolve works in a thread: it condenses the thread, then archives it.';
    const text = this.describe(await this.condenseThread(ch, 'explicit'));
    // Archive after the answer is on its way: an archived thread takes no further replies.
    setTimeout(() => { void ch.setArchived(true, 'resolved with /resolve').catch((err) => this.log.warn({ err }, 'could not archive the thread')); }, 1500).unref();
    return `${text}\nArchiving this thread.`;
  }

  list(ref: ChannelRef): Promise<string> {
    return listCondensations(this.o.runtime.store.paths(ref).condensations);
  }

  // ---- events ---------------------------------------------------------------------------------

  private async onReaction(r: MessageReaction | PartialMessageReaction, u: User | PartialUser): Promise<void> {
    const name = r.emoji.name;
    if (name !== CONDENSE_EMOJI && name !== RESOLVE_EMOJI) return;
    if (u.bot || u.id === this.o.client.user?.id) return;
    const reaction = r.partial ? await r.fetch() : r;
    const message = reaction.message.partial ? await reaction.message.fetch() : reaction.message;
    const ch = message.channel;
    if (!message.guild || ch.isDMBased()) return;
    const parentId = ch.isThread() ? (ch.parentId ?? ch.id) : ch.id;
    if (!placeAllowed(message.guild.id, parentId, ch.isThread() ? ch.id : null, this.config)) return;
    // Silent on purpose: gone, or not visible to the bot: treated as absent.
    const member = await message.guild.members.fetch(u.id).catch(() => null);
    if (!member) return;
    if (name === RESOLVE_EMOJI) {
      if (!ch.isThread()) return;
      const owner = ch.ownerId === u.id;
      const admin = isAdmin([...member.roles.cache.keys()], member.permissions.has(PermissionFlagsBits.ManageMessages), this.config);
      if (!owner && !admin) return;
      const result = await this.condenseThread(ch, 'explicit');
      await this.tell(ch as Sendable, result);
      await ch.setArchived(true, 'resolved with ✅').catch((err) => this.log.warn({ err }, 'could not archive the thread'));
      return;
    }
    if (!this.mayCondense(member, ch)) return;
    const result = ch.isThread()
      ? await this.condenseThread(ch, 'explicit')
      : await this.condenseMessages(ch as Sendable, this.refOf(ch), await gatherFrom(ch, message), 'explicit');
    await this.tell(ch as Sendable, result);
  }

  private async onThreadUpdate(before: AnyThreadChannel, after: AnyThreadChannel): Promise<void> {
    const archivedNow = (!before.archived && after.archived) || (!before.locked && after.locked);
    const tagged = this.newlyResolvedTag(before, after);
    if (!archivedNow && !tagged) return;
    await this.autoCondense(after, this.o.runtime.clock());
  }

  private newlyResolvedTag(before: AnyThreadChannel, after: AnyThreadChannel): boolean {
    const forum = after.parent;
    if (!forum || forum.type !== ChannelType.GuildForum) return false;
    const names = new Set(this.config.resolvedTags.map((t) => t.toLowerCase()));
    const resolvedIds = forum.availableTags.filter((t) => names.has(t.name.toLowerCase())).map((t) => t.id);
    const had = before.appliedTags.some((t) => resolvedIds.includes(t));
    return !had && after.appliedTags.some((t) => resolvedIds.includes(t));
  }

  /** Threads archived recently, in channels where the bot works; at most a few per run. */
  async sweep(): Promise<number> {
    let done = 0;
    const shards = shardsOf(this.o.client);
    for (const guild of this.o.client.guilds.cache.values()) {
      if (!ownsGuild(guild.id, shards.ids, shards.count)) continue;
      for (const ch of guild.channels.cache.values()) {
        if (done >= SWEEP_MAX_PER_RUN || this.events.closing) return done;
        if (ch.type !== ChannelType.GuildText && ch.type !== ChannelType.GuildForum) continue;
        const ref: ChannelRef = { kind: 'discord', guildId: guild.id, channelId: ch.id };
        await this.firstRunNoted(ref);
        const ledger = await skipIfMalformed(() => readLedger(this.o.runtime.store, ref), null);
        const since = ledger && await botThereSince(this.o.runtime.store, guild.id, ledger.firstRunAt);
        if (!since) continue;
        // Private archived threads need Manage Threads to list; without it they are skipped.
        const lists = await Promise.all(['public', 'private'].map((type) =>
          // Silent on purpose: gone, or not visible to the bot: treated as absent.
          ch.threads.fetchArchived({ type: type as 'public' | 'private', limit: SWEEP_LOOKBACK }).catch(() => null)));
        for (const thread of lists.flatMap((l) => [...(l?.threads.values() ?? [])])) {
          if (done >= SWEEP_MAX_PER_RUN || this.events.closing) return done;
          const when = thread.archivedAt ?? undefined;
          if (when && when.getTime() < since.getTime()) continue;
          const r = await this.autoCondense(thread, when);
          if (r && r.status === 'done') done++;
        }
      }
    }
    return done;
  }

  /**
   * Condensations a crash interrupted, or that failed and may be retried: re-gather their thread
   * and run them again. The ledger finds the earlier post by its marker, so nothing posts twice.
   * Leases are released only at start (`atStart`): then no condensation of this process is running,
   * so a 'running' entry was left by a crash. On the periodic sweep a lease may belong to a
   * condensation this process is running right now; it is left to run out on its own.
   */
  async resumeInterrupted(opts: { atStart?: boolean } = {}): Promise<number> {
    const store = this.o.runtime.store;
    let n = 0;
    for (const ref of await this.ownedRefs()) {
      // Shutting down: what is left is picked up on the next start.
      if (this.events.closing) return n;
      if (ref.kind !== 'discord') continue;
      if (opts.atStart && (await skipIfMalformed(() => releaseLeases(store, ref), null)) === null) continue;
      n += await this.condenseQueued(ref);
      for (const f of await skipIfMalformed(() => listRetryable(store, ref, this.o.runtime.clock()), [])) {
        const threadId = f.conversation.threadId;
        if (this.events.closing) return n;
        if (!threadId) continue;
        // Silent on purpose: gone, or not visible to the bot: treated as absent.
        const thread = await this.o.client.channels.fetch(threadId).catch(() => null);
        if (!thread?.isThread()) continue;
        const r = await this.condenseThread(thread, f.trigger);
        this.log.info({ thread: threadId, status: r.status }, 'resumed an interrupted or failed condensation');
        n++;
      }
    }
    return n;
  }

  /** Threads `minutes audit --fix` queued: condensed now (explicitly: a person asked via the audit). */
  private async condenseQueued(ref: ChannelRef): Promise<number> {
    const store = this.o.runtime.store;
    const file = queueFile(store, ref);
    const { ids, taken } = await takeQueuedThreads(store, ref);
    let n = 0;
    for (const id of ids) {
      if (this.events.closing) {
        // Shutting down: put the rest back for the next start.
        await store.appendJsonl(ref, file, { threadId: id, at: this.o.runtime.clock().toISOString() });
        continue;
      }
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const thread = await this.o.client.channels.fetch(id).catch(() => null);
      if (!thread?.isThread()) continue;
      try {
        const r = await this.condenseThread(thread, 'auto');
        this.log.info({ thread: id, status: r.status }, 'condensed a thread queued by the audit');
        n++;
      } catch (err) {
        // Back in the queue for the next sweep rather than dropped.
        this.log.warn({ thread: id, err }, 'a queued condensation failed; it stays queued');
        await store.appendJsonl(ref, file, { threadId: id, at: this.o.runtime.clock().toISOString() });
      }
    }
    await fs.rm(taken, { force: true });
    return n;
  }

  /** The scheduled audit: files only (the sweep covers threads missing a condensation). */
  async audit(): Promise<void> {
    for (const ref of await this.ownedRefs()) {
      const rt = this.o.runtime;
      const a = await auditChannel({ store: rt.store, ref, fix: true, now: rt.clock(), staleActionDays: rt.settings.config.actions.staleAfterDays });
      for (const line of formatAudit(a)) this.log.warn({ channel: refLabel(ref) }, `audit: ${line}`);
    }
    if (!this.o.client.isReady()) return;
    for (const m of await findMissingCondensations(this.o.client, this.o.runtime.store, this.config)) {
      this.log.warn({ thread: m.threadId }, `audit: thread "${m.name}" was resolved with enough discussion but has no condensation; queued`);
      const ref: ChannelRef = { kind: 'discord', guildId: m.guildId, channelId: m.channelId };
      await this.o.runtime.store.appendJsonl(ref, queueFile(this.o.runtime.store, ref), { threadId: m.threadId, at: this.o.runtime.clock().toISOString() });
    }
    await this.resumeInterrupted();
  }

  /**
   * The channel folders this process may work on. All shards share one data root, and releasing
   * another shard's leases would let two processes condense the same thread at once (double posts,
   * torn ledgers); its audit queue is its own to consume too.
   */
  private async ownedRefs(): Promise<ChannelRef[]> {
    const shards = shardsOf(this.o.client);
    return (await listChannelRefs(this.o.runtime.store.root)).filter((ref) => ownsRef(ref, shards));
  }

  // ---- the pipeline on Discord ----------------------------------------------------------------

  private async autoCondense(thread: AnyThreadChannel, archivedAt: Date | undefined): Promise<CondenseResult | null> {
    // The allowlists decide where the Secretary works, automatic triggers included.
    if (!placeAllowed(thread.guildId, thread.parentId ?? thread.id, thread.id, this.config)) return null;
    const ref = this.refOf(thread);
    await this.firstRunNoted(ref);
    const ledger = await readLedger(this.o.runtime.store, ref);
    const messages = await gatherAll(thread);
    const since = messagesSince(humanMessages(messages), lastCondensedMessageId(ledger, thread.id));
    const there = ref.kind === 'discord' ? await botThereSince(this.o.runtime.store, ref.guildId, ledger.firstRunAt) : undefined;
    const verdict = autoGate({ humanSinceLast: since, archivedAt, botFirstRanAt: there });
    if (!verdict.ok) {
      this.log.debug({ thread: thread.id, reason: verdict.reason }, 'automatic condensation skipped');
      return null;
    }
    const result = await this.condenseThread(thread, 'auto', undefined, messages);
    if (result.status === 'failed') this.log.warn({ thread: thread.id, err: result.error }, 'automatic condensation failed; recorded for a retry');
    return result;
  }

  private async condenseThread(thread: AnyThreadChannel, trigger: 'explicit' | 'auto', topic?: string, gathered?: TranscriptMessage[]): Promise<CondenseResult> {
    const ref = this.refOf(thread);
    const messages = gathered ?? await gatherAll(thread);
    const parent = thread.parent;
    // A private thread's and a forum post's condensation stays inside it; otherwise it goes to the parent.
    const inside = thread.type === ChannelType.PrivateThread || !parent || parent.type === ChannelType.GuildForum;
    const postIn = (inside ? thread : parent) as unknown as Sendable;
    if (thread.archived && inside) await thread.setArchived(false, 'posting its condensation').catch((err) => this.log.warn({ err, thread: thread.id }, 'could not unarchive the thread to post its condensation'));
    const target: CondenseTarget = {
      ref, guildId: thread.guildId, channelName: parent?.name ?? thread.name, threadName: thread.name, threadId: thread.id,
      link: (id) => `https://discord.com/channels/${thread.guildId}/${thread.id}/${id}`, trigger, topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.secretary.condense({ target, messages, poster: discordPoster(postIn, this.o.client.user!.id, this.log) }));
  }

  private channelKey(ref: ChannelRef): string {
    return this.o.runtime.store.paths(this.o.runtime.store.parentRef(ref)).channelDir;
  }

  private async condenseMessages(ch: Sendable, ref: ChannelRef, messages: TranscriptMessage[], trigger: 'explicit' | 'auto', topic?: string): Promise<CondenseResult> {
    const guildId = ref.kind === 'discord' ? ref.guildId : '';
    const target: CondenseTarget = {
      ref, guildId, channelName: 'name' in ch ? String((ch as { name: string }).name) : ch.id,
      link: (id) => `https://discord.com/channels/${guildId}/${ch.id}/${id}`, trigger, topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.secretary.condense({ target, messages, poster: discordPoster(ch, this.o.client.user!.id, this.log) }));
  }

  private refOf(ch: TextBasedChannel): ChannelRef {
    return refOfChannel((ch as { guildId?: string }).guildId ?? null, ch)!;
  }

  /** Default: anyone who can post there; the config can name roles or users instead. */
  private mayCondense(member: GuildMember, ch: TextBasedChannel): boolean {
    const d = this.config;
    if (d.condenseRoles.length || d.condenseUsers.length) {
      return d.condenseUsers.includes(member.id) || member.roles.cache.some((r) => d.condenseRoles.includes(r.id));
    }
    if (ch.isDMBased()) return false;
    const perms = ch.permissionsFor(member);
    return Boolean(perms?.has(ch.isThread() ? PermissionFlagsBits.SendMessagesInThreads : PermissionFlagsBits.SendMessages));
  }

  private describe(r: CondenseResult): string {
    switch (r.status) {
      case 'done': return [r.post?.url ? `Condensed: ${r.post.url}` : `Condensed and filed as ${r.file}.`, ...r.notices].join('\n');
      case 'already': return 'This discussion is already condensed; nothing new since.';
      case 'in-progress': return 'A condensation of this discussion is already running.';
      case 'empty': return 'There is nothing to condense yet.';
      case 'failed': return r.userMessage;
    }
  }

  /** After a reaction: say only what a person needs (notices, failures); the post speaks for itself. */
  private async tell(ch: Sendable, r: CondenseResult): Promise<void> {
    const lines = r.status === 'done' ? r.notices : r.status === 'failed' ? [r.userMessage] : [];
    for (const text of lines) await ch.send({ content: text, allowedMentions: { parse: [] } }).catch((err) => this.log.warn({ err }, 'could not tell the channel about the condensation'));
  }


}
