import { ChatInputCommandInteraction, Client, Events } from 'discord.js';
import cron, { type ScheduledTask } from 'node-cron';
import { noteServersSeen } from './firstSeen';
import { watchNames } from './names';
import { ensureFirstRun } from '../condense/firstRun';
import { Secretary } from '../condense/secretary';
import type { Runtime } from '../app/runtime';
import { ChannelRef } from '../memory/paths';
import { OncePerKey } from '../shared/queue';
import { InFlight } from './inFlight';
import type { SecretaryCommands } from './slash';
import { SecretaryJobs } from './secretaryJobs';
import { DiscordCondenser } from './discordCondenser';
import { SecretaryTriggers } from './secretaryTriggers';
import { SecretarySlashCommands } from './secretarySlash';

/** Every 30 minutes: archived threads discord.js did not report, and interrupted condensations. */
const DEFAULT_SWEEP_SCHEDULE = '*/30 * * * *';
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
  private readonly jobs: SecretaryJobs;

  constructor(
    private readonly o: {
      client: Client;
      runtime: Runtime;
      sweepSchedule?: string;
      auditSchedule?: string;
    },
  ) {
    const { client, runtime } = o;
    this.events = new InFlight((err, event) => runtime.logger.error({ err, event }, 'secretary event failed'));
    const firstRunNoted = (ref: ChannelRef) => this.firstRunNoted(ref);
    const secretary = new Secretary({
      deps: { model: runtime.model, store: runtime.store, logger: runtime.logger.child({ component: 'secretary' }), clock: runtime.clock },
      fault: runtime.probes.fault,
    });
    this.condenser = new DiscordCondenser({
      client,
      secretary,
      store: runtime.store,
      logger: runtime.logger,
      discord: runtime.settings.config.discord,
      firstRunNoted,
    });
    this.triggers = new SecretaryTriggers({
      client,
      logger: runtime.logger,
      clock: runtime.clock,
      discord: runtime.settings.config.discord,
      condenser: this.condenser,
    });
    this.slash = new SecretarySlashCommands({ store: runtime.store, logger: runtime.logger, condenser: this.condenser });
    this.jobs = new SecretaryJobs({
      client,
      store: runtime.store,
      clock: runtime.clock,
      log: runtime.logger,
      config: runtime.settings.config.discord,
      staleActionDays: runtime.settings.config.actions.staleAfterDays,
      closing: () => this.events.closing,
      firstRunNoted,
      autoCondense: (thread, at) => this.condenser.autoCondense(thread, at),
      condenseThread: (thread, trigger) => this.condenser.condenseThread(thread, trigger),
    });
  }

  attach(): void {
    const { client, runtime } = this.o;
    const log = runtime.logger;
    client.on(Events.MessageReactionAdd, (r, u) => {
      void this.events.run('reaction', () => this.triggers.onReaction(r, u));
    });
    client.on(Events.ThreadUpdate, (before, after) => {
      void this.events.run('threadUpdate', () => this.triggers.onThreadUpdate(before, after));
    });
    const seen = (ids: string[]) => noteServersSeen(client, runtime.store, ids, runtime.clock(), log);
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
    watchNames(client, runtime.store, log, (name, fn) => {
      void this.events.run(name, fn);
    });
  }

  start(): void {
    const every = (schedule: string, event: string, job: () => Promise<unknown>) =>
      this.tasks.push(
        cron.schedule(
          schedule,
          () => {
            void this.events.run(event, job);
          },
          { noOverlap: true },
        ),
      );
    every(this.o.sweepSchedule ?? DEFAULT_SWEEP_SCHEDULE, 'sweep', async () => {
      await this.resumeInterrupted();
      await this.sweep();
    });
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
    const { store } = this.o.runtime;
    // Keyed by the ledger the record goes to: a private thread keeps its own, apart from its channel's.
    const key = store.paths(ref).ledger;
    return this.firstRuns.run(key, () => ensureFirstRun(store, ref, this.o.runtime.clock()).then(() => undefined));
  }

  /** Waits for a first-run record this process started for the conversation's ledger, if any. */
  private async firstRunNoted(ref: ChannelRef): Promise<void> {
    // Silent on purpose: the first-run record logs its own failure where it is made.
    await this.firstRuns.get(this.o.runtime.store.paths(ref).ledger)?.catch(() => undefined);
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
