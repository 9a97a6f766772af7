import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { CHAIN, writeDecisionChain } from '../helpers/decisionChain';
import { makeTmpDir } from '../helpers/tmp';

/**
 * `minutes decisions --channel-dir DIR --at YYYY-MM-DD`: the decisions in force at the end of that
 * UTC day, on a real channel folder whose orders database went MySQL → SQLite → Postgres: before the
 * first, on each day of a change, between changes and after the last.
 */
describe('minutes decisions --at', () => {
  const tmp = makeTmpDir('minutes-decisions-');
  const dir = path.join(tmp.dir, 'orders');
  writeDecisionChain(dir);
  afterAll(() => tmp.cleanup());

  async function inForce(at: string): Promise<string[]> {
    const r = await runCli(['decisions', '--channel-dir', dir, '--at', at, '--json'], { env: {}, cwd: tmp.dir });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const out = JSON.parse(r.stdout) as { at: string; in_force: Array<{ id: string }> };
    expect(out.at).toBe(at);
    return out.in_force.map((d) => d.id);
  }

  it('before, on and between the changes, and after the last', async () => {
    expect(await inForce('2025-01-09')).toEqual([]);
    expect(await inForce('2025-01-10')).toEqual([CHAIN.mysql]);
    expect(await inForce('2025-01-31')).toEqual([CHAIN.deploys, CHAIN.mysql]);
    // Replaced on 2025-02-01: at the end of that day the new one is in force, the old one not.
    expect(await inForce('2025-02-01')).toEqual([CHAIN.sqlite, CHAIN.deploys]);
    expect(await inForce('2025-03-04')).toEqual([CHAIN.sqlite, CHAIN.deploys]);
    expect(await inForce('2025-03-05')).toEqual([CHAIN.postgres, CHAIN.deploys]);
    expect(await inForce('2030-01-01')).toEqual([CHAIN.postgres, CHAIN.deploys]);
  });

  it('--json: what replaced each superseded decision and when, the constraints then, the current state once written', async () => {
    const r = await runCli(['decisions', '--channel-dir', dir, '--at', '2025-02-15', '--json'], { env: {}, cwd: tmp.dir });
    const out = JSON.parse(r.stdout);
    expect(out.in_force[0]).toEqual({
      id: CHAIN.sqlite,
      topic: 'Orders database',
      decision: 'the orders service stores its data in SQLite',
      date: '2025-02-01',
      condensation: `condensations/2025-02-01-${CHAIN.sqlite}.md`,
    });
    expect(out.superseded).toEqual([expect.objectContaining({ id: CHAIN.mysql, replaced_by: CHAIN.sqlite, replaced_on: '2025-02-01' })]);
    // The MySQL constraint lapsed with its decision; Postgres's is not set yet.
    expect(out.constraints).toEqual([]);
    expect(out.current_state).toBeUndefined();
    const later = JSON.parse((await runCli(['decisions', '--channel-dir', dir, '--at', '2025-03-05', '--json'], { env: {}, cwd: tmp.dir })).stdout);
    expect(later.constraints).toEqual([{ text: 'order writes stay under 50 ms at p99', since: '2025-03-05', decision_id: CHAIN.postgres }]);
    expect(later.current_state.date).toBe('2025-03-05');
    expect(later.superseded.map((d: { id: string }) => d.id)).toEqual([CHAIN.sqlite, CHAIN.mysql]);
  });

  it('as text: one decision a line, those replaced by then struck through with what replaced them', async () => {
    const r = await runCli(['decisions', '--channel-dir', dir, '--at', '2025-02-15'], { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        `Decisions in force at the end of 2025-02-15 (UTC) in ${dir}:`,
        `- [2025-02-01] Orders database: the orders service stores its data in SQLite (${CHAIN.sqlite})`,
        `- [2025-01-20] Deploy days: deploys happen on Tuesdays and Thursdays only, never on Fridays (${CHAIN.deploys})`,
        'Superseded by then:',
        `- ~~[2025-01-10] Orders database: the orders service stores its data in MySQL 8~~ → replaced by ${CHAIN.sqlite} on 2025-02-01 (${CHAIN.mysql})`,
        '',
      ].join('\n'),
    );
  });

  it('without --at: the decisions in force now', async () => {
    const r = await runCli(['decisions', '--channel-dir', dir, '--json'], { env: {}, cwd: tmp.dir });
    expect(JSON.parse(r.stdout).in_force.map((d: { id: string }) => d.id)).toEqual([CHAIN.postgres, CHAIN.deploys]);
  });

  it.each([
    ['a date that is not one', ['--at', '2025-02-30'], /^minutes decisions: --at: "2025-02-30" is not a date: give a day as YYYY-MM-DD/],
    ['a date-time', ['--at', '2025-02-01T10:00'], /is not a date/],
    ['a folder that does not exist', ['--channel-dir', 'nowhere'], /^minutes decisions: .*nowhere does not exist/],
  ])('refuses %s in one line, exit 2', async (_what, args, want) => {
    const argv = args[0] === '--channel-dir' ? ['decisions', ...args] : ['decisions', '--channel-dir', dir, ...args];
    const r = await runCli(argv, { env: {}, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(want);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a folder with nothing condensed says so; a context.json that does not parse is named with the fix', async () => {
    const empty = path.join(tmp.dir, 'empty');
    fs.mkdirSync(empty);
    const none = await runCli(['decisions', '--channel-dir', empty, '--at', '2025-01-01'], { env: {}, cwd: tmp.dir });
    expect(none).toMatchObject({ code: 0, stdout: '' });
    expect(none.stderr).toBe('minutes decisions: no decision has been condensed here yet (no .minutes/context.json)\n');
    const broken = path.join(tmp.dir, 'broken');
    fs.mkdirSync(path.join(broken, '.minutes'), { recursive: true });
    fs.writeFileSync(path.join(broken, '.minutes', 'context.json'), '{"version": 1,');
    const bad = await runCli(['decisions', '--channel-dir', broken], { env: {}, cwd: tmp.dir });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^minutes decisions: .*context\.json is not valid JSON .*; fix or remove it\n$/);
  });
});
