import { ChatInputCommandInteraction, Client, Events } from 'discord.js';
import cron, { type ScheduledTask } from 'node-cron';
import { noteServersSeen } from './firstSeen';
import { watchNames } from '../intake/names';
import { ensureFirstRun } from '../../condense/saga/firstRun';
import type { Secretary } from '../../condense/saga/secretary';
import type { ConfigFile } from '../../config/schema';
import type { Logger } from '../../log/logger';
import type { ChannelStore } from '../../memory/store';
import { ChannelRef } from '../../memory/paths';
import { OncePerKey } from '../../shared/queue';
import { InFlight } from '../intake/inFlight';
import type { SecretaryCommands } from '../commands/slash';
import { SecretaryJobs } from './secretaryJobs';
import { DiscordCondenser } from './discordCondenser';
import { SecretaryTriggers } from './secretaryTriggers';
import { SecretarySlashCommands } from './secretarySlash';
import type { BotActivity } from '../intake/activity';
import { serverFirstSeen } from './firstSeen';
import { DecisionInteractions } from './decisionInteractions';
import { DecisionCommands } from '../../condense/saga/decisionCommands';
import type { Asker } from '../../chat/commandRegistry';
import { RATIFY_DEFAULTS, type RatifySettings } from '../../condense/knowledge/ratify';

/** Every 30 minutes: archived threads discord.js did not report, and interrupted condensations. */
const DEFAULT_SWEEP_SCHEDULE = '*/30 * * * *';
/** The sweep reads archives only after the bot has had no answer or send in flight this long. */
const SWEEP_QUIET_MS = 1_500;
/** Once a day, at a quiet hour: the consistency audit. */
const DEFAULT_AUDIT_SCHEDULE = '17 4 * * *';

/**
 * The Secretary on Discord, wired: its triggers (reactions, archived or locked threads, resolved
 * forum tags) on the client's events, its slash commands, and its scheduled jobs (sweep, resume,
 * audit) on cron. Each job lives in its own module; this one owns their lifetime.
 */
export class DiscordSecretary implements SecretaryCommands {
  private tasks: ScheduledTask[] = [];
  /** Event handlers, sweeps and the audit in flight; `stop` closes it. */
  private readonly events: InFlight;
  /** Per channel, the first-run record this process started (see noteChannel). */
  private readonly firstRuns = new OncePerKey();
  private readonly condenser: DiscordCondenser;
  private readonly triggers: SecretaryTriggers;
  private readonly slash: SecretarySlashCommands;
  /** The buttons on pinned condensations, their forms, and the message commands. */
  private readonly interactions: DecisionInteractions;
  /** `/decisions at:` and `/catchup`. */
  private readonly decisions: DecisionCommands;
  private readonly jobs: SecretaryJobs;
  /** When the latest gateway session began (see SecretaryJobs.sweep); unset before the first. */
  private sessionSince: Date | undefined;
  /** Servers' first-seen records, and when (it never changes once written), or the read in flight. */
  private readonly serversSeen = new Map<string, Promise<Date | undefined>>();

  constructor(
    private readonly o: {
      client: Client;
      /** The transport-free condensation pipeline (src/condense) this runs on Discord. */
      secretary: Secretary;
      store: ChannelStore;
      logger: Logger;
      clock: () => Date;
      /** The allowlists, who may condense, and the forum tags that mean resolved. */
      discord: ConfigFile['discord'];
      /** `actions.staleAfterDays`: the daily audit flags open actions older than this. */
      staleActionDays: number;
      sweepSchedule?: string;
      auditSchedule?: string;
      /** The bot's answers and sends in flight: the sweep waits for a quiet moment. None: it does not wait. */
      activity?: BotActivity;
      /** `secretary.ratify`: what Confirm and Reopen on a pinned condensation need (default: one member, any role). */
      ratify?: RatifySettings;
    },
  ) {
    const { client, secretary, store, logger, clock, discord } = o;
    this.events = new InFlight((err, event) => logger.error({ err, event }, 'secretary event failed'));
    const firstRunNoted = (ref: ChannelRef) => this.firstRunNoted(ref);
    this.condenser = new DiscordCondenser({ client, secretary, store, logger, discord, firstRunNoted });
    this.triggers = new SecretaryTriggers({ client, logger, clock, discord, condenser: this.condenser });
    this.slash = new SecretarySlashCommands({ store, logger, condenser: this.condenser });
    const ratify = o.ratify ?? RATIFY_DEFAULTS;
    this.decisions = new DecisionCommands({ store, clock });
    this.interactions = new DecisionInteractions({ client, store, logger, clock, discord, ratify, condenser: this.condenser });
    this.jobs = new SecretaryJobs({
      client,
      store,
      clock,
      log: logger,
      config: discord,
      staleActionDays: o.staleActionDays,
      closing: () => this.events.closing,
      firstRunNoted,
      quiet: async (maxWaitMs) => o.activity?.quiet({ quietMs: SWEEP_QUIET_MS, maxWaitMs, stop: () => this.events.closing }),
      sessionSince: () => this.sessionSince,
      autoCondense: (thread, at) => this.condenser.autoCondense(thread, at),
      condenseThread: (thread, trigger) => this.condenser.condenseThread(thread, trigger),
    });
  }

