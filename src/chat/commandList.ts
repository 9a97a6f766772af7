import { CommandSpec, ConsoleParsed, intOption, OptionSpec, SubcommandSpec, textOption } from './commandRegistry';
import { PACK_ADMIN_ONLY, PACK_USAGE, packWords } from './packCommands';

/**
 * Every command of Minutes, in the order Discord registers them: the one list that Discord's slash
 * commands and the console both dispatch through (commandRegistry.ts says what each field means).
 */

const NO_SECRETARY = 'The Secretary is not available in this version.';

const recall: CommandSpec = {
  name: 'recall',
  description: 'Show exactly what memory would be injected for this text',
  access: 'member',
  ephemeral: true,
  options: [
    { name: 'query', description: 'the text to recall for', type: 'string', required: true },
    { name: 'explain', description: "also why: each line's words and meaning, or what kept recall silent", type: 'boolean' },
  ],
  console: {
    usage: [
      ['/recall <text>', 'what recall would inject for that text, with its scores'],
      ['/recall --explain <text>', "the same, and why: each line's words and meaning, or what kept recall silent"],
    ],
    parse: (args) =>
      args.split(/\s+/)[0] === '--explain' ? { options: { query: args.slice('--explain'.length).trim(), explain: true } } : { options: { query: args } },
  },
  run: ({ ref, options, asker }, s) =>
    s.channel(ref, asker.actor, { name: 'recall', query: textOption(options, 'query') ?? '', explain: options.explain === true }),
};

const memory: CommandSpec = {
  name: 'memory',
  description: "This channel's durable memory",
  access: 'member',
  ephemeral: false,
  subcommands: [
    { name: 'show', description: "List this channel's memory entries", access: 'member', ephemeral: true, options: [] },
    {
      name: 'forget',
      description: 'Forget one memory entry (admins)',
      // An admin, or the member the entry records as having said it: judged by chat/forgetting.ts.
      access: 'member',
      ephemeral: false,
      options: [{ name: 'id', description: 'the entry id, like m-1a2b3c', type: 'string', required: true }],
    },
  ],
  console: {
    usage: [
      ['/memory', "the channel's MEMORY.md entries"],
      ['/memory forget <id>', 'remove one entry (the reply quotes it)'],
    ],
    parse: (args) => {
      const [sub, id] = args.split(/\s+/);
      if (sub !== 'forget') return { sub: 'show', options: {} };
      return id ? { sub: 'forget', options: { id } } : { answer: 'error: usage: /memory forget <id>' };
    },
  },
  run: ({ ref, sub, options, asker }, s) =>
    sub === 'forget'
      ? s.channel(ref, asker.actor, { name: 'forget', id: textOption(options, 'id') ?? '', who: { admin: asker.admin, userId: asker.userId } })
      : s.channel(ref, asker.actor, { name: 'memory' }),
};

/** A command without options or subcommands that runs one channel command. */
function channelCommand(name: 'context' | 'new' | 'status', description: string, about: string, o: Pick<CommandSpec, 'access' | 'ephemeral'>): CommandSpec {
  return { name, description, ...o, console: { usage: [[`/${name}`, about]] }, run: ({ ref, asker }, s) => s.channel(ref, asker.actor, { name }) };
}

const condense: CommandSpec = {
  name: 'condense',
  description: 'Condense this thread (or the recent channel discussion) into a decision record',
  access: 'member',
  ephemeral: false,
  options: [{ name: 'topic', description: 'optional topic hint', type: 'string' }],
  console: {
    usage: [['/condense [topic]', 'condense the discussion into a decision record (at the console: the command that does it)']],
    parse: (args) => ({ options: { topic: args || undefined } }),
  },
  run: ({ ref, options }, s) => (s.secretary ? s.secretary.condense(ref, textOption(options, 'topic')) : Promise.resolve(NO_SECRETARY)),
};

const resolve: CommandSpec = {
  name: 'resolve',
  description: 'Condense this thread, then archive it',
  access: 'member',
  ephemeral: false,
  console: { usage: [['/resolve', 'condense a thread, then archive it (Discord threads only)']] },
  run: ({ ref }, s) => (s.secretary ? s.secretary.resolve(ref) : Promise.resolve(NO_SECRETARY)),
};

