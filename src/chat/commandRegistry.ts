import type { ChannelRef } from '../memory/paths';
import type { ChannelCommandRunner } from './commands';
import type { PackRequest } from './packCommands';

/**
 * The shape of a command, shared by Discord's slash commands (bot/commands/slash.ts maps it onto
 * discord.js's builders) and the console (cli/console.ts parses a line into it): each command is one
 * object holding its definition, who may run it, whether only the asker sees the answer, how a
 * console line reads, and its handler. The commands themselves are in commandList.ts.
 */

/**
 * Who may run a command or a subcommand: anyone the bot answers, or an admin (on Discord the
 * configured admin roles, else Manage Messages; at the console, its user). A whole command that is
 * an admin's is registered on Discord with default_member_permissions, so members do not see it;
 * an admin's subcommand is checked here, since Discord cannot hide part of a command.
 */
export type CommandAccess = 'member' | 'admin';

export interface OptionSpec {
  name: string;
  description: string;
  type: 'string' | 'boolean' | 'integer';
  required?: boolean;
  min?: number;
  max?: number;
}

export interface SubcommandSpec {
  name: string;
  description: string;
  access: CommandAccess;
  /** The answer (and a refusal) is shown to the asker only. */
  ephemeral: boolean;
  options: OptionSpec[];
}

/** Option values by name, as Discord typed them or a console line gave them; absent when not given. */
export type OptionValues = Record<string, string | number | boolean | undefined>;

/** Who asked, as the transport knows them. */
export interface Asker {
  /** For provenance of channel commands (a forget's reason, a history block). */
  actor: string;
  /** As shown in the place (a server's display name): who closed an item, made a package. */
  name: string;
  /** The account's id, when the transport has accounts: who may close their own item or forget their own line. */
  userId?: string;
  admin: boolean;
}

export interface Invocation {
  ref: ChannelRef;
  /** The subcommand, for a command that has them. */
  sub: string | null;
  options: OptionValues;
  asker: Asker;
}

/**
 * What the handlers call, supplied by each transport (bound to the Discord interaction where the
 * work needs it: gathering a thread, opening one). A service left out answers that it is not
 * available, as a bot built without it would.
 */
export interface CommandServices {
  /** /recall, /memory, /context, /new, /status: run where the engine is (the turn worker on Discord). */
  channel: ChannelCommandRunner;
  secretary?: {
    condense(ref: ChannelRef, topic: string | null): Promise<string>;
    resolve(ref: ChannelRef): Promise<string>;
    list(ref: ChannelRef): Promise<string>;
    /** `/decisions at:<YYYY-MM-DD>`: the decisions in force at the end of that UTC day (none: today). */
    decisionsAt?(ref: ChannelRef, at: string | null): Promise<string>;
    /** `/catchup`: what changed in the channel since the asker last spoke in it. */
    catchup?(ref: ChannelRef, asker: Asker): Promise<string>;
  };
  threads?: { open(topic: string | null): Promise<string> };
  actions?: { command(ref: ChannelRef, doneId: string | null, asker: Asker): Promise<string> };
  knowledge?: {
    questions(ref: ChannelRef, answerId: string | null, text: string | null, asker: Asker): Promise<string>;
    playbooks(ref: ChannelRef): Promise<string>;
  };
  packs?: { command(ref: ChannelRef, req: PackRequest, asker: Asker): Promise<string> };
}

/** A console line's words after the command: the invocation's parts, or a text to print instead (a usage line). */
export type ConsoleParsed = { sub?: string; options: OptionValues } | { answer: string };

export interface CommandSpec {
  name: string;
  /** Discord's (at most 100 characters). */
  description: string;
  /** The whole command's: 'admin' hides it from members on Discord. */
  access: CommandAccess;
  /** For a command without subcommands: only the asker sees the answer. */
  ephemeral: boolean;
  options?: OptionSpec[];
  subcommands?: SubcommandSpec[];
  console: {
    /** /help's lines: the syntax and what it does. */
    usage: [string, string][];
    /** The words after the command (trimmed); without it the command takes none. */
    parse?(args: string): ConsoleParsed;
  };
  run(inv: Invocation, s: CommandServices): Promise<string>;
}

/** Pure: whether `admin` may run the command (and subcommand) by its access. */
export function mayRun(spec: CommandSpec, sub: string | null, admin: boolean): boolean {
  if (spec.access === 'admin') return admin;
  const s = spec.subcommands?.find((x) => x.name === sub);
  return s?.access !== 'admin' || admin;
}

/** Pure: only the asker sees the answer; a refusal concerns the asker alone, so it is theirs too. */
export function answerIsPrivate(spec: CommandSpec, sub: string | null, refused: boolean): boolean {
  if (refused) return true;
  const s = spec.subcommands?.find((x) => x.name === sub);
  return s ? s.ephemeral : spec.ephemeral;
}

/** The command's handler, after its access check: a refusal is `null` (the transport says it its way). */
export async function runCommand(spec: CommandSpec, inv: Invocation, s: CommandServices): Promise<string | null> {
  if (!mayRun(spec, inv.sub, inv.asker.admin)) return null;
  return spec.run(inv, s);
}

/** `/help`'s lines for these commands: the syntax in a column, then what it does. */
export function usageLines(specs: readonly CommandSpec[]): string[] {
  return specs.flatMap((c) => c.console.usage.map(([syntax, about]) => `  ${syntax.length < 22 ? syntax.padEnd(23) : `${syntax}  `}${about}`));
}

/** An option as text (absent, or not text: null). */
export function textOption(o: OptionValues, name: string): string | null {
  const v = o[name];
  return typeof v === 'string' ? v : null;
}

/** An option as a whole number (absent: undefined). */
export function intOption(o: OptionValues, name: string): number | undefined {
  const v = o[name];
  return typeof v === 'number' ? v : undefined;
}
