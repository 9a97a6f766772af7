import { AttachmentBuilder, ChatInputCommandInteraction, MessageFlags, PermissionFlagsBits, SlashCommandBuilder } from 'discord.js';
import type { ChannelCommandRunner } from '../../chat/commands';
import type { ConfigFile } from '../../config/schema';
import type { ChannelRef } from '../../memory/paths';
import { NO_PINGS } from '../discord/client';
import { DISCORD_MESSAGE_LIMIT } from '../discord/split';

/** The commands registered in every guild at start (per guild: instant, unlike global ones). */
export function slashCommandDefinitions() {
  return [
    new SlashCommandBuilder()
      .setName('recall')
      .setDescription('Show exactly what memory would be injected for this text')
      .addStringOption((o) => o.setName('query').setDescription('the text to recall for').setRequired(true))
      .addBooleanOption((o) => o.setName('explain').setDescription("also why: each line's words and meaning, or what kept recall silent")),
    new SlashCommandBuilder()
      .setName('memory')
      .setDescription("This channel's durable memory")
      .addSubcommand((s) => s.setName('show').setDescription("List this channel's memory entries"))
      .addSubcommand((s) =>
        s
          .setName('forget')
          .setDescription('Forget one memory entry (admins)')
          .addStringOption((o) => o.setName('id').setDescription('the entry id, like m-1a2b3c').setRequired(true)),
      ),
    new SlashCommandBuilder().setName('context').setDescription("Show this channel's CONTEXT.md"),
    new SlashCommandBuilder().setName('new').setDescription('Start a fresh model conversation; SESSION.md and memory are kept (admins)'),
    new SlashCommandBuilder().setName('status').setDescription('Token usage, cache hit rate, memory file sizes, upkeep'),
    new SlashCommandBuilder()
      .setName('condense')
      .setDescription('Condense this thread (or the recent channel discussion) into a decision record')
      .addStringOption((o) => o.setName('topic').setDescription('optional topic hint')),
    new SlashCommandBuilder().setName('resolve').setDescription('Condense this thread, then archive it'),
    new SlashCommandBuilder().setName('condensations').setDescription("List this channel's condensations"),
    new SlashCommandBuilder()
      .setName('actions')
      .setDescription("This channel's open action items; done:<id> closes one (its owner or an admin)")
      .addStringOption((o) => o.setName('done').setDescription('the id of the item to close, like a-1a2b3c')),
    packCommandDefinition(),
    new SlashCommandBuilder()
      .setName('questions')
      .setDescription("This channel's open questions; answer:<id> text:<answer> answers one (who asked, or an admin)")
      .addStringOption((o) => o.setName('answer').setDescription('the id of the question to answer, like q-1a2b3c'))
      .addStringOption((o) => o.setName('text').setDescription('the answer, in a sentence')),
    new SlashCommandBuilder().setName('playbooks').setDescription("This channel's playbooks (procedures the team agreed on) and their steps"),
    new SlashCommandBuilder()
      .setName('thread')
      .setDescription('Open a titled thread from the latest message (in a forum: a post) for a focused topic')
      .addStringOption((o) => o.setName('topic').setDescription('what the thread is for (needed in a forum)')),
  ].map((b) => b.toJSON());
}

/** `/pack`: context packages (see README, "Context packages"). */
function packCommandDefinition(): SlashCommandBuilder {
  const b = new SlashCommandBuilder().setName('pack').setDescription('Context packages: memory gathered in one channel, active in others of this server');
  const named = (sub: string, about: string) =>
    b.addSubcommand((s) =>
      s
        .setName(sub)
        .setDescription(about)
        .addStringOption((o) => o.setName('name').setDescription('the package name').setRequired(true)),
    );
  b.addSubcommand((s) => s.setName('list').setDescription("This server's packages, and which are active here"));
  b.addSubcommand((s) =>
    s
      .setName('create')
      .setDescription("Gather this channel's memory into a package (admins)")
      .addStringOption((o) => o.setName('name').setDescription('lowercase letters, digits, - and _').setRequired(true))
      .addStringOption((o) => o.setName('query').setDescription('what to look for in memory and CONTEXT.md'))
      .addStringOption((o) => o.setName('items').setDescription('named items: entry ids, condensation files, CONTEXT.md#section (spaces between)'))
      .addIntegerOption((o) => o.setName('max_items').setDescription('at most this many items (default 8)').setMinValue(1).setMaxValue(50))
      .addIntegerOption((o) => o.setName('max_tokens').setDescription('at most about this many tokens (default 1200)').setMinValue(1).setMaxValue(8000)),
  );
  named('activate', "Put a package's items into this conversation's prompt (admins)");
  named('deactivate', 'Take them out again (admins)');
  named('explain', 'What a package holds and why, its size, where it is active');
  named('refresh', 'Run its recipes again and show the difference (admins)');
  named('delete', 'Deactivate it everywhere and remove it (admins)');
  return b;
}