const condensations: CommandSpec = {
  name: 'condensations',
  description: "List this channel's condensations",
  access: 'member',
  ephemeral: true,
  console: { usage: [['/condensations', "the channel's condensations"]] },
  run: ({ ref }, s) => (s.secretary ? s.secretary.list(ref) : Promise.resolve('No condensations yet.')),
};

const actions: CommandSpec = {
  name: 'actions',
  description: "This channel's open action items; done:<id> closes one (its owner or an admin)",
  access: 'member',
  ephemeral: true,
  options: [{ name: 'done', description: 'the id of the item to close, like a-1a2b3c', type: 'string' }],
  console: {
    usage: [
      ['/actions', "the channel's open action items"],
      ['/actions done <id>', 'close one'],
    ],
    parse: (args) => {
      const [sub, id, ...more] = args.split(/\s+/).filter(Boolean);
      if (!sub) return { options: {} };
      return sub === 'done' && id && !more.length ? { options: { done: id } } : { answer: 'error: usage: /actions done <id> (the ids are in /actions)' };
    },
  },
  run: ({ ref, options, asker }, s) =>
    s.actions ? s.actions.command(ref, textOption(options, 'done'), asker) : Promise.resolve('Action items are not available in this version.'),
};

/** A /pack subcommand acting on one package by name. */
const named = (name: string, description: string, ephemeral = false): SubcommandSpec => ({
  name,
  description,
  access: PACK_ADMIN_ONLY.has(name) ? 'admin' : 'member',
  ephemeral,
  options: [{ name: 'name', description: 'the package name', type: 'string', required: true }],
});
const packCreateOptions: OptionSpec[] = [
  { name: 'name', description: 'lowercase letters, digits, - and _', type: 'string', required: true },
  { name: 'query', description: 'what to look for in memory and CONTEXT.md', type: 'string' },
  { name: 'items', description: 'named items: entry ids, condensation files, CONTEXT.md#section (spaces between)', type: 'string' },
  { name: 'max_items', description: 'at most this many items (default 8)', type: 'integer', min: 1, max: 50 },
  { name: 'max_tokens', description: 'at most about this many tokens (default 1200)', type: 'integer', min: 1, max: 8000 },
];

/** `/pack`: context packages (see docs/packages.md). */
const pack: CommandSpec = {
  name: 'pack',
  description: 'Context packages: memory gathered in one channel, active in others of this server',
  access: 'member',
  ephemeral: false,
  subcommands: [
    { name: 'list', description: "This server's packages, and which are active here", access: 'member', ephemeral: true, options: [] },
    { name: 'create', description: "Gather this channel's memory into a package (admins)", access: 'admin', ephemeral: false, options: packCreateOptions },
    named('activate', "Put a package's items into this conversation's prompt (admins)"),
    named('deactivate', 'Take them out again (admins)'),
    named('explain', 'What a package holds and why, its size, where it is active', true),
    named('refresh', 'Run its recipes again and show the difference (admins)'),
    named('delete', 'Deactivate it everywhere and remove it (admins)'),
  ],
  console: {
    usage: [['/pack …', 'context packages: list, create, activate, deactivate, explain, refresh, delete (/pack alone for usage)']],
    parse: (args): ConsoleParsed => {
      const p = packWords(args);
      if (!p) return { answer: PACK_USAGE };
      const { sub, name, query, items, maxItems, maxTokens } = p;
      return { sub, options: { name, query, items: items?.join(' '), max_items: maxItems, max_tokens: maxTokens } };
    },
  },
  run: ({ ref, sub, options, asker }, s) =>
    s.packs
      ? s.packs.command(
          ref,
          {
            sub: sub ?? '',
            name: textOption(options, 'name') ?? '',
            query: textOption(options, 'query') ?? undefined,
            items: (textOption(options, 'items') ?? '').split(/[\s,]+/).filter(Boolean),
            maxItems: intOption(options, 'max_items'),
            maxTokens: intOption(options, 'max_tokens'),
          },
          asker,
        )
      : Promise.resolve('Context packages are not available in this version.'),
};

