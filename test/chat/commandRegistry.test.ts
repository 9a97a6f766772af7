import { COMMANDS } from '../../src/chat/commandList';
import { answerIsPrivate, mayRun } from '../../src/chat/commandRegistry';

/** Every command and subcommand, as `name` or `name sub`. */
const invocations = COMMANDS.flatMap((c) => (c.subcommands ? c.subcommands.map((s) => ({ c, sub: s.name as string | null })) : [{ c, sub: null }]));
const label = ({ c, sub }: { c: (typeof COMMANDS)[number]; sub: string | null }) => (sub ? `${c.name} ${sub}` : c.name);

describe('the command registry', () => {
  it('keeps who may run what and who sees the answer as the slash commands had them', () => {
    // The tables slash.ts held before the registry (issue 42), and /decisions and /catchup (issue 43: the asker's alone).
    const ephemeral = [
      'recall',
      'memory show',
      'status',
      'condensations',
      'thread',
      'actions',
      'questions',
      'playbooks',
      'pack list',
      'pack explain',
      'decisions',
      'catchup',
    ];
    const adminOnly = ['new', 'pack create', 'pack activate', 'pack deactivate', 'pack refresh', 'pack delete'];
    expect(invocations.filter((i) => !mayRun(i.c, i.sub, false)).map(label)).toEqual(adminOnly);
    expect(
      invocations
        .filter((i) => answerIsPrivate(i.c, i.sub, false))
        .map(label)
        .sort(),
    ).toEqual([...ephemeral].sort());
  });

  it("an admin may run everything; a refusal is only the asker's", () => {
    for (const i of invocations) {
      expect([label(i), mayRun(i.c, i.sub, true)]).toEqual([label(i), true]);
      expect([label(i), answerIsPrivate(i.c, i.sub, true)]).toEqual([label(i), true]);
    }
  });

  it('a whole admin command has no admin subcommands of its own to check, and every command says how the console reads it', () => {
    for (const c of COMMANDS) {
      if (c.access === 'admin') expect(c.subcommands ?? []).toEqual([]);
      expect(c.console.usage.length).toBeGreaterThan(0);
      for (const [syntax] of c.console.usage) expect(syntax.startsWith(`/${c.name}`)).toBe(true);
    }
  });
});
