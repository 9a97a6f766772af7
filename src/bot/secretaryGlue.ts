import {
  AnyThreadChannel,
  ChannelType,
  ChatInputCommandInteraction,
  Client,
  Events,
  GuildMember,
  Message,
  MessageReaction,
  PartialMessageReaction,
  PartialUser,
  PermissionFlagsBits,
  TextBasedChannel,
  User,
} from 'discord.js';
import cron, { type ScheduledTask } from 'node-cron';
import { autoGate } from '../condense/gate';
import { botThereSince, noteServersSeen } from './firstSeen';
import { watchNames } from './names';
import { ensureFirstRun, lastCondensedMessageId, ledgerFile, readLedger } from '../condense/ledger';
import { Secretary, CondenseResult, SecretaryOptions } from '../condense/secretary';
import { humanMessages, messagesSince } from '../condense/transcript';
import type { CondenseTarget, TranscriptMessage } from '../condense/types';
import { listCondensations } from '../condense/listing';
import type { Runtime } from '../app/runtime';
import { ChannelRef } from '../memory/paths';
import { KeyedQueue, OncePerKey } from '../shared/queue';
import { discordPoster, gatherAll, gatherFrom } from './gather';
import { refOfChannel } from './refs';
import { placeAllowed } from './gate';
import { InFlight } from './inFlight';

import { isAdmin, SecretaryCommands } from './slash';
import { SecretaryJobs } from './secretaryJobs';