  attach(): void {
    const { client, store, clock, logger: log } = this.o;
    client.on(Events.InteractionCreate, (ix) => {
      this.events.run('decisionInteraction', () => this.interactions.handle(ix));
    });
    client.on(Events.MessageReactionAdd, (r, u) => {
      this.events.run('reaction', () => this.triggers.onReaction(r, u));
    });
    client.on(Events.ThreadUpdate, (before, after) => {
      this.events.run('threadUpdate', async () => {
        try {
          await this.triggers.onThreadUpdate(before, after);
        } catch (err) {
          // The sweep gives the thread another chance.
          if (after.parentId) this.jobs.markUnreported(after.parentId);
          throw err;
        }
      });
    });
    // A new session (the first, or a re-identify that lost the events of its gap): see sweep.
    client.on(Events.ShardReady, () => {
      this.sessionSince = clock();
    });
    // discord.js adds a thread it had not cached without a threadUpdate: its archive goes unreported.
    client.on(Events.Raw, (packet: { t?: string; d?: { id?: string; parent_id?: string; thread_metadata?: { archived?: boolean } } }) => {
      const d = packet.t === 'THREAD_UPDATE' ? packet.d : undefined;
      if (d?.thread_metadata?.archived && d.id && d.parent_id && !client.channels.cache.has(d.id)) this.jobs.markUnreported(d.parent_id);
    });
    const seen = (ids: string[]) => noteServersSeen(client, store, ids, clock(), log);
    client.once(Events.ClientReady, () => {
      this.events.run('sweep', async () => {
        await seen([...client.guilds.cache.keys()]);
        await this.resumeInterrupted({ atStart: true });
        await this.sweep();
      });
      // Its own job: paced at a few posts a minute, it must not hold up the sweep.
      this.events.run('oldButtons', () => this.jobs.addOldButtons());
    });
    client.on(Events.GuildCreate, (g) => {
      this.events.run('guildCreate', () => seen([g.id]));
    });
    watchNames(client, store, log, (name, fn) => {
      this.events.run(name, fn);
    });
  }

  start(): void {
    const every = (schedule: string, event: string, job: () => Promise<unknown>) =>
      this.tasks.push(
        cron.schedule(
          schedule,
          () => {
            this.events.run(event, job);
          },
          { noOverlap: true },
        ),
      );
    every(this.o.sweepSchedule ?? DEFAULT_SWEEP_SCHEDULE, 'sweep', async () => {
      await this.resumeInterrupted();
      await this.sweep();
    });
    every(this.o.sweepSchedule ?? DEFAULT_SWEEP_SCHEDULE, 'oldButtons', () => this.jobs.addOldButtons());
    every(this.o.auditSchedule ?? DEFAULT_AUDIT_SCHEDULE, 'audit', () => this.audit());
  }

  async stop(): Promise<void> {
    // A condensation in flight finishes its steps (its files would otherwise be half updated
    // until the next start resumes it); sweeps stop between threads.
    const closed = this.events.close();
    for (const t of this.tasks) await t.destroy();
    this.tasks = [];
    await closed;
    await this.condenser.idle();
    await this.firstRuns.settled();
  }

  /**
   * Records when the Secretary first worked in a channel: auto triggers ignore older archives.
   * The bot does not wait for it; `firstRunNoted` lets a trigger that follows at once wait.
   */
  noteChannel(ref: ChannelRef): Promise<void> {
    const { store, clock } = this.o;
    // Keyed by the ledger the record goes to: a private thread keeps its own, apart from its channel's.
    const key = store.paths(ref).ledger;
    return this.firstRuns.run(key, async () => {
      // Automatic triggers count from the earlier of the server's first sighting and this record
      // (botThereSince): once the server has a sighting, a record made now could never be the
      // earlier one, so the locked ledger write on every first contact is skipped.
      const seen = ref.kind === 'discord' ? await this.serverSeen(ref.guildId) : undefined;
      if (seen && seen.getTime() <= clock().getTime()) return;
      await ensureFirstRun(store, ref, clock());
    });
  }

  /**
   * The server's first-seen record, read once per process once it exists. The read in flight is
   * shared: a burst's first messages in a hundred channels of one server all ask at once.
   */
  private serverSeen(guildId: string): Promise<Date | undefined> {
    const known = this.serversSeen.get(guildId);
    if (known) return known;
    // Silent on purpose: an unreadable record only means the ledger record is made, as before.
    const reading = serverFirstSeen(this.o.store, guildId).catch(() => undefined);
    this.serversSeen.set(guildId, reading);
    // A record not there yet is read again by the next first contact. (`reading` never rejects.)
    const forgetIfNone = (at: Date | undefined) => {
      if (!at && this.serversSeen.get(guildId) === reading) this.serversSeen.delete(guildId);
    };
    reading.then(forgetIfNone, () => forgetIfNone(undefined));
    return reading;
  }

  /** Waits for a first-run record this process started for the conversation's ledger, if any. */
  private async firstRunNoted(ref: ChannelRef): Promise<void> {
    // Silent on purpose: the first-run record logs its own failure where it is made.
    await this.firstRuns.get(this.o.store.paths(ref).ledger)?.catch(() => undefined);
  }

  // The slash commands (secretarySlash.ts) and scheduled jobs (secretaryJobs.ts), reachable from here.

  condense(ix: ChatInputCommandInteraction, ref: ChannelRef, topic: string | null): Promise<string> {
    return this.slash.condense(ix, ref, topic);
  }

  resolve(ix: ChatInputCommandInteraction, ref: ChannelRef): Promise<string> {
    return this.slash.resolve(ix, ref);
  }

  list(ref: ChannelRef): Promise<string> {
    return this.slash.list(ref);
  }

  decisionsAt(ref: ChannelRef, at: string | null): Promise<string> {
    return this.decisions.decisionsAt(ref, at);
  }

  catchup(ref: ChannelRef, asker: Asker): Promise<string> {
    return this.decisions.catchup(ref, asker);
  }

  sweep(): Promise<number> {
    return this.jobs.sweep();
  }

  resumeInterrupted(opts: { atStart?: boolean } = {}): Promise<number> {
    return this.jobs.resumeInterrupted(opts);
  }

  audit(): Promise<void> {
    return this.jobs.audit();
  }
}
