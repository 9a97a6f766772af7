import { z } from 'zod';
import type { RecallService } from '../recall/service';
import type { Catalog, Channel } from './catalog';
import { listActionItems, listDecisions } from './decisions';
import { McpRequestError } from './errors';
import { readContextText } from './context';
import { searchChannels } from './search';
import { getPackage } from './packages';

/**
 * The tools, one entry each: a name, a description an agent can act on, the input's zod shape (the
 * SDK turns it into the JSON schema clients see and checks every call against it) and what it
 * answers. A tool returns text (shown as is) or a value (sent as JSON). Adding a tool is adding an
 * entry here; server.ts registers them all the same way.
 */
export type ToolAnswer = { text: string } | { json: Record<string, unknown> };

export interface ToolSpec<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: S;
  run(args: z.infer<z.ZodObject<S>>): Promise<ToolAnswer>;
}

export interface ToolDeps {
  catalog: Catalog;
  recall: RecallService;
  /** The data root, for the context packages of its servers. */
  root: string;
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
      run: async () => ({ json: { channels: (await d.catalog.list()).map(channelView) } }),
    }),
    tool({
      name: 'get_context',
      title: "Get a channel's CONTEXT.md",
      description:
        "Get a channel's CONTEXT.md, the team's living ground truth as the bot shows it: current state, key decisions in force (newest first, dated, each linking its condensation), active constraints, open action items and superseded decisions. Read it before working on something the channel discusses.",
      input: { channel: channelArg },
      run: async ({ channel }) => ({ text: await readContextText(await d.catalog.find(channel), d.catalog) }),
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
        "List a channel's decisions in force, newest first, each with its date, the condensation that recorded it (and its Discord post) and the decisions it replaced; also the active constraints. include_superseded: true adds the replaced decisions and what replaced each. Check it before changing something the team decided.",
      input: {
        channel: channelArg,
        include_superseded: z.boolean().optional().describe('Also list decisions that were replaced (default false)'),
      },
      run: async ({ channel, include_superseded }) => ({ json: await listDecisions(await d.catalog.find(channel), include_superseded ?? false) }),
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
      run: async ({ name, server }) => ({ json: await getPackage({ root: d.root, catalog: d.catalog }, name, server) }),
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
