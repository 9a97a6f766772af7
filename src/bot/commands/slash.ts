import {
  AttachmentBuilder,
  ChatInputCommandInteraction,
  GuildMember,
  MessageFlags,
  PermissionFlagsBits,
  SlashCommandBooleanOption,
  SlashCommandBuilder,
  SlashCommandIntegerOption,
  SlashCommandStringOption,
} from 'discord.js';
import type { ChannelCommandRunner } from '../../chat/commands';
import { commandNamed, COMMANDS } from '../../chat/commandList';
import { answerIsPrivate, Asker, CommandServices, CommandSpec, mayRun, OptionSpec, OptionValues, runCommand } from '../../chat/commandRegistry';
import type { ConfigFile } from '../../config/schema';
import type { ChannelRef } from '../../memory/paths';
import { NO_PINGS } from '../discord/client';
import { messageCommandDefinitions } from './messageCommands';
import { DISCORD_MESSAGE_LIMIT } from '../discord/split';

/**
 * The commands registered in every guild at start (per guild: instant, unlike global ones): the
 * shared registry's (chat/commandList.ts) as Discord's definitions. A command only an admin may run
 * carries default_member_permissions, so members do not see it; "admin" there is Manage Messages,
 * what it means when no admin roles are configured (a server grants it to its admin roles in its
 * Integrations settings, and the check in handleSlash still applies). The message commands
 * (messageCommands.ts) are registered with them.
 */
export function slashCommandDefinitions() {
  return [...COMMANDS.map((c) => slashDefinition(c).toJSON()), ...messageCommandDefinitions()];
}

function slashDefinition(c: CommandSpec): SlashCommandBuilder {
  const b = new SlashCommandBuilder().setName(c.name).setDescription(c.description);
  if (c.access === 'admin') b.setDefaultMemberPermissions(PermissionFlagsBits.ManageMessages);
  addOptions(b, c.options ?? []);
  for (const sub of c.subcommands ?? []) b.addSubcommand((s) => addOptions(s.setName(sub.name).setDescription(sub.description), sub.options));
  return b;
}

/** What a command and a subcommand builder share for options (their methods return different builders). */
interface OptionHost {
  addStringOption(f: (o: SlashCommandStringOption) => SlashCommandStringOption): unknown;
  addBooleanOption(f: (o: SlashCommandBooleanOption) => SlashCommandBooleanOption): unknown;
  addIntegerOption(f: (o: SlashCommandIntegerOption) => SlashCommandIntegerOption): unknown;
}

function addOptions<B extends OptionHost>(b: B, options: OptionSpec[]): B {
  for (const o of options) {
    const named = <T extends SlashCommandStringOption | SlashCommandBooleanOption | SlashCommandIntegerOption>(x: T): T => {
      x.setName(o.name).setDescription(o.description);
      if (o.required) x.setRequired(true);
      return x;
    };
    if (o.type === 'string') b.addStringOption((x) => named(x));
    else if (o.type === 'boolean') b.addBooleanOption((x) => named(x));
    else
      b.addIntegerOption((x) => {
        named(x);
        if (o.min !== undefined) x.setMinValue(o.min);
        if (o.max !== undefined) x.setMaxValue(o.max);
        return x;
      });
  }
  return b;
}

/** An option's value as the registry reads it (absent: undefined). */
function optionValues(ix: ChatInputCommandInteraction, options: OptionSpec[]): OptionValues {
  const out: OptionValues = {};
  for (const o of options) {
    const v = o.type === 'string' ? ix.options.getString(o.name) : o.type === 'boolean' ? ix.options.getBoolean(o.name) : ix.options.getInteger(o.name);
    if (v !== null) out[o.name] = v;
  }
  return out;
}

/** `/pack`, supplied when packages are wired. */
export type PackCommands = NonNullable<CommandServices['packs']>;

/** Handlers for the Secretary's commands, supplied by the Secretary glue when it is wired. */
export interface SecretaryCommands {
  condense(ix: ChatInputCommandInteraction, ref: ChannelRef, topic: string | null): Promise<string>;
  resolve(ix: ChatInputCommandInteraction, ref: ChannelRef): Promise<string>;
  list(ref: ChannelRef): Promise<string>;
  decisionsAt(ref: ChannelRef, at: string | null): Promise<string>;
  catchup(ref: ChannelRef, asker: Asker): Promise<string>;
}

/** `/thread`, supplied by the thread opener when it is wired. */
export interface ThreadCommands {
  command(ix: ChatInputCommandInteraction, topic: string | null): Promise<string>;
}

