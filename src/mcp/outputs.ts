import { z } from 'zod';

/**
 * Each tool's `outputSchema`: the shape of its structured content, which clients see in tools/list
 * and the SDK checks every answer against (on this side and the client's). Objects are loose: a
 * field added to an answer later (a decision's ratification, say) is shown to clients before this
 * file names it, and never makes an answer fail its own check.
 */
const decisionRef = z.looseObject({
  id: z.string().describe('The decision id, as list_decisions and check_plan give it'),
  topic: z.string(),
  decision: z.string().describe("The decision's text"),
  date: z.string().describe('YYYY-MM-DD: the day of the last message it rests on'),
});

const decision = decisionRef.extend({
  status: z
    .string()
    .describe(
      '"proposed" (recorded, no member confirmed it yet), "ratified", "disputed" (reopened, awaiting a new condensation) or "superseded", at as_of when given; the first three are in force',
    ),
  ratified_by: z.string().optional().describe('The display names of the members who ratified it, comma-separated (one by default)'),
  ratified_by_id: z.string().optional().describe('Their Discord user ids, in the same order'),
  ratified_on: z.string().optional().describe('YYYY-MM-DD: the day it was ratified'),
  confirmations: z.array(z.looseObject({ id: z.string(), name: z.string(), at: z.string() })).optional(),
  disputed_by: z.string().optional().describe('Who reopened it (display name)'),
  disputed_by_id: z.string().optional(),
  disputed_on: z.string().optional(),
  condensation: z.string().optional().describe("The condensation file, relative to the channel's folder"),
  post_url: z.string().optional().describe('Its pinned Discord post'),
  replaces: z.array(decisionRef).optional(),
  replaced_by: decisionRef.optional(),
  replaced_on: z.string().optional(),
});

const channel = z.looseObject({
  key: z.string(),
  kind: z.string().describe('"channel", "private thread" or "console channel"'),
  label: z.string(),
  server_id: z.string().optional(),
  server_name: z.string().optional(),
  channel_name: z.string().optional(),
  thread_id: z.string().optional(),
  thread_name: z.string().optional(),
  parent: z.string().optional(),
});

const head = { channel: z.string(), label: z.string() };
const note = z.string().optional().describe('Why the lists are empty, when they are');

export const OUTPUTS = {
  list_channels: { channels: z.array(channel) },
  get_context: {
    ...head,
    text: z.string().describe('CONTEXT.md without internal markers, or one line saying why there is none and where to look'),
    found: z.boolean().describe('Whether the channel has a CONTEXT.md of its own'),
  },
  search: {
    query: z.string(),
    channels_searched: z.array(z.string()),
    meaning: z.string().describe('Recall by meaning: off, local or api'),
    hits: z.array(
      z.looseObject({
        channel: z.string(),
        label: z.string(),
        found_in: z.string(),
        source: z.string(),
        kind: z.string(),
        heading: z.string(),
        text: z.string(),
        score: z.number(),
        lexical: z.number(),
        semantic: z.number().optional(),
        provenance: z.looseObject({
          entry_id: z.string().optional(),
          from: z.string().optional(),
          date: z.string().optional(),
          condensation: z.string().optional(),
          post_url: z.string().optional(),
        }),
      }),
    ),
  },
  list_decisions: {
    ...head,
    as_of: z.string().optional().describe('The day asked for: decisions as they stood at its end (UTC)'),
    current_state: z.looseObject({ text: z.string(), date: z.string() }).optional(),
    in_force: z.array(decision),
    superseded: z.array(decision).optional(),
    constraints: z.array(z.looseObject({ text: z.string(), since: z.string(), decision_id: z.string() })),
    note,
  },
  list_action_items: {
    ...head,
    counts: z.looseObject({ open: z.number(), done: z.number(), dropped: z.number() }),
    action_items: z.array(
      z.looseObject({
        id: z.string(),
        text: z.string(),
        owner: z.string().optional(),
        due: z.string().optional(),
        status: z.string(),
        opened: z.string(),
        closed: z.string().optional(),
        closed_by: z.string().optional(),
        decision: decisionRef.optional(),
        condensation: z.string().optional(),
        post_url: z.string().optional(),
      }),
    ),
    note,
  },
  get_package: {
    name: z.string(),
    id: z.string(),
    title: z.string(),
    server: z.string(),
    source: z.looseObject({ channel: z.string(), privateThread: z.boolean() }),
    recipes: z.array(z.looseObject({ recipe: z.number() })),
    activeIn: z.array(z.looseObject({ conversation: z.string(), since: z.string(), by: z.string() })),
    items: z.array(z.looseObject({ text: z.string(), channel: z.string(), file: z.string(), recipe: z.number() })),
  },
  check_plan: {
    ...head,
    conflicts: z.array(
      decisionRef.extend({
        why: z.string().describe('Why the text contradicts it, in one line; or, unverified, what they share'),
        verified: z.boolean().describe('Whether the configured model judged it a contradiction (false: a candidate by shared words or meaning only)'),
        condensation: z.string().optional(),
      }),
    ),
    checked: z.number().describe('How many decisions in force were candidates'),
    judged_by: z.string().describe('"model" (the configured model judged the candidates) or "words" (nothing verified them)'),
    note,
  },
} satisfies Record<string, z.ZodRawShape>;
