import fs from 'node:fs';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { PROJECT_ROOT } from '../config/load';
import type { CliIO } from '../shared/cliIO';

/**
 * The `minutes` command. Each subcommand's module is required only when it runs, so `recall`
 * starts without loading discord.js or a model SDK.
 */
export function defaultIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin, env: process.env, cwd: process.cwd(), projectRoot: PROJECT_ROOT };
}

export async function run(argv: string[], io: CliIO = defaultIO()): Promise<number> {
  let exitCode = 0;
  const program = new Command();
  program
    .name('minutes')
    .description('A Discord bot with per-channel memory. Logs go to stderr; command output to stdout.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  program
    .command('start')
    .description('log in to Discord and serve (needs DISCORD_TOKEN and a model provider)')
    .option(
      '--shards <n>',
      "run n shard processes, each serving its share of the servers ('auto': Discord's recommended count); with --total-shards, this host's shard ids (0-3,8)",
      parseShardsArg,
    )
    .option('--total-shards <n>', "the bot's shard count over all hosts, when --shards lists only this host's", parseIntArg)
    .option('--reshard', "the server folders have been moved for a new shard layout: start it and record it (see 'minutes shards plan')")
    .action(async (opts) => {
      const m = await import('./commands/start');
      exitCode = await m.runStart(opts, io);
    });

  program
    .command('recall')
    .description('print what targeted recall would inject for a query (reads only the given folders)')
    .requiredOption('--channel-dir <dir>', 'a channel folder (any name; SESSION.md, MEMORY.md, HISTORY.md, condensations/)')
    .option('--workspace <dir>', 'a workspace folder whose MEMORY.md is also a candidate source')
    .option('--query <text>', 'one query')
    .option('--queries <file>', 'JSONL of {"id","query"}; prints one JSON line per query')
    .option('--budget-chars <n>', 'character budget of the recall block', parseIntArg)
    .option('--max-items <n>', 'maximum number of recalled items', parseIntArg)
    .option('--now <date>', 'the current date or date-time (recall does not rank by date; kept for scripts that pass it)')
    .option('--json', 'print the result as one JSON line')
    .option('--explain', 'also say why: each line\'s words and meaning, or the gate that kept recall silent (with --json: "explain")')
    .option('--semantic <mode>', 'off (words only), local (the packaged sentence model) or api (OpenAI-compatible /v1/embeddings)', 'local')
    .option('--vector-cache <dir>', 'where vectors are cached (default: MINUTES_VECTOR_CACHE, else ~/.cache/minutes/vectors)')
    .action(async (opts) => {
      const m = await import('./commands/recall');
      exitCode = await m.runRecall(opts, io);
    });

  program
    .command('search')
    .description('ranked lines of a channel folder that share a word or a meaning with a query (never abstains)')
    .requiredOption('--channel-dir <dir>', 'a channel folder (any name; SESSION.md, MEMORY.md, HISTORY.md, condensations/)')
    .requiredOption('--query <text>', 'the words to look for')
    .option('--workspace <dir>', 'a workspace folder whose MEMORY.md is also searched')
    .option('--limit <n>', 'at most this many matches (default 10, at most 100)', parseIntArg)
    .option('--json', 'print one JSON line: {"items": [...]}')
    .option('--semantic <mode>', 'off (words only), local (the packaged sentence model) or api (OpenAI-compatible /v1/embeddings)', 'local')
    .option('--vector-cache <dir>', 'where vectors are cached (default: MINUTES_VECTOR_CACHE, else ~/.cache/minutes/vectors)')
    .action(async (opts) => {
      const m = await import('./commands/search');
      exitCode = await m.runSearch(opts, io);
    });

  program
    .command('chat')
    .description('console mode: talk to a local channel in this terminal (needs a model provider)')
    .requiredOption('--channel <name>', 'local channel name (lowercase letters, digits, - and _)')
    .action(async (opts) => {
      const m = await import('./commands/chat');
      exitCode = await m.runChat(opts, io);
    });

  program
    .command('condense')
    .description("condense a transcript file, or the channel's own log, into a channel folder offline (dry run unless --apply; needs a model provider)")
    .requiredOption('--channel-dir <dir>', 'the channel folder (any name): CONTEXT.md, MEMORY.md, HISTORY.md, condensations/')
    .option('--transcript <file>', 'JSONL of {"author", "timestamp", "content"} (default: the channel\'s own log.jsonl, after its last condensation)')
    .option('--since <date>', 'only messages at or after this date or date-time')
    .option('--apply', 'write the files (under the channel lock); without it, print what would change')
    .option('--topic <text>', 'topic hint for the condensation')
    .option('--channel-name <name>', 'the name shown as #channel (default: the folder name)')
    .action(async (opts) => {
      const m = await import('./commands/condense');
      exitCode = await m.runCondense(opts, io);
    });

  program
    .command('audit')
    .description('check CONTEXT.md and memory files against the condensations (files only without DISCORD_TOKEN)')
    .option('--fix', 're-render stale CONTEXT.md files and mark stale MEMORY.md lines superseded')
    .option('--channel-dir <dir>', 'audit one channel folder instead of the whole data folder')
    .action(async (opts) => {
      const m = await import('./commands/audit');
      exitCode = await m.runAudit(opts, io);
    });

  program
    .command('decisions')
    .description("a channel folder's decisions in force at the end of a day (UTC), from its context.json, and those replaced by then")
    .requiredOption('--channel-dir <dir>', 'the channel folder (any name) whose .minutes/context.json holds its decisions')
    .option('--at <date>', 'YYYY-MM-DD: the end of that day, UTC (default: now)')
    .option('--json', 'print one JSON line: {"at", "in_force": [...], "superseded": [...], "constraints": [...]}')
    .action(async (opts) => {
      const m = await import('./commands/decisions');
      exitCode = await m.runDecisions(opts, io);
    });

  program
    .command('dashboard')
    .description('a read-only web page over the data root: decisions, supersessions, memory, search')
    .option('--port <n>', 'port (default 8787)', parseIntArg)
    .option('--host <host>', 'address to bind (default 127.0.0.1; others need MINUTES_DASHBOARD_TOKEN)')
    .option('--include-private', 'show private threads too (left out by default)')
    .option('--trust-proxy <addresses>', "your reverse proxy's IP address(es), comma-separated: its X-Forwarded-Proto: https makes the token's cookie Secure")
    .option('--semantic <mode>', 'recall meaning for search: off, local or api (default: the config, as the bot)')
    .action(async (opts) => {
      const m = await import('./commands/dashboard');
      exitCode = await m.runDashboard(opts, io);
    });

  const pack = program.command('pack').description('context packages: memory gathered from one conversation, to activate in others of the same server');
  const dataDir = ['--data-dir <dir>', 'the data root (default: MINUTES_DATA_DIR, else ./channels)'] as const;
  const server = ['--server <id>', "whose package: 'local' (console channels) or a Discord server id (default: the one server that has it)"] as const;
  const semantic = ['--semantic <mode>', 'off (words only), local (the packaged sentence model) or api, for a query recipe', 'local'] as const;
  pack
    .command('create <name>')
    .description("make a package from a channel folder's memory: a query, named items, or both, within a budget")
    .requiredOption(
      '--channel-dir <dir>',
      'the conversation to gather from: <guild>/<channel>, <guild>/<channel>/threads/<thread> or local/<name> in the data root',
    )
    .option('--query <text>', "what to look for (recall's search over MEMORY, SESSION, HISTORY, condensations, and CONTEXT.md)")
    .option('--item <id>', 'a named item: a MEMORY.md entry id, a condensation file, CONTEXT.md#section (repeatable)', collect, [])
    .option('--max-items <n>', 'at most this many items (default 8)', parseIntArg)
    .option('--max-tokens <n>', 'at most about this many tokens (default 1200)', parseIntArg)
    .option('--title <text>', 'a title (default: the name)')
    .option('--intent <text>', 'what it is for')
    .option('--include-private', "gather a private thread's folder (refused by default; the package is usable only in that thread)")
    .option(...dataDir)
    .option(...semantic)
    .option('--vector-cache <dir>', 'where vectors are cached (default: MINUTES_VECTOR_CACHE, else ~/.cache/minutes/vectors)')
    .action(async (name, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackCreate(name, opts, io);
    });
  pack
    .command('explain <name>')
    .description('what a package holds and why: items, the recipe that picked each, provenance, size, where it is active')
    .option('--json', 'print one JSON line')
    .option('--include-private', "show a private thread's package (refused by default)")
    .option(...dataDir)
    .option(...server)
    .action(async (name, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackExplain(name, opts, io);
    });
  pack
    .command('list')
    .description("every server's packages")
    .option('--json', 'print one JSON line: {"packages": [...]}')
    .option('--include-private', "list private threads' packages too (left out by default)")
    .option(...dataDir)
    .option(...server)
    .action(async (opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackList(opts, io);
    });
  pack
    .command('refresh <name>')
    .description('run its recipes again and show the difference')
    .option(...dataDir)
    .option(...server)
    .option(...semantic)
    .option('--vector-cache <dir>', 'where vectors are cached (default: MINUTES_VECTOR_CACHE, else ~/.cache/minutes/vectors)')
    .action(async (name, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackRefresh(name, opts, io);
    });
  pack
    .command('delete <name>')
    .description('deactivate it everywhere, then remove it')
    .option(...dataDir)
    .option(...server)
    .action(async (name, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackDelete(name, opts, io);
    });
  pack
    .command('export <name>')
    .description('the package as one readable file (stdout, or --out)')
    .option('--out <file>', 'write it to this file')
    .option(...dataDir)
    .option(...server)
    .action(async (name, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackExport(name, opts, io);
    });
  pack
    .command('import <file>')
    .description('add an exported package, checked (size, format, signature, secrets); a bad file changes nothing')
    .option(...dataDir)
    .option('--server <id>', "into which server: 'local' or a Discord server id (default: the one it was exported from)")
    .option('--trust', 'take in a file this data root did not sign (another data root exported it); it is marked as imported')
    .action(async (file, opts) => {
      const m = await import('./commands/pack');
      exitCode = await m.runPackImport(file, opts, io);
    });

  program
    .command('mcp')
    .description(
      'a read-only Model Context Protocol server over stdio (or --http) for coding agents: channels, CONTEXT.md, decisions, action items, search, check_plan',
    )
    .option('--data-dir <dir>', 'the data root (default: MINUTES_DATA_DIR, else ./channels)')
    .option('--channels <keys>', 'show only these channel keys, comma-separated (<guild>/<channel>, <guild>/<channel>/<thread>, local/<name>)')
    .option('--include-private', 'serve private threads too (left out by default)')
    .option('--semantic <mode>', 'recall meaning for search: off, local or api (default: the config, as the bot)')
    .option('--http <host:port>', 'serve over Streamable HTTP at http://HOST:PORT/mcp instead of stdio (loopback; other addresses need MINUTES_MCP_TOKEN)')
    .action(async (opts) => {
      const m = await import('./commands/mcp');
      exitCode = await m.runMcp(opts, io);
    });

  program
    .command('doctor')
    .description('check the token, intents, channel permissions, the provider, the data root and the config')
    .action(async () => {
      const m = await import('./commands/doctor');
      exitCode = await m.runDoctor(io);
    });

  const shards = program.command('shards').description('split the bot over several hosts: plan the server folders each holds, check a data root');
  shards
    .command('plan')
    .description('for a new shard count and host split: the shards and server folders of each host, and which folders move')
    .requiredOption('--total <n>', 'the new shard count', parseIntArg)
    .requiredOption('--hosts <n>', 'how many hosts run them', parseIntArg)
    .option('--data-dir <dir...>', "today's data roots, host 0's first (the i-th becomes host i's)")
    .option('--json', 'print one JSON line: {"total", "hosts": [{"host", "shards", "guilds"}], "moves": [{"guild", "from", "to", "bytes"}]}')
    .action(async (opts) => {
      const m = await import('./commands/shards');
      exitCode = await m.runShardsPlan(opts, io);
    });
  shards
    .command('check')
    .description("whether a data root holds only the servers of the shards it records (exit 1 when it holds others')")
    .option('--data-dir <dir>', 'the data root (default: MINUTES_DATA_DIR, else ./channels)')
    .option('--json', 'print one JSON line: {"dataDir", "total", "shards", "guilds", "strays": [{"guild", "bytes", "shard"}]}')
    .action(async (opts) => {
      const m = await import('./commands/shards');
      exitCode = await m.runShardsCheck(opts, io);
    });

  try {
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit through here with code 0; commander has already printed the
      // message for anything else, which is a usage error (2, like the commands' own checks).
      return err.exitCode === 0 ? 0 : 2;
    }
    throw err;
  }
  return exitCode;
}

/** package.json's, read where the command is installed, so a build and its version never disagree. */
function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A count, 'auto' or a list of ids: which one it must be depends on --total-shards (commands/start.ts). */
function parseShardsArg(value: string): string {
  if (value === 'auto' || /^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value)) return value;
  throw new InvalidArgumentError("expected a positive whole number or 'auto' (or this host's shard ids, such as 0-3,8, with --total-shards).");
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function parseIntArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) {
    throw new InvalidArgumentError('expected a positive whole number.');
  }
  return n;
}
