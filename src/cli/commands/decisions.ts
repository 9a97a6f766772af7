import fs from 'node:fs';
import path from 'node:path';
import { ContextData, ContextDecision } from '../../condense/knowledge/contextData';
import { decisionsAsOf, parseDay } from '../../condense/knowledge/decisionsAsOf';
import { statusAsOf, StatusView, statusWords } from '../../condense/knowledge/ratify';
import { readTextOrNull } from '../../memory/dataFiles';
import { folderLayout } from '../../memory/layout';
import { jsonProblem, schemaProblem } from '../../memory/storeErrors';
import type { CliIO } from '../../shared/cliIO';

/**
 * `minutes decisions --channel-dir DIR [--at YYYY-MM-DD] [--json]`: the decisions in force in a
 * channel folder at the end of that UTC day (now without --at), and those replaced by then, from its
 * `.minutes/context.json` through the rule `minutes mcp`'s `list_decisions` uses with `as_of`
 * (condense/knowledge/decisionsAsOf.ts). Reads only; bad arguments: one line on stderr, exit 2; a
 * context.json that does not parse: one line with the fix, exit 1.
 *
 *   --json: one line {"channelDir", "at", "in_force": [{"id","topic","decision","date","condensation"?,"status","ratified_by"?,"ratified_by_id"?,"ratified_on"?,"disputed_by"?}],
 *           "superseded": [{…, "replaced_by", "replaced_on"}], "constraints": [{"text","since","decision_id"}], "current_state"?}
 */
export interface DecisionsCliOptions {
  channelDir: string;
  at?: string;
  json?: boolean;
}

const view = (d: ContextDecision, v: StatusView) => ({
  id: d.id,
  topic: d.topic,
  decision: d.text,
  date: d.date,
  ...(d.file ? { condensation: `condensations/${d.file}` } : {}),
  // What members said of it by the end of the day (condense/knowledge/ratify.ts), as list_decisions gives it.
  status: v.status,
  ...(v.ratifiedOn
    ? { ratified_by: v.confirmations.map((c) => c.name).join(', '), ratified_by_id: v.confirmations.map((c) => c.id).join(', '), ratified_on: v.ratifiedOn }
    : {}),
  ...(v.disputedBy ? { disputed_by: v.disputedBy.name, disputed_on: v.disputedBy.at.slice(0, 10) } : {}),
});
const oneLine = (s: string): string => s.replace(/\s+/g, ' ').trim();

export async function runDecisions(opts: DecisionsCliOptions, io: CliIO, clock: () => Date = () => new Date()): Promise<number> {
  const say = (msg: string, code: number): number => {
    io.stderr.write(`minutes decisions: ${msg}\n`);
    return code;
  };
  const parsed = parseDay(opts.at ?? clock().toISOString().slice(0, 10));
  if ('problem' in parsed) return say(`--at: ${parsed.problem}`, 2);
  const dir = path.resolve(io.cwd, opts.channelDir);
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory())
    return say(`${dir} does not exist or is not a folder: give --channel-dir a channel folder`, 2);
  const file = folderLayout(dir).contextData;
  const text = await readTextOrNull(file);
  if (text === null) return say('no decision has been condensed here yet (no .minutes/context.json)', 0);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return say(`${file} is not valid JSON (${jsonProblem(err)}); fix or remove it`, 1);
  }
  const checked = ContextData.safeParse(value);
  if (!checked.success) return say(`${file} ${schemaProblem(checked.error.issues)}; fix or remove it`, 1);

  const then = decisionsAsOf(checked.data, parsed.day);
  const status = (d: ContextDecision, replaced: boolean) => statusAsOf(d, parsed.day, replaced);
  if (opts.json) {
    const out = {
      channelDir: dir,
      at: parsed.day,
      in_force: then.inForce.map((d) => view(d, status(d, false))),
      superseded: then.superseded.map((s) => ({ ...view(s.decision, status(s.decision, true)), replaced_by: s.decision.supersededBy, replaced_on: s.on })),
      constraints: then.constraints.map((k) => ({ text: k.text, since: k.date, decision_id: k.decisionId })),
      ...(then.currentState ? { current_state: then.currentState } : {}),
    };
    io.stdout.write(JSON.stringify(out) + '\n');
    return 0;
  }
  const line = (d: ContextDecision) => `[${d.date}] ${oneLine(d.topic)}: ${oneLine(d.text)}`;
  const lines = [`Decisions in force at the end of ${parsed.day} (UTC) in ${dir}:`];
  lines.push(...(then.inForce.length ? then.inForce.map((d) => `- ${line(d)} (${d.id}) — ${statusWords(status(d, false), oneLine)}`) : ['(none)']));
  if (then.superseded.length) {
    lines.push('Superseded by then:');
    lines.push(...then.superseded.map((s) => `- ~~${line(s.decision)}~~ → replaced by ${s.decision.supersededBy} on ${s.on} (${s.decision.id})`));
  }
  io.stdout.write(lines.join('\n') + '\n');
  return 0;
}
