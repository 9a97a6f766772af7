import { z } from 'zod';
import type { RecallService } from '../recall/service';
import type { Catalog, Channel } from './catalog';
import { listActionItems, listDecisions } from './decisions';
import { McpRequestError } from './errors';
import { readContextFile, readContextText } from './context';
import { searchChannels } from './search';
import { getPackage } from './packages';
import { checkPlan, MAX_PLAN_CHARS } from './checkPlan';
import { parseDay } from '../condense/knowledge/decisionsAsOf';
import type { SideTaskDeps } from '../llm/sideTask';
import { OUTPUTS } from './outputs';

/**
 * The tools, one entry each: a name, a description an agent can act on, the input's and the
 * output's zod shapes (the SDK turns them into the JSON schemas clients see, checks every call
 * against the first and every answer against the second: outputs.ts) and what it answers. A tool
 * answers a value (its structured content, also sent as JSON text) and, when a text reads better
 * than JSON (CONTEXT.md), that text instead. Adding a tool is adding an entry here; server.ts
 * registers them all the same way.
 */
export interface ToolAnswer {
  json: Record<string, unknown>;
  /** The text content, when not the JSON itself. */
  text?: string;
}

export interface ToolSpec<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  output: z.ZodRawShape;
  run(args: z.infer<z.ZodObject<S>>): Promise<ToolAnswer>;
}

export interface ToolDeps {
  catalog: Catalog;
  recall: RecallService;
  /** The data root, for the context packages of its servers. */
  root: string;
  /** The configured model, for check_plan's judgement; absent when `minutes mcp` has none. */
  judge?: SideTaskDeps;
}

/** Keeps each spec's argument type checked against its own shape while the list holds them all. */
function tool<S extends z.ZodRawShape>(spec: ToolSpec<S>): ToolSpec {
  return spec as unknown as ToolSpec;
}

const channelArg = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'A channel key from list_channels ("<server id>/<channel id>", "<server id>/<channel id>/<thread id>" or "local/<name>"), or a channel name only one channel has ("#backend")',
  );

export const DEFAULT_SEARCH_LIMIT = 10;