export const CONDENSE_EMOJI = '📝';
export const RESOLVE_EMOJI = '✅';

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

  constructor(
    private readonly o: {
      client: Client;
      runtime: Runtime;
      sweepSchedule?: string;
      auditSchedule?: string;
      /** Tests only: called at each step of a condensation (crash-safety tests kill the process there). */
      fault?: SecretaryOptions['fault'];
    },
  ) {
    const rt = o.runtime;
    this.events = new InFlight((err, event) => this.log.error({ err, event }, 'secretary event failed'));
    this.secretary = new Secretary({
      deps: { model: rt.model, store: rt.store, logger: rt.logger.child({ component: 'secretary' }), clock: rt.clock },
      fault: o.fault,
    });
    this.jobs = new SecretaryJobs({
      client: o.client,
      runtime: rt,
      log: rt.logger,
      config: rt.settings.config.discord,
      closing: () => this.events.closing,
      firstRunNoted: (ref) => this.firstRunNoted(ref),
      autoCondense: (thread, at) => this.autoCondense(thread, at),
      condenseThread: (thread, trigger) => this.condenseThread(thread, trigger),
    });
  }

  private readonly jobs: SecretaryJobs;
  private get log() {
    return this.o.runtime.logger;
  }
  private get config() {
    return this.o.runtime.settings.config.discord;
  }

  attach(): void {
    const { client } = this.o;
    client.on(Events.MessageReactionAdd, (r, u) => {
      void this.events.run('reaction', () => this.onReaction(r, u));
    });
    client.on(Events.ThreadUpdate, (before, after) => {
      void this.events.run('threadUpdate', () => this.onThreadUpdate(before, after));
    });
    const seen = (ids: string[]) => noteServersSeen(this.o.client, this.o.runtime.store, ids, this.o.runtime.clock(), this.log);
    client.once(Events.ClientReady, () => {
      void this.events.run('sweep', async () => {
        await seen([...client.guilds.cache.keys()]);
        await this.resumeInterrupted({ atStart: true });
        await this.sweep();
      });
    });
    client.on(Events.GuildCreate, (g) => {
      void this.events.run('guildCreate', () => seen([g.id]));
    });
    watchNames(client, this.o.runtime.store, this.log, (name, fn) => {
      void this.events.run(name, fn);
    });
  }

  start(): void {
    this.tasks.push(
      cron.schedule(
        this.o.sweepSchedule ?? '*/30 * * * *',
        () => {
          void this.events.run('sweep', async () => {
            await this.resumeInterrupted();
            await this.sweep();
          });
        },
        { noOverlap: true },
      ),
    );
    this.tasks.push(
      cron.schedule(
        this.o.auditSchedule ?? '17 4 * * *',
        () => {
          void this.events.run('audit', () => this.audit());
        },
        { noOverlap: true },
      ),
    );
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
    setTimeout(() => {
      void ch.setArchived(true, 'resolved with /resolve').catch((err) => this.log.warn({ err }, 'could not archive the thread'));
    }, 1500).unref();
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

  // ---- scheduled jobs (secretaryJobs.ts) ------------------------------------------------------

  sweep(): Promise<number> {
    return this.jobs.sweep();
  }

  resumeInterrupted(opts: { atStart?: boolean } = {}): Promise<number> {
    return this.jobs.resumeInterrupted(opts);
  }

  audit(): Promise<void> {
    return this.jobs.audit();
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

  private async condenseThread(
    thread: AnyThreadChannel,
    trigger: 'explicit' | 'auto',
    topic?: string,
    gathered?: TranscriptMessage[],
  ): Promise<CondenseResult> {
    const ref = this.refOf(thread);
    const messages = gathered ?? (await gatherAll(thread));
    const parent = thread.parent;
    // A private thread's and a forum post's condensation stays inside it; otherwise it goes to the parent.
    const inside = thread.type === ChannelType.PrivateThread || !parent || parent.type === ChannelType.GuildForum;
    const postIn = (inside ? thread : parent) as unknown as Sendable;
    if (thread.archived && inside)
      await thread
        .setArchived(false, 'posting its condensation')
        .catch((err) => this.log.warn({ err, thread: thread.id }, 'could not unarchive the thread to post its condensation'));
    const target: CondenseTarget = {
      ref,
      guildId: thread.guildId,
      channelName: parent?.name ?? thread.name,
      threadName: thread.name,
      threadId: thread.id,
      link: (id) => `https://discord.com/channels/${thread.guildId}/${thread.id}/${id}`,
      trigger,
      topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.secretary.condense({ target, messages, poster: discordPoster(postIn, this.o.client.user!.id, this.log) }),
    );
  }

  private channelKey(ref: ChannelRef): string {
    return this.o.runtime.store.paths(this.o.runtime.store.parentRef(ref)).channelDir;
  }

  private async condenseMessages(
    ch: Sendable,
    ref: ChannelRef,
    messages: TranscriptMessage[],
    trigger: 'explicit' | 'auto',
    topic?: string,
  ): Promise<CondenseResult> {
    const guildId = ref.kind === 'discord' ? ref.guildId : '';
    const target: CondenseTarget = {
      ref,
      guildId,
      channelName: 'name' in ch ? String((ch as { name: string }).name) : ch.id,
      link: (id) => `https://discord.com/channels/${guildId}/${ch.id}/${id}`,
      trigger,
      topicHint: topic,
    };
    return this.perChannel.run(this.channelKey(ref), () =>
      this.secretary.condense({ target, messages, poster: discordPoster(ch, this.o.client.user!.id, this.log) }),
    );
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
      case 'done':
        return [r.post?.url ? `Condensed: ${r.post.url}` : `Condensed and filed as ${r.file}.`, ...r.notices].join('\n');
      case 'already':
        return 'This discussion is already condensed; nothing new since.';
      case 'in-progress':
        return 'A condensation of this discussion is already running.';
      case 'empty':
        return 'There is nothing to condense yet.';
      case 'failed':
        return r.userMessage;
    }
  }

  /** After a reaction: say only what a person needs (notices, failures); the post speaks for itself. */
  private async tell(ch: Sendable, r: CondenseResult): Promise<void> {
    const lines = r.status === 'done' ? r.notices : r.status === 'failed' ? [r.userMessage] : [];
    for (const text of lines)
      await ch
        .send({ content: text, allowedMentions: { parse: [] } })
        .catch((err) => this.log.warn({ err }, 'could not tell the channel about the condensation'));
  }
}
