import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { runCli } from '../helpers/cli';
import { condensedChannel } from '../helpers/condensedChannel';
import { makeTmpDir } from '../helpers/tmp';
import { startDashboard } from '../dashboard/helpers';

/**
 * A channel made only by Minutes itself (`minutes condense --apply`, twice: a decision, then one
 * that replaces it, with action items) must pass `minutes audit`, and keep passing when the folder
 * is copied or its files are touched; a CONTEXT.md that really misses a condensation is still found.
 */
describe('audit of a channel made by minutes condense', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let root: string;
  let chan: string;
  beforeEach(() => {
    tmp = makeTmpDir();
    root = path.join(tmp.dir, 'channels');
    chan = path.join(root, 'local', 'orders');
  });
  afterEach(() => tmp.cleanup());

  const buildChannel = () => condensedChannel({ root, scratch: tmp.dir });
  const audit = (dataDir = root) => runCli(['audit'], { env: { MINUTES_DATA_DIR: dataDir }, cwd: tmp.dir });

  it("passes: the new decision's own action item is not a restatement of the one it replaced", async () => {
    await buildChannel();
    const memory = fs.readFileSync(path.join(chan, 'MEMORY.md'), 'utf8');
    // The scenario is what it claims: the item names the old database and is the new decision's own.
    expect(memory).toMatch(/^- \[m-[0-9a-f]{6}\] Action item a-[0-9a-f]{6} \(Database choice\): migrate the orders tables off MySQL/m);
    const r = await audit();
    expect(r.stdout).toBe('The channel folder is consistent.\n');
    expect(r.code).toBe(0);
  });

  it('still reports a stale restatement that a person wrote by hand', async () => {
    await buildChannel();
    fs.appendFileSync(path.join(chan, 'MEMORY.md'), '- The orders database tables are kept in MySQL\n');
    const r = await audit();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/local\/orders: MEMORY\.md:\d+ still states superseded decision d-[0-9a-f]{10} .*"The orders database tables are kept in MySQL"/);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
  });

  it("reports, in one line with the fix, a decision in force whose condensation file was deleted; a superseded one's is not its business", async () => {
    await buildChannel();
    const ctx = JSON.parse(fs.readFileSync(path.join(chan, '.minutes', 'context.json'), 'utf8')) as { decisions: { file?: string; supersededBy?: string }[] };
    const current = ctx.decisions.find((d) => !d.supersededBy && d.file)!.file!;
    const replaced = ctx.decisions.find((d) => d.supersededBy && d.file)!.file!;
    fs.rmSync(path.join(chan, 'condensations', replaced));
    expect((await audit()).code).toBe(0);
    fs.rmSync(path.join(chan, 'condensations', current));
    const r = await audit();
    expect(r.code).toBe(1);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^local/orders: condensations/${current.replace(/\./g, '\\.')} of decision d-[0-9a-f]{10} in force is missing .*— restore it`),
    );
    // The dashboard's home page, whose link to it would answer 404, flags it too.
    const dash = await startDashboard(root);
    try {
      const home = await (await fetch(dash.url)).text();
      expect(home).toContain('1 decision(s) in force whose condensation file is missing');
    } finally {
      await dash.close();
    }
  });

  it('an action item with its due date in its words shows the date once', async () => {
    await buildChannel();
    const context = fs.readFileSync(path.join(chan, 'CONTEXT.md'), 'utf8');
    const item = context.split('\n').find((l) => l.includes('migrate the orders tables'))!;
    expect(item).toMatch(/^- `a-[0-9a-f]{6}` migrate the orders tables off MySQL due 2026-12-01 — bo _\(from 2026-11-24\)_$/);
    const memItem = fs
      .readFileSync(path.join(chan, 'MEMORY.md'), 'utf8')
      .split('\n')
      .find((l) => l.includes('migrate the orders tables'))!;
    expect(memItem.match(/2026-12-01/g)).toHaveLength(1);
    // A due date the words only imply ("by Friday") is still spelled out.
    const first = JSON.parse(fs.readFileSync(path.join(chan, '.minutes', 'context.json'), 'utf8')).actions.find((i: { text: string }) =>
      i.text.includes('replicas'),
    );
    expect(first.due).toBe('2026-11-27');
  });

  it('a copy made with cp -r, and touched condensations, still pass: staleness is judged by content, not file times', async () => {
    await buildChannel();
    const copy = path.join(tmp.dir, 'copy');
    execFileSync('cp', ['-r', root, copy]);
    const future = new Date(Date.now() + 3_600_000);
    const past = new Date(Date.now() - 86_400_000);
    for (const base of [root, copy]) {
      const c = path.join(base, 'local', 'orders');
      fs.utimesSync(path.join(c, 'CONTEXT.md'), past, past);
      for (const f of fs.readdirSync(path.join(c, 'condensations'))) fs.utimesSync(path.join(c, 'condensations', f), future, future);
    }
    for (const base of [root, copy]) {
      const r = await audit(base);
      expect(r.stdout).toBe('The channel folder is consistent.\n');
      expect(r.code).toBe(0);
    }
  });

  it('a CONTEXT.md that misses a condensation is still reported', async () => {
    const { afterFirst } = await buildChannel();
    // An old CONTEXT.md put back (a restore from a backup): context.json knows more than it shows.
    fs.writeFileSync(path.join(chan, 'CONTEXT.md'), afterFirst['CONTEXT.md']);
    let r = await audit();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/local\/orders: CONTEXT\.md is out of date with \.minutes\/context\.json/);

    // Both put back: the second condensation is filed but folded nowhere.
    fs.writeFileSync(path.join(chan, '.minutes', 'context.json'), afterFirst[path.join('.minutes', 'context.json')]);
    r = await audit();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/local\/orders: condensations\/2026-11-24-database-choice\.md is not folded into CONTEXT\.md/);

    // Its file gone too: the ledger still knows it was filed.
    fs.rmSync(path.join(chan, 'condensations', '2026-11-24-database-choice.md'));
    r = await audit();
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/local\/orders: condensations\/2026-11-24-database-choice\.md is not folded into CONTEXT\.md/);
  });
});
