import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createRuntime } from '../../app/runtime';
import { unifiedDiff } from '../../condense/saga/diff';
import { FolderStore } from '../../condense/saga/folderStore';
import { Secretary } from '../../condense/saga/secretary';
import type { TranscriptMessage } from '../../condense/condensation/types';
import { ProviderConfigError } from '../../llm/provider';
import type { Logger } from '../../log/logger';
import { ChannelRef, isLocalName } from '../../memory/paths';
import type { CliIO } from '../../shared/cliIO';
import { quietLoggerFor } from './quietLogger';
import { settingsFor } from './common';
import { jsonLines } from '../../shared/jsonLines';
import { lastCondensedMessageId } from '../../condense/saga/ledgerQueries';
import { readLedger } from '../../condense/saga/ledgerFile';
import { transcriptFromLog } from '../../condense/condensation/logTranscript';
import { messagesSince } from '../../condense/condensation/transcript';

/**
 * `minutes condense --channel-dir DIR --transcript FILE [--apply] [--topic T]`: the Secretary's
 * pipeline on a transcript file, without Discord (nothing is posted). Dry run by default: the same
 * pipeline runs on a scratch copy of the folder and the command prints the condensation and the
 * diff of each file it would change, so what --apply writes is exactly what the dry run showed
 * (given the same model answer). --apply writes under the channel's lock.
 */
export interface CondenseCliOptions {
  channelDir: string;
  /** Without it, the channel's own log.jsonl from the message after the last condensation. */
  transcript?: string;
  /** Only messages at or after this date or date-time. */
  since?: string;
  apply?: boolean;
  topic?: string;
  /** The name shown as `#channel`; the folder's name by default. */
  channelName?: string;
}

const WATCHED = /^(CONTEXT\.md|MEMORY\.md|HISTORY\.md|condensations\/.+\.md|playbooks\/.+\.md)$/;

function fail(io: CliIO, msg: string, code = 2): number {
  io.stderr.write(`minutes condense: ${msg}\n`);
  return code;
}

/** JSONL of {"author", "timestamp", "content"} (optional "id", "bot"); ids default to the line number. */
export function parseTranscript(raw: string, file: string): TranscriptMessage[] | string {
  const out: TranscriptMessage[] = [];
  for (const l of jsonLines(raw)) {
    if (!l.ok) return `${file} line ${l.line}: not JSON`;
    const o = l.value as Record<string, unknown>;
    if (!o || typeof o.author !== 'string' || typeof o.content !== 'string' || typeof o.timestamp !== 'string') {
      return `${file} line ${l.line}: expected {"author": "...", "timestamp": "...", "content": "..."}`;
    }
    const at = new Date(o.timestamp);
    if (Number.isNaN(at.getTime())) return `${file} line ${l.line}: timestamp "${o.timestamp}" is not a date`;
    out.push({
      id: typeof o.id === 'string' || typeof o.id === 'number' ? String(o.id) : String(l.line),
      authorId: o.author,
      authorName: o.author,
      at,
      content: o.content,
      isBot: o.bot === true,
    });
  }
  return out;
}

/** Runtime state the Secretary never reads: the conversation, usage, locks, kept unreadable copies. */
const NOT_READ_STATE = /^(conversation\.json|usage\.json|upkeep\.json|lock|console\.lock|.*\.unreadable)$/;

/**
 * The scratch copy for a dry run: the memory files at the top of the folder (not the cold log),
 * `condensations/`, `playbooks/`, and `.minutes/`'s own files (not backups or the conversation). Copying the
 * whole folder took 17 s for 181 MB of logs and threads, and failed when TMPDIR was inside it.
 */
