import { z } from 'zod';
import type { Logger } from '../log/logger';
import { ModelError } from './errors';
import { addUsage, type ModelClient, type ModelRequest, type ProviderName, type Usage } from './types';

export interface CompleteJsonOptions {
  /** One line on what the value means, added to the instruction (the schema itself is always sent). */
  description?: string;
  logger?: Logger;
}

export interface JsonResult<T> {
  value: T;
  /** Summed over both attempts when a correction was needed. */
  usage: Usage;
  attempts: 1 | 2;
  model: string;
  provider: ProviderName;
}

/**
 * JSON mode for side tasks: the only sanctioned way to get structured data out of a model.
 * Asks for JSON matching `schema`, parses the reply (a ```json fence or leading prose is
 * tolerated) and validates it. On failure it asks ONCE more, showing the model its own reply and
 * a one-line correction; a second failure throws ModelError('invalid_output').
 *
 * The instruction goes in a last, uncached system block, after the caller's blocks, so the
 * caller's cached prefix stays byte-identical. Streaming is never used: partial JSON is useless.
 */
export async function completeJson<T>(client: ModelClient, req: ModelRequest, schema: z.ZodType<T>, opts: CompleteJsonOptions = {}): Promise<JsonResult<T>> {
  const base: ModelRequest = { ...req, onText: undefined, system: [...req.system, { text: jsonInstruction(schema, opts.description) }] };
  const first = await client.complete(base);
  const firstCheck = checkReply(first.text, first.stopReason, schema);
  if (firstCheck.ok) return { value: firstCheck.value, usage: first.usage, attempts: 1, model: first.model, provider: first.provider };

  opts.logger?.warn({ problem: firstCheck.problem }, 'model JSON reply invalid; asking once more');
  const retry: ModelRequest = {
    ...base,
    messages: [
      ...base.messages,
      // An empty assistant turn is rejected by Anthropic, so an empty reply gets a stand-in.
      { role: 'assistant', content: first.text.trim() ? first.text : '(empty reply)' },
      { role: 'user', content: `Your previous reply could not be used: ${firstCheck.problem}. Reply again with only the corrected JSON value, nothing else.` },
    ],
  };
  const second = await client.complete(retry);
  const usage = addUsage(first.usage, second.usage);
  const secondCheck = checkReply(second.text, second.stopReason, schema);
  if (secondCheck.ok) return { value: secondCheck.value, usage, attempts: 2, model: second.model, provider: second.provider };
  throw new ModelError('invalid_output', `${second.provider}: model reply was not valid JSON for the schema after one correction: ${secondCheck.problem}`, {
    provider: second.provider,
  });
}

export function jsonInstruction(schema: z.ZodType, description?: string): string {
  let schemaText = '';
  try {
    schemaText = JSON.stringify(z.toJSONSchema(schema, { unrepresentable: 'any' }));
  } catch {
    // Schemas with transforms etc. cannot be rendered; validation still applies.
  }
  return [
    'Reply with a single JSON value and nothing else: no prose before or after it, no Markdown code fence.',
    description ? `The value: ${description}` : '',
    schemaText ? `It must validate against this JSON Schema: ${schemaText}` : '',
  ]
    .filter(Boolean)
    .join('\n');
}

type Check<T> = { ok: true; value: T } | { ok: false; problem: string };

function checkReply<T>(text: string, stopReason: string, schema: z.ZodType<T>): Check<T> {
  const parsed = extractJson(text);
  if (!parsed.ok) {
    const cut = stopReason === 'max_tokens' ? ' (it was cut off at the length limit; be more concise)' : '';
    return { ok: false, problem: `${parsed.problem}${cut}` };
  }
  const result = schema.safeParse(parsed.value);
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problem: `the JSON does not match the schema: ${describeIssues(result.error)}` };
}

/** `path: message` for the first few issues, on one line. */
export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

/**
 * Finds the JSON value in a model reply: the whole reply, else the first fenced block that parses,
 * else the first balanced {...} or [...] that parses (models like to say "Here you go:" first).
 */
export function extractJson(text: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  const whole = tryParse(text.trim());
  if (whole.ok) return whole;
  for (const m of text.matchAll(/```[a-zA-Z]*[ \t]*\r?\n?([\s\S]*?)```/g)) {
    const fenced = tryParse(m[1].trim());
    if (fenced.ok) return fenced;
  }
  let tries = 0;
  for (let i = 0; i < text.length && tries < 20; i++) {
    if (text[i] !== '{' && text[i] !== '[') continue;
    tries++;
    const end = balancedEnd(text, i);
    if (end < 0) continue;
    const inner = tryParse(text.slice(i, end + 1));
    if (inner.ok) return inner;
  }
  if (!text.trim()) return { ok: false, problem: 'the reply was empty' };
  return { ok: false, problem: tries === 0 ? 'the reply contained no JSON' : `the reply was not valid JSON (${whole.problem})` };
}

function tryParse(s: string): { ok: true; value: unknown } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch (err) {
    return { ok: false, problem: err instanceof Error ? err.message : String(err) };
  }
}

/** Index of the bracket closing the one at `start`, skipping over strings; -1 if unbalanced. */
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{') stack.push('}');
    else if (c === '[') stack.push(']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i;
    }
  }
  return -1;
}