/** `/pack`, supplied when packages are wired. */
export interface PackCommands {
  command(ix: ChatInputCommandInteraction, ref: ChannelRef, admin: boolean): Promise<string>;
}

/** Handlers for the Secretary's commands, supplied by the Secretary glue when it is wired. */
export interface SecretaryCommands {
  condense(ix: ChatInputCommandInteraction, ref: ChannelRef, topic: string | null): Promise<string>;
  resolve(ix: ChatInputCommandInteraction, ref: ChannelRef): Promise<string>;
  list(ref: ChannelRef): Promise<string>;
}

/** `/thread`, supplied by the thread opener when it is wired. */
export interface ThreadCommands {
  command(ix: ChatInputCommandInteraction, topic: string | null): Promise<string>;
}

/** `/actions`, supplied when action items are wired. */
export interface ActionItemCommands {
  command(ix: ChatInputCommandInteraction, ref: ChannelRef, doneId: string | null, admin: boolean): Promise<string>;
}

/** `/questions` and `/playbooks`, supplied when open questions and playbooks are wired. */
export interface KnowledgeSlashCommands {
  questions(ix: ChatInputCommandInteraction, ref: ChannelRef, answerId: string | null, text: string | null, admin: boolean): Promise<string>;
  playbooks(ref: ChannelRef): Promise<string>;
}

/**
 * Answers only the asker sees. `/thread` is among them: its answer is a link to the thread (which
 * everyone sees open) or a one-line refusal.
 */
const EPHEMERAL = new Set(['recall', 'memory show', 'status', 'condensations', 'thread', 'actions', 'questions', 'playbooks', 'pack list', 'pack explain']);
/** Commands only an admin may run: anyone else gets a refusal only they see. */
const ADMIN_ONLY = new Set(['new', 'pack create', 'pack activate', 'pack deactivate', 'pack refresh', 'pack delete']);

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
  const needsAdmin = ADMIN_ONLY.has(name);
  // A refusal concerns the asker alone; a package's list and explanation too.
  await ix.deferReply(EPHEMERAL.has(name) || (needsAdmin && !admin && ix.commandName === 'pack') ? { flags: MessageFlags.Ephemeral } : {});
  let text: string;
  if (needsAdmin && !admin) {
    text = o.config.discord.adminRoles.length
      ? 'Only members with one of the configured admin roles can do that.'
      : 'Only members with the Manage Messages permission can do that.';
  } else {
    text = await run(name, ix, { ...o, admin });
  }
  await answer(ix, text, name);
}

async function run(
  name: string,
  ix: ChatInputCommandInteraction,
  o: {
    commands: ChannelCommandRunner;
    actor: string;
    ref: ChannelRef;
    secretary?: SecretaryCommands;
    threads?: ThreadCommands;
    actions?: ActionItemCommands;
    packs?: PackCommands;
    knowledge?: KnowledgeSlashCommands;
    admin: boolean;
  },
): Promise<string> {
  const { commands, actor, ref } = o;
  switch (name) {
    case 'recall':
      return commands(ref, actor, { name: 'recall', query: ix.options.getString('query', true), explain: ix.options.getBoolean('explain') ?? false });
    case 'memory show':
      return commands(ref, actor, { name: 'memory' });
    case 'memory forget':
      // An admin, or the member the entry records as having said it (chat/forgetting.ts).
      return commands(ref, actor, { name: 'forget', id: ix.options.getString('id', true), who: { admin: o.admin, userId: ix.user.id } });
    case 'context':
      return commands(ref, actor, { name: 'context' });
    case 'new':
      return commands(ref, actor, { name: 'new' });
    case 'status':
      return commands(ref, actor, { name: 'status' });
    case 'condense':
      return o.secretary ? o.secretary.condense(ix, ref, ix.options.getString('topic')) : 'The Secretary is not available in this version.';
    case 'resolve':
      return o.secretary ? o.secretary.resolve(ix, ref) : 'The Secretary is not available in this version.';
    case 'condensations':
      return o.secretary ? o.secretary.list(ref) : 'No condensations yet.';
    case 'actions':
      return o.actions ? o.actions.command(ix, ref, ix.options.getString('done'), o.admin) : 'Action items are not available in this version.';
    case 'pack list':
    case 'pack create':
    case 'pack activate':
    case 'pack deactivate':
    case 'pack explain':
    case 'pack refresh':
    case 'pack delete':
      return o.packs ? o.packs.command(ix, ref, o.admin) : 'Context packages are not available in this version.';
    case 'questions':
      return o.knowledge
        ? o.knowledge.questions(ix, ref, ix.options.getString('answer'), ix.options.getString('text'), o.admin)
        : 'Open questions are not available in this version.';
    case 'playbooks':
      return o.knowledge ? o.knowledge.playbooks(ref) : 'Playbooks are not available in this version.';
    case 'thread':
      return o.threads ? o.threads.command(ix, ix.options.getString('topic')) : 'Opening threads is not available in this version.';
    default:
      return `Unknown command /${name}.`;
  }
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
