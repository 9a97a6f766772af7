import type { Runtime } from '../app/runtime';
import { commandNamed, COMMANDS } from '../chat/commandList';
import { Asker, CommandServices, runCommand, usageLines } from '../chat/commandRegistry';
import { runChannelCommand } from '../chat/commands';
import { runPack } from '../chat/packCommands';
import { ActionCommands } from '../condense/knowledge/actionCommands';
import { KnowledgeCommands } from '../condense/knowledge/knowledgeCommands';
import { listCondensations } from '../condense/saga/listing';
import { DecisionCommands } from '../condense/saga/decisionCommands';
import type { ChannelRef } from '../memory/paths';

/**
 * The registry's commands at the console (chat/commandList.ts), the same ones Discord registers: a
 * line `/name words…` is read by the command's console grammar and run by its handler. The console's
 * user runs the bot, so an admin. What needs Discord (a thread to condense from its messages or to
 * archive, a thread to open) answers with what does it here.
 */

/** What `/help` prints; also the list the banner and an unknown command point to. */
export const HELP = [
  'Type a message to talk to the model. Commands:',
  ...usageLines(COMMANDS),
  '  /help                  this list',
  'Start a line with a space to send a /word as a message. Ctrl-D (end of input) quits.',
].join('\n');

/**
 * The console's services for the registry's handlers. `indexed` is the first indexing of the
 * channel's lines: /recall and /pack wait for it, so the first query finds what the second would.
 */
export function consoleServices(o: { runtime: Runtime; channelDir: string; indexed: Promise<unknown> }): CommandServices {
  const { store, engine, clock, usage, upkeep, logger, recall } = o.runtime;
  const condenseHere = `minutes condense --channel-dir ${shellWord(o.channelDir)} --apply`;
  return {
    channel: async (ref, actor, command) => {
      if (command.name === 'recall') await o.indexed;
      return runChannelCommand({ store, engine, clock, usage, upkeep }, ref, actor, command);
    },
    secretary: {
      condense: () =>
        Promise.resolve(
          `At the console, a discussion is condensed from its log by the command line: ${condenseHere} (without --apply it shows the draft first).`,
        ),
      resolve: () =>
        Promise.resolve(`/resolve condenses a Discord thread, then archives it; a console channel has no threads. Condense it with: ${condenseHere}`),
      list: (ref) => listCondensations(store.paths(ref).condensations),
      decisionsAt: (ref, at) => new DecisionCommands({ store, clock }).decisionsAt(ref, at),
    },
    threads: { open: () => Promise.resolve("Threads are Discord's: at the console a separate topic is a separate channel (minutes chat --channel NAME).") },
    actions: new ActionCommands({ store, logger, clock }),
    knowledge: new KnowledgeCommands({ store, logger, clock }),
    packs: {
      command: async (ref, req, asker) => {
        await o.indexed;
        // A refusal is a PackageError: its one line is printed as the console's errors are.
        return runPack({ store, search: (r) => recall.search(r), clock, actor: asker.name, isAdmin: asker.admin }, ref, req);
      },
    },
  };
}

/** Runs `/name words…` through the registry: its text, or null when no command has that name. */
export async function runConsoleCommand(name: string, args: string, o: { ref: ChannelRef; asker: Asker; services: CommandServices }): Promise<string | null> {
  const spec = commandNamed(name);
  if (!spec) return null;
  const parsed = spec.console.parse ? spec.console.parse(args) : { options: {} };
  if ('answer' in parsed) return parsed.answer;
  const text = await runCommand(spec, { ref: o.ref, sub: parsed.sub ?? null, options: parsed.options, asker: o.asker }, o.services);
  return text ?? `error: only an admin can run /${name}`;
}

/** A path as one shell word, quoted only when it needs to be. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