const questions: CommandSpec = {
  name: 'questions',
  description: "This channel's open questions; answer:<id> text:<answer> answers one (who asked, or an admin)",
  access: 'member',
  ephemeral: true,
  options: [
    { name: 'answer', description: 'the id of the question to answer, like q-1a2b3c', type: 'string' },
    { name: 'text', description: 'the answer, in a sentence', type: 'string' },
  ],
  console: {
    usage: [
      ['/questions', "the channel's open questions"],
      ['/questions answer <id> <answer>', 'answer one, in a sentence'],
    ],
    parse: (args) => {
      const [sub, id] = args.split(/\s+/).filter(Boolean);
      if (!sub) return { options: {} };
      const text = args.replace(/^\S+\s+\S+\s*/, '');
      return sub === 'answer' && id && text
        ? { options: { answer: id, text } }
        : { answer: 'error: usage: /questions answer <id> <answer> (the ids are in /questions)' };
    },
  },
  run: ({ ref, options, asker }, s) =>
    s.knowledge
      ? s.knowledge.questions(ref, textOption(options, 'answer'), textOption(options, 'text'), asker)
      : Promise.resolve('Open questions are not available in this version.'),
};

const playbooks: CommandSpec = {
  name: 'playbooks',
  description: "This channel's playbooks (procedures the team agreed on) and their steps",
  access: 'member',
  ephemeral: true,
  console: { usage: [['/playbooks', "the channel's playbooks (procedures the team agreed on) and their steps"]] },
  run: ({ ref }, s) => (s.knowledge ? s.knowledge.playbooks(ref) : Promise.resolve('Playbooks are not available in this version.')),
};

/** `/decisions`: only the asker sees it, as the other lists a member looks up. */
const decisions: CommandSpec = {
  name: 'decisions',
  description: 'The decisions in force at the end of a day (UTC), and those replaced by then',
  access: 'member',
  ephemeral: true,
  options: [{ name: 'at', description: 'the day, YYYY-MM-DD (default: today)', type: 'string' }],
  console: {
    usage: [['/decisions [YYYY-MM-DD]', 'the decisions in force at the end of that day (UTC; default today)']],
    parse: (args) => ({ options: { at: args || undefined } }),
  },
  run: ({ ref, options }, s) =>
    s.secretary?.decisionsAt ? s.secretary.decisionsAt(ref, textOption(options, 'at')) : Promise.resolve('Decisions are not available in this version.'),
};

const catchup: CommandSpec = {
  name: 'catchup',
  description: 'What changed in this channel since you last spoke in it: decisions, your action items, answers',
  access: 'member',
  ephemeral: true,
  console: { usage: [['/catchup', 'what changed since you last spoke in the channel (Discord only)']] },
  run: ({ ref, asker }, s) =>
    s.secretary?.catchup ? s.secretary.catchup(ref, asker) : Promise.resolve('/catchup works on Discord, where members have accounts.'),
};

/** `/thread`'s answer is a link to the thread (which everyone sees open) or a one-line refusal: the asker's. */
const thread: CommandSpec = {
  name: 'thread',
  description: 'Open a titled thread from the latest message (in a forum: a post) for a focused topic',
  access: 'member',
  ephemeral: true,
  options: [{ name: 'topic', description: 'what the thread is for (needed in a forum)', type: 'string' }],
  console: {
    usage: [['/thread [topic]', 'open a titled thread for a focused topic (Discord only)']],
    parse: (args) => ({ options: { topic: args || undefined } }),
  },
  run: ({ options }, s) => (s.threads ? s.threads.open(textOption(options, 'topic')) : Promise.resolve('Opening threads is not available in this version.')),
};

export const COMMANDS: readonly CommandSpec[] = [
  recall,
  memory,
  channelCommand('context', "Show this channel's CONTEXT.md", "the channel's CONTEXT.md", { access: 'member', ephemeral: false }),
  // Ends the conversation for everyone in the channel: an admin's, hidden from members on Discord.
  channelCommand('new', 'Start a fresh model conversation; SESSION.md and memory are kept (admins)', 'a fresh model conversation (SESSION.md is kept)', {
    access: 'admin',
    ephemeral: false,
  }),
  channelCommand('status', 'Token usage, cache hit rate, memory file sizes, upkeep', 'token usage, cache hit rate, file sizes, upkeep', {
    access: 'member',
    ephemeral: true,
  }),
  condense,
  resolve,
  condensations,
  actions,
  pack,
  questions,
  playbooks,
  thread,
  decisions,
  catchup,
];

/** The command named so (without its slash), if there is one. */
export function commandNamed(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}