export async function copyForDryRun(from: string, to: string): Promise<void> {
  const files = async (dir: string) =>
    // Silent on purpose: a missing file or folder is the empty case.
    (await fsp.readdir(dir, { withFileTypes: true }).catch(() => [])).filter((e) => e.isFile()).map((e) => e.name);
  const copy = async (rel: string) => {
    await fsp.mkdir(path.dirname(path.join(to, rel)), { recursive: true });
    await fsp.copyFile(path.join(from, rel), path.join(to, rel));
  };
  await fsp.mkdir(to, { recursive: true });
  for (const f of await files(from)) if (f !== 'log.jsonl') await copy(f);
  for (const f of await files(path.join(from, 'condensations'))) await copy(path.join('condensations', f));
  for (const f of await files(path.join(from, 'playbooks'))) await copy(path.join('playbooks', f));
  for (const f of await files(path.join(from, '.minutes'))) if (!NOT_READ_STATE.test(f)) await copy(path.join('.minutes', f));
}

async function listWatched(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const add = async (rel: string) => {
    // Silent on purpose: a missing file or folder is the empty case.
    const t = await fsp.readFile(path.join(dir, rel), 'utf8').catch(() => null);
    if (t !== null) out.set(rel, t);
  };
  for (const f of ['CONTEXT.md', 'CONTEXT.archive.md', 'MEMORY.md', 'HISTORY.md']) await add(f);
  // Silent on purpose: a missing file or folder is the empty case.
  for (const n of (await fsp.readdir(path.join(dir, 'condensations')).catch(() => [] as string[])).sort()) await add(`condensations/${n}`);
  // Silent on purpose: a missing file or folder is the empty case.
  for (const n of (await fsp.readdir(path.join(dir, 'playbooks')).catch(() => [] as string[])).sort()) await add(`playbooks/${n}`);
  return out;
}

function readTranscriptFile(io: CliIO, file: string): { messages: TranscriptMessage[]; name: string; newOnly: boolean } | string {
  let raw: string;
  try {
    raw = fs.readFileSync(path.resolve(io.cwd, file), 'utf8');
  } catch (err) {
    return `cannot read --transcript ${file}: ${(err as Error).message}`;
  }
  const messages = parseTranscript(raw, file);
  return typeof messages === 'string' ? messages : { messages, name: file, newOnly: false };
}

/**
 * The channel's own log.jsonl (console mode and the bot keep both sides there), from the message
 * after the last condensation of the channel, as 📝 on a channel's message does in Discord.
 */
