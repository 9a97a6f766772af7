import fs from 'node:fs';
import { dataRootProblem } from '../../memory/dataRoot';
import path from 'node:path';
import { auditChannel, auditIsClean, ChannelAudit, formatAudit, listChannelRefs } from '../../condense/audit/audit';
import { FolderStore } from '../../condense/saga/folderStore';
import { KEPT_ASIDE_FIX, keptAsideIn } from '../../memory/keptAside';
import { refLabel } from '../../memory/paths';
import { ChannelStore } from '../../memory/store';
import type { CliIO } from '../../shared/cliIO';
import { quietLoggerFor } from './quietLogger';
import { settingsFor } from './common';

/**
 * `minutes audit [--fix] [--channel-dir DIR]`: the files part of the Secretary's audit over every
 * channel of the data folder (or one folder). Exit code 0 when nothing is left to repair, 1 when
 * something is, so a cron job or CI can alert on it. With DISCORD_TOKEN set (and no --channel-dir)
 * it also logs in and lists resolved threads without a condensation (auditDiscord.ts).
 */
export interface AuditCliOptions {
  fix?: boolean;
  channelDir?: string;
}

export async function runAudit(opts: AuditCliOptions, io: CliIO): Promise<number> {
  const settings = settingsFor(io, []);
  if (!settings) return 2;
  const logger = quietLoggerFor(io);
  if (!logger) return 2;
  const withDiscord = Boolean((io.env.DISCORD_TOKEN ?? '').trim()) && !opts.channelDir;
  // "All 0 channel folders are consistent" for a mistyped path would hide the mistake.
  const rootProblem = opts.channelDir ? null : dataRootProblem(settings.dataDir, '--channel-dir');
  if (rootProblem) {
    io.stderr.write(`minutes audit: ${rootProblem}\n`);
    return 2;
  }
  // One folder is checked from its files alone; the Discord part is only for the whole data root.
  if (!opts.channelDir && !(io.env.DISCORD_TOKEN ?? '').trim()) {
    io.stderr.write('minutes audit: DISCORD_TOKEN is not set: checking the files only (threads without a condensation are not checked)\n');
  }
  const now = new Date();
  const audits: ChannelAudit[] = [];
  const keptLines: string[] = [];
  if (opts.channelDir) {
    const dir = path.resolve(io.cwd, opts.channelDir);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      io.stderr.write(`minutes audit: --channel-dir is not a folder: ${opts.channelDir}\n`);
      return 2;
    }
    const store = new FolderStore(dir, { logger });
    audits.push({
      ...(await auditChannel({ store, ref: { kind: 'local', name: 'channel' }, fix: opts.fix, now, staleActionDays: settings.config.actions.staleAfterDays })),
      channel: opts.channelDir,
    });
    keptLines.push(...(await keptAsideLines(opts.channelDir, dir)));
  } else {
    const store = new ChannelStore({ root: settings.dataDir, logger });
    for (const ref of await listChannelRefs(settings.dataDir)) {
      audits.push(await auditChannel({ store, ref, fix: opts.fix, now, staleActionDays: settings.config.actions.staleAfterDays }));
      // A channel's folder holds its threads' too: a private thread's copies are listed with it.
      if (!ref.threadId) keptLines.push(...(await keptAsideLines(refLabel(ref), store.paths(ref).channelDir)));
    }
  }
  // Reported, not failing: the damaged file was rewritten from what could be read (doctor counts them).
  const lines = [...audits.flatMap(formatAudit), ...keptLines];
  let missing = 0;
  if (withDiscord) {
    const discord = settingsFor(io, ['discord']);
    if (!discord) return 2;
    const { auditDiscord } = await import('./auditDiscord');
    const found = await auditDiscord(discord, opts.fix === true, logger);
    lines.push(...found.lines);
    missing = found.unqueued;
  }
  io.stdout.write(
    lines.length
      ? `${lines.join('\n')}\n`
      : audits.length === 0
        ? `No channel folders in ${settings.dataDir} yet: the bot makes one the first time it answers in a channel.\n`
        : audits.length === 1
          ? 'The channel folder is consistent.\n'
          : `All ${audits.length} channel folders are consistent.\n`,
  );
  const remaining = audits.some(
    (a) =>
      !auditIsClean(a) &&
      ((a.context && !a.contextFixed) ||
        a.unfolded.length > 0 ||
        a.malformed.length > 0 ||
        a.missing.length > 0 ||
        a.staleLines.some((s) => !s.fixed && !s.unfixable)),
  );
  return remaining || missing > 0 ? 1 : 0;
}

/** The copies kept aside of damaged files in a channel's folders, one line each with what to do. */
async function keptAsideLines(label: string, channelDir: string): Promise<string[]> {
  return (await keptAsideIn(channelDir)).map((f) => `${label}: ${f} is a copy kept of a damaged file: ${KEPT_ASIDE_FIX}`);
}