export function mcpTools(d: ToolDeps): ToolSpec[] {
  return [
    tool({
      name: 'list_channels',
      title: 'List channels',
      description:
        "List the servers, channels and private threads whose memory this server can read, with their names and keys. Call it first: the other tools take a channel key (or a channel's unique name).",
      input: {},
      output: OUTPUTS.list_channels,
      run: async () => ({ json: { channels: (await d.catalog.list()).map(channelView) } }),
    }),
    tool({
      name: 'get_context',
      title: "Get a channel's CONTEXT.md",
      description:
        "Get a channel's CONTEXT.md, the team's living ground truth as the bot shows it: current state, key decisions in force (newest first, dated, each linking its condensation), active constraints, open action items and superseded decisions. Read it before working on something the channel discusses.",
      input: { channel: channelArg },
      output: OUTPUTS.get_context,
      run: async ({ channel }) => {
        const c = await d.catalog.find(channel);
        const own = await readContextFile(c);
        const found = own !== null && own.trim() !== '';
        const text = found ? own : await readContextText(c, d.catalog);
        return { text, json: { channel: c.key, label: c.label, text, found } };
      },
    }),
    tool({
      name: 'search',
      title: "Search the team's memory",
      description:
        "Search the team's memory (facts, decisions, condensations, history) by words and meaning, best first; it lists every line that shares a word or a meaning with the query. Give channel to search one channel, or leave it out to search every channel. Each hit names its channel, file and provenance (entry id, who said it, date, condensation).",
      input: {
        query: z.string().min(1).max(2000).describe('What to look for: words or a question'),
        channel: channelArg.optional(),
        limit: z.number().int().min(1).max(50).optional().describe(`At most this many hits (default ${DEFAULT_SEARCH_LIMIT})`),
      },
      output: OUTPUTS.search,
      run: async ({ query, channel, limit }) => {
        if (!query.trim()) throw new McpRequestError('query is blank: give the words to look for');
        const channels = channel === undefined ? await d.catalog.list() : [await d.catalog.find(channel)];
        const hits = await searchChannels(d.recall, channels, query, limit ?? DEFAULT_SEARCH_LIMIT);
        return { json: { query, channels_searched: channels.map((c) => c.key), meaning: d.recall.semantic, hits } };
      },
    }),
    tool({
      name: 'list_decisions',
      title: "List a channel's decisions",
      description:
        "List a channel's decisions in force, newest first, each with its date, the condensation that recorded it (and its Discord post) and the decisions it replaced; also the active constraints. include_superseded: true adds the replaced decisions and what replaced each. as_of: the decisions as they stood at the end of that day (UTC). Check it before changing something the team decided.",
      input: {
        channel: channelArg,
        include_superseded: z.boolean().optional().describe('Also list decisions that were replaced (default false)'),
        as_of: z
          .string()
          .max(40)
          .optional()
          .describe(
            'YYYY-MM-DD: the decisions in force at the end of that day, UTC (one replaced on or before it is superseded; one made after it is left out)',
          ),
      },
      output: OUTPUTS.list_decisions,
      run: async ({ channel, include_superseded, as_of }) => {
        const day = as_of === undefined ? undefined : parseDay(as_of);
        if (day && 'problem' in day) throw new McpRequestError(`as_of: ${day.problem}`);
        return { json: await listDecisions(await d.catalog.find(channel), include_superseded ?? false, day?.day) };
      },
    }),
    tool({
      name: 'list_action_items',
      title: "List a channel's action items",
      description:
        "List the action items a channel's condensations named: text, owner, due date, status and the decision each follows from, newest first. open_only (default true): false also lists done ones and those dropped when their decision was replaced.",
      input: {
        channel: channelArg,
        open_only: z.boolean().optional().describe('Only items still open (default true)'),
      },
      output: OUTPUTS.list_action_items,
      run: async ({ channel, open_only }) => ({ json: await listActionItems(await d.catalog.find(channel), open_only ?? true) }),
    }),
    tool({
      name: 'get_package',
      title: 'Get a context package',
      description:
        "Get a context package: a named bundle of a team's memory (decisions, facts, condensations) someone gathered for a piece of work, with each item's provenance (channel, file, entry id or condensation, date), the recipe that picked it, its size and where it is active. Packages are named in the channels' /pack list; an unknown name is answered with the names you can ask for.",
      input: {
        name: z.string().min(1).max(100).describe('The package name, e.g. "orders-db"'),
        server: z
          .string()
          .min(1)
          .max(30)
          .optional()
          .describe('A server_id from list_channels, or "local"; only needed when two servers have a package of that name'),
      },
      output: OUTPUTS.get_package,
      run: async ({ name, server }) => ({ json: await getPackage({ root: d.root, catalog: d.catalog }, name, server) }),
    }),
    tool({
      name: 'check_plan',
      title: 'Check a plan against the decisions in force',
      description:
        "Check a text you wrote (a plan, a summary of a change, a design note) against a channel's decisions in force: the decisions it contradicts, each with its id (as list_decisions gives it) and why. Call it before doing something the team may have decided otherwise. Each conflict says whether the server's model verified it; unverified ones are candidates that share words or meaning with the text.",
      input: {
        channel: channelArg,
        text: z
          .string()
          .min(1)
          .max(MAX_PLAN_CHARS * 4)
          .describe(`The plan, diff summary or design note (its first ${MAX_PLAN_CHARS} characters are judged)`),
      },
      output: OUTPUTS.check_plan,
      run: async ({ channel, text }) => {
        if (!text.trim()) throw new McpRequestError('text is blank: give the plan, diff summary or design note to check');
        return { json: await checkPlan({ recall: d.recall, judge: d.judge }, await d.catalog.find(channel), text) };
      },
    }),
  ];
}

/** A channel as list_channels shows it. */
function channelView(c: Channel): Record<string, unknown> {
  return {
    key: c.key,
    kind: c.kind,
    label: c.label,
    ...(c.serverId ? { server_id: c.serverId } : {}),
    ...(c.serverName ? { server_name: c.serverName } : {}),
    ...(c.channelName ? { channel_name: c.channelName } : {}),
    ...(c.unit.threadId ? { thread_id: c.unit.threadId } : {}),
    ...(c.threadName ? { thread_name: c.threadName } : {}),
    ...(c.parentKey ? { parent: c.parentKey } : {}),
  };
}