async function readChannelLog(given: string, channelDir: string): Promise<{ messages: TranscriptMessage[]; name: string; newOnly: boolean } | string> {
  const name = path.join(given, 'log.jsonl');
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(channelDir, 'log.jsonl'), 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(err as Error).message})`;
    return `${name} ${why}: pass a transcript with --transcript FILE.jsonl`;
  }
  const ref: ChannelRef = { kind: 'local', name: 'channel' };
  // A ledger that does not parse is reported by the Secretary itself, naming the file and the fix.
  const ledger = await readLedger(new FolderStore(channelDir), ref).catch(() => null);
  const last = ledger ? lastCondensedMessageId(ledger, undefined) : undefined;
  return { messages: messagesSince(transcriptFromLog(raw), last), name, newOnly: last !== undefined };
}

export async function runCondense(opts: CondenseCliOptions, io: CliIO): Promise<number> {
  const channelDir = path.resolve(io.cwd, opts.channelDir);
  if (!fs.existsSync(channelDir) || !fs.statSync(channelDir).isDirectory()) return fail(io, `--channel-dir is not a folder: ${opts.channelDir}`);
  const since = opts.since === undefined ? undefined : new Date(opts.since);
  if (since && Number.isNaN(since.getTime())) return fail(io, `--since "${opts.since}" is not a date: use 2026-11-20 or 2026-11-20T10:00:00Z`);
  const read = opts.transcript ? readTranscriptFile(io, opts.transcript) : await readChannelLog(opts.channelDir, channelDir);
  if (typeof read === 'string') return fail(io, read);
  const messages = since ? read.messages.filter((m) => m.at.getTime() >= since.getTime()) : read.messages;
  if (!messages.length)
    return fail(
      io,
      since ? `${read.name} has no messages since ${opts.since}` : `${read.name} has no messages${read.newOnly ? ' after the last condensation' : ''}`,
    );

  const settings = settingsFor(io, ['provider']);
  if (!settings) return 2;
  // 'fatal' unless LOG_LEVEL says otherwise: the command reports its own failure in one line, and
  // the store's log line for the same problem would say it twice, as raw JSON.
  const logger: Logger | null = quietLoggerFor(io, 'fatal');
  if (!logger) return 2;
  let runtime;
  try {
    runtime = await createRuntime(settings, logger);
  } catch (err) {
    if (err instanceof ProviderConfigError) return fail(io, err.message);
    throw err;
  }
  const base = path.basename(channelDir);
  // The name only labels logs and frontmatter here: the folder is given, never built from it.
  const ref: ChannelRef = { kind: 'local', name: isLocalName(base) ? base : 'cli' };
  const progress = (m: string) => io.stderr.write(`minutes condense: ${m}\n`);
  if (messages.length > 50) progress(`${messages.length} messages read`);

  let scratch: string | undefined;
  try {
    let workDir = channelDir;
    if (!opts.apply) {
      // Dry run: the same pipeline on a scratch copy of what it reads.
      scratch = await fsp.mkdtemp(path.join(os.tmpdir(), 'minutes-condense-'));
      workDir = path.join(scratch, 'channel');
      await copyForDryRun(channelDir, workDir);
    }
    const before = await listWatched(channelDir);
    const store = new FolderStore(workDir, { clock: runtime.clock, logger });
    const secretary = new Secretary({ deps: { model: runtime.model, store, logger, clock: runtime.clock }, onProgress: progress });
    const result = await secretary.condense({
      target: { ref, channelName: opts.channelName ?? base, trigger: 'explicit', topicHint: opts.topic },
      messages,
    });
    if (result.status === 'empty') return fail(io, 'the transcript has no human messages', 1);
    if (result.status === 'already') {
      io.stdout.write(`Already condensed: condensations/${result.entry.steps.filed ?? '?'} (ledger key ${result.key.slice(0, 12)}).\n`);
      return 0;
    }
    if (result.status === 'in-progress') {
      // A dead holder on this host was already taken over; this one is alive or on another host.
      const who = result.holder ? ` (pid ${result.holder.pid} on ${result.holder.host})` : '';
      return fail(
        io,
        `this discussion is being condensed by another process${who} until ${result.leaseUntil ?? 'its lease ends'}; ` +
          `if that process is gone, set the entry's "leaseUntil" to a past time in ${path.join(opts.channelDir, '.minutes', 'ledger.json')}, or wait`,
        1,
      );
    }
    if (result.status === 'failed') {
      // Paths in store messages are relative to the folder's parent; show them as the user gave the folder.
      const given = `${path.normalize(opts.channelDir).replace(/[\\/]+$/, '')}${path.sep}`;
      const asGiven = (m: string) => m.replace(new RegExp(`(^|[\\s(])${escapeRegExp(base + path.sep)}`, 'g'), (_all, lead: string) => lead + given);
      const said = result.userMessage.includes(result.error) ? result.userMessage : `${result.userMessage} (${result.error})`;
      return fail(io, asGiven(said), 1);
    }

    io.stdout.write(`${result.body}\n\n`);
    const after = await listWatched(workDir);
    const changed = [...after.keys()].filter((f) => WATCHED.test(f) && after.get(f) !== before.get(f)).sort();
    if (opts.apply) {
      io.stdout.write(`Wrote ${changed.length} file${changed.length === 1 ? '' : 's'} in ${channelDir}:\n${changed.map((f) => `  ${f}`).join('\n')}\n`);
    } else {
      for (const f of changed) io.stdout.write(unifiedDiff(before.get(f) ?? null, after.get(f) as string, f) + '\n');
      io.stdout.write('Dry run: nothing was written. Run again with --apply to write these changes.\n');
    }
    return 0;
  } finally {
    if (scratch) await fsp.rm(scratch, { recursive: true, force: true });
    await runtime.close();
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
