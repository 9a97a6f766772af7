import path from 'node:path';
import readline from 'node:readline';
import type { Runtime } from '../app/runtime';
import { ModelError } from '../llm/errors';
import { ModelCallsStoppedError } from '../llm/shutdown';
import { type ChannelRef } from '../memory/paths';
import { recallDirs } from '../memory/layout';
import { driftLine } from '../condense/observers/drift';
import { DriftChecker } from '../condense/observers/driftChecker';
import { consoleServices, HELP, runConsoleCommand } from './consoleCommands';

/**
 * Console mode. At a terminal it is a chat; when stdin is not a terminal it is a protocol for
 * scripts: every input line yields exactly one block on stdout (a reply, a command's output or a
 * one-line error) followed by a line holding only `---`. A reply line that is exactly `---` is
 * printed as `\---` so the separator stays unambiguous.
 */
export interface ConsoleOptions {
  runtime: Runtime;
  ref: ChannelRef;
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  interactive: boolean;
  userName?: string;
  /**
   * Stops reading (SIGINT, SIGTERM): lines not yet read are dropped; the line being answered ends
   * with the shutdown budget's abort.
   */
  stop?: AbortSignal;
}

export const SEPARATOR = '---';

/**
 * A line that is `---` after any number of backslashes gets one more, so `---` and a literal `\---`
 * print differently and a reader gets the text back by removing one backslash from such lines.
 */
export function escapeBlock(text: string): string {
  return text
    .split('\n')
    .map((l) => (/^\\*---$/.test(l) ? `\\${l}` : l))
    .join('\n');
}

/** Terminal control bytes (escape sequences, NUL, bell) from a damaged file never reach the screen. */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}

/** Control and format characters (NUL, escape, zero-width space, …) and spaces: what a line holding only these shows. */
const INVISIBLE = /[\p{Cc}\p{Cf}\s]/gu;

/** `/memroy` is a mistyped command; `/etc/hosts is wrong` is a message that starts with a path. */
const COMMAND_LIKE = /^\/[a-z]+$/i;

export async function runConsole(o: ConsoleOptions): Promise<void> {
  const { runtime, ref } = o;
  const rl = readline.createInterface({ input: o.input, terminal: false, crlfDelay: Infinity });
  const stopReading = () => rl.close();
  if (o.stop?.aborted) stopReading();
  o.stop?.addEventListener('abort', stopReading, { once: true });
  // The sentence model loads and the channel's lines are embedded from the start, as in the bot:
  // `/recall` waits for this, so the first query finds what the second would.
  runtime.recall.prepare();
  const paths = runtime.store.paths(ref);
  // Silent on purpose: a failure is logged by the embedder once, and recall then goes by words.
  const indexed = runtime.recall.indexAll(recallDirs(paths, runtime.store.root)).catch(() => undefined);
  // The person at the console runs the bot: an admin.
  const actor = o.userName ?? 'console';
  const asker = { actor, name: actor, admin: true };
  const services = consoleServices({ runtime, channelDir: path.resolve(paths.channelDir), indexed });
  let seq = 0;
  // Drift notes (discord.driftNotes, here too): checked beside the reply, never before it; a line
  // found after its reply was printed goes under the next one.
  const { model, store, logger, clock, usage } = runtime;
  const drift = runtime.settings.config.discord.driftNotes ? new DriftChecker({ deps: { model, store, logger, clock, usage } }) : undefined;
  const late: string[] = [];
  const checks = new Set<Promise<void>>();
  const write = (text: string) => {
    o.output.write(`${escapeBlock(printable(text).replace(/\s+$/, ''))}\n`);
    if (!o.interactive) o.output.write(`${SEPARATOR}\n`);
  };
  // Input ended (Ctrl-D) while a line was being answered: no prompt after its answer.
  let inputEnded = false;
  rl.once('close', () => (inputEnded = true));
  if (o.interactive) o.output.write('> ');
  for await (const raw of rl) {
    if (o.stop?.aborted) break;
    const line = raw.replace(/\r$/, '');
    try {
      write(await handleLine(line));
    } catch (err) {
      write(`error: ${oneLineError(err)}`);
      // Cut short by the end of input's budget: its one warning says so, a stack would not help.
      if (!(err instanceof ModelCallsStoppedError)) runtime.logger.error({ err }, 'console line failed');
    }
    if (o.interactive && !inputEnded) o.output.write('> ');
  }
  o.stop?.removeEventListener('abort', stopReading);
  // A check still running writes its record before the runtime closes (its line has no reply left to go under).
  await Promise.all(checks);

  async function handleLine(line: string): Promise<string> {
    const trimmed = line.trim();
    // A line of NUL bytes or other invisible characters is as empty as a blank one.
    if (!trimmed.replace(INVISIBLE, '')) return 'error: empty message; type a message, or /help for the commands';
    // Read from the raw line: a leading space turns a would-be command into a message.
    const [first] = line.split(/\s+/);
    if (COMMAND_LIKE.test(first)) {
      const [cmd] = trimmed.split(/\s+/);
      if (cmd === '/help') return HELP;
      const answer = await runConsoleCommand(cmd.slice(1), trimmed.slice(cmd.length).trim(), { ref, asker, services });
      return answer ?? `error: unknown command ${cmd}; /help lists the commands (start the line with a space to send it as a message)`;
    }
    seq++;
    // The console's user runs the bot: an admin, who may make it forget any entry.
    const message = { id: `console-${Date.now()}-${seq}`, authorName: o.userName ?? 'you', content: line, at: runtime.clock(), mayForget: true };
    // Both sides go to the cold log, as in Discord (the engine appends the reply, or the error), so
    // a console discussion can be condensed from it (`minutes condense --channel-dir DIR`).
    await runtime.store.appendJsonl(paths.log, {
      type: 'message',
      id: message.id,
      author: { id: message.authorName, name: message.authorName },
      at: message.at.toISOString(),
      content: message.content,
    });
    let replied = false;
    let note: string | null = null;
    const checking = drift
      ?.check(ref, message)
      .then((f) => (f ? driftLine(f.decision, { consoleDir: path.resolve(paths.channelDir) }) : null))
      .catch((err: unknown) => {
        runtime.logger.warn({ err }, 'drift check failed');
        return null;
      })
      .then((l) => {
        // Found before the reply was printed: under it; after: under the next one.
        if (!replied) note = l;
        else if (l) late.push(l);
      });
    if (checking) {
      checks.add(checking);
      const done = () => void checks.delete(checking);
      checking.then(done, done);
    }
    let reply;
    try {
      reply = await runtime.engine.respond(ref, [message]);
    } finally {
      replied = true;
    }
    const text = reply.text.trim() ? reply.text : '(the model returned an empty reply)';
    const notes = [...late.splice(0), ...(note ? [note] : [])];
    return notes.length ? `${text}\n${notes.join('\n')}` : text;
  }
}

function oneLineError(err: unknown): string {
  if (err instanceof ModelError) return err.userMessage();
  const msg = err instanceof Error ? err.message : String(err);
  // Control bytes (a NUL from a broken body) never reach the terminal or a script's parser.
  return msg.split('\n')[0].replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
}