/** `/actions`, supplied when action items are wired (condense/knowledge/actionCommands.ts). */
export type ActionItemCommands = NonNullable<CommandServices['actions']>;

/** `/questions` and `/playbooks`, supplied when open questions and playbooks are wired (condense/knowledge/knowledgeCommands.ts). */
export type KnowledgeSlashCommands = NonNullable<CommandServices['knowledge']>;

/** Pure: admin rights are the configured roles, or Manage Messages when none are configured. */
export function isAdmin(roleIds: string[], canManageMessages: boolean, d: ConfigFile['discord']): boolean {
  return d.adminRoles.length ? roleIds.some((r) => d.adminRoles.includes(r)) : canManageMessages;
}

/**
 * Acknowledges at once (deferred), then answers: within Discord's 3 s whatever the work costs.
 * An answer over Discord's limit is attached as a file rather than cut.
 */
export async function handleSlash(
  ix: ChatInputCommandInteraction,
  o: {
    commands: ChannelCommandRunner;
    /** Who asked, for provenance. */
    actor: string;
    ref: ChannelRef;
    config: ConfigFile;
    secretary?: SecretaryCommands;
    threads?: ThreadCommands;
    actions?: ActionItemCommands;
    packs?: PackCommands;
    knowledge?: KnowledgeSlashCommands;
  },
): Promise<void> {
  const sub = ix.options.getSubcommand(false);
  const name = sub ? `${ix.commandName} ${sub}` : ix.commandName;
  const roleIds = ix.member && 'roles' in ix.member ? (Array.isArray(ix.member.roles) ? ix.member.roles : [...ix.member.roles.cache.keys()]) : [];
  const admin = isAdmin(roleIds, Boolean(ix.memberPermissions?.has(PermissionFlagsBits.ManageMessages)), o.config.discord);
  const spec = commandNamed(ix.commandName);
  if (!spec) {
    await ix.deferReply({ flags: MessageFlags.Ephemeral });
    return answer(ix, `Unknown command /${name}.`, name);
  }
  const refused = !mayRun(spec, sub, admin);
  await ix.deferReply(answerIsPrivate(spec, sub, refused) ? { flags: MessageFlags.Ephemeral } : {});
  const options = optionValues(ix, [...(spec.options ?? []), ...(spec.subcommands?.find((s) => s.name === sub)?.options ?? [])]);
  const asker: Asker = {
    actor: o.actor,
    name: (ix.member as GuildMember | null)?.displayName ?? ix.user.globalName ?? ix.user.username,
    userId: ix.user.id,
    admin,
  };
  const text =
    (await runCommand(spec, { ref: o.ref, sub, options, asker }, discordServices(ix, o))) ??
    (o.config.discord.adminRoles.length
      ? 'Only members with one of the configured admin roles can do that.'
      : 'Only members with the Manage Messages permission can do that.');
  await answer(ix, text, name);
}

/** The registry's services for one interaction: the Secretary and threads work on the channel it came from. */
function discordServices(
  ix: ChatInputCommandInteraction,
  o: {
    commands: ChannelCommandRunner;
    secretary?: SecretaryCommands;
    threads?: ThreadCommands;
    actions?: ActionItemCommands;
    packs?: PackCommands;
    knowledge?: KnowledgeSlashCommands;
  },
): CommandServices {
  const { secretary, threads } = o;
  return {
    channel: o.commands,
    secretary: secretary && {
      condense: (ref, topic) => secretary.condense(ix, ref, topic),
      resolve: (ref) => secretary.resolve(ix, ref),
      list: (ref) => secretary.list(ref),
      decisionsAt: (ref, at) => secretary.decisionsAt(ref, at),
      catchup: (ref, asker) => secretary.catchup(ref, asker),
    },
    threads: threads && { open: (topic) => threads.command(ix, topic) },
    actions: o.actions,
    knowledge: o.knowledge,
    packs: o.packs,
  };
}

async function answer(ix: ChatInputCommandInteraction, text: string, name: string): Promise<void> {
  const body = text.trim() || '(nothing to show)';
  if (body.length <= DISCORD_MESSAGE_LIMIT) {
    await ix.editReply({ content: body, allowedMentions: NO_PINGS });
    return;
  }
  const file = new AttachmentBuilder(Buffer.from(body, 'utf8'), { name: `${name.replace(/\s+/g, '-')}.md` });
  await ix.editReply({ content: `The answer is ${body.length} characters, over Discord's limit; it is attached.`, files: [file], allowedMentions: NO_PINGS });
}
