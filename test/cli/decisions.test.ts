import fs from 'node:fs';
import path from 'node:path';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { confirmDecision, reopenDecision } from '../../src/condense/knowledge/ratify';
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
      status: 'proposed',
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
        `- [2025-02-01] Orders database: the orders service stores its data in SQLite (${CHAIN.sqlite}) — proposed`,
        `- [2025-01-20] Deploy days: deploys happen on Tuesdays and Thursdays only, never on Fridays (${CHAIN.deploys}) — proposed`,
        'Superseded by then:',
        `- ~~[2025-01-10] Orders database: the orders service stores its data in MySQL 8~~ → replaced by ${CHAIN.sqlite} on 2025-02-01 (${CHAIN.mysql})`,
        '',
      ].join('\n'),
    );
  });

  it('says what members said of each decision by then: ratified by whom, reopened by whom (issue 43 §1)', async () => {
    const ratified = path.join(tmp.dir, 'ratified');
    writeDecisionChain(ratified);
    const file = path.join(ratified, '.minutes', 'context.json');
    const clicked = [
      (d: ContextData) => confirmDecision(d, CHAIN.postgres, { id: '111', name: 'Ana Lopez' }, new Date('2025-03-07T10:00:00Z')),
      (d: ContextData) => reopenDecision(d, CHAIN.deploys, { id: '222', name: 'Ben' }, new Date('2025-03-08T09:00:00Z')),
    ].reduce(
      (d, click) => {
        const r = click(d);
        if (!r.ok) throw new Error(r.why);
        return r.data;
      },
      ContextData.parse(JSON.parse(fs.readFileSync(file, 'utf8'))),
    );
    fs.writeFileSync(file, JSON.stringify(clicked));
    const text = await runCli(['decisions', '--channel-dir', ratified, '--at', '2025-03-08'], { env: {}, cwd: tmp.dir });
    expect(text.stdout.split('\n').slice(1, 3)).toEqual([
      `- [2025-03-05] Orders database: the orders service stores its data in Postgres 16, with nightly backups (${CHAIN.postgres}) — ratified by Ana Lopez (2025-03-07)`,
      `- [2025-01-20] Deploy days: deploys happen on Tuesdays and Thursdays only, never on Fridays (${CHAIN.deploys}) — disputed: reopened by Ben (2025-03-08)`,
    ]);
    const json = JSON.parse((await runCli(['decisions', '--channel-dir', ratified, '--json'], { env: {}, cwd: tmp.dir })).stdout);
    expect(json.in_force[0]).toMatchObject({ status: 'ratified', ratified_by: 'Ana Lopez', ratified_by_id: '111', ratified_on: '2025-03-07' });
    expect(json.in_force[1]).toMatchObject({ status: 'disputed', disputed_by: 'Ben' });
    expect(json.superseded.map((d: { status: string }) => d.status)).toEqual(['superseded', 'superseded']);
    const before = JSON.parse((await runCli(['decisions', '--channel-dir', ratified, '--at', '2025-03-06', '--json'], { env: {}, cwd: tmp.dir })).stdout);
    expect(before.in_force.map((d: { status: string }) => d.status)).toEqual(['proposed', 'proposed']);
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
