import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import type { FakeRequest } from '../fakes/model/types';
import { makeTmpDir } from '../helpers/tmp';
import { blocks, runCli } from '../helpers/cli';
import { condensedChannel } from '../helpers/condensedChannel';
import { secretaryModel } from '../condense/helpers';

/** Console mode shows the same drift line as Discord, citing the condensation file instead of a link. */
const isDrift = (r: { system: string }) => /check one chat message against decisions/.test(r.system);

const secretary = secretaryModel();

function model(req: FakeRequest): string | { text: string; delayMs: number } {
  if (/Secretary of a team/.test(req.system)) return secretary(req);
  if (isDrift(req)) {
    const input = req.messages[0].text;
    const message = /<message>\n([\s\S]*?)\n<\/message>/.exec(input)?.[1] ?? '';
    const postgres = /^- (d-[0-9a-f]{10}) \[[^\]]+\] [^:]+: .*Postgres.*$/m.exec(input)?.[1];
    return JSON.stringify({ contradicts: /mysql/i.test(message) ? (postgres ?? null) : null, why: '' });
  }
  return { text: 'Noted.', delayMs: 500 };
}

describe('drift notes in console mode', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(async () => {
    await fake?.close();
    tmp.cleanup();
  });

  async function run(config?: unknown) {
    const root = path.join(tmp.dir, 'data');
    const { dir } = await condensedChannel({ root, scratch: tmp.dir });
    fake = await startFakeModelServer({ handler: model as (req: FakeRequest) => string });
    const env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: root };
    if (config) {
      fs.writeFileSync(path.join(tmp.dir, 'minutes.config.json'), JSON.stringify(config));
      env.MINUTES_CONFIG = path.join(tmp.dir, 'minutes.config.json');
    }
    const input = ["let's keep the orders database in MySQL after all", 'we should move the orders database back to MySQL', 'lunch at noon?'];
    const r = await runCli(['chat', '--channel', 'orders'], { env, cwd: tmp.dir, input });
    const file = fs.readdirSync(path.join(dir, 'condensations')).find((f) => f.startsWith('2026-11-24'))!;
    return { b: blocks(r.stdout), file, dir, calls: fake.requests.filter(isDrift).length };
  }

  it('the line under the reply names the decision, its date and its file; the same decision is not raised again that day', async () => {
    const { b, file, dir, calls } = await run();
    expect(b[0]).toBe(
      `Noted.\n(This differs from a decision in force since 2026-11-24: “move the orders database to Postgres” (condensations/${file}). If that has changed, condense this discussion to record the new decision: minutes condense --channel-dir ${dir} --apply.)`,
    );
    expect(b[1]).toBe('Noted.');
    expect(b[2]).toBe('Noted.');
    expect(calls).toBe(1);
  });

  it('the command it suggests works as printed, from any folder', async () => {
    // A console channel whose decision was condensed from its own log, as a console user does it.
    const root = path.join(tmp.dir, 'data');
    fake = await startFakeModelServer({ handler: model as (req: FakeRequest) => string });
    const env: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: root };
    await runCli(['chat', '--channel', 'orders'], { env, cwd: tmp.dir, input: ['decision: move the orders database to Postgres'] });
    const dir = path.join(root, 'local', 'orders');
    expect((await runCli(['condense', '--channel-dir', dir, '--apply'], { env, cwd: tmp.dir })).code).toBe(0);
    const r1 = await runCli(['chat', '--channel', 'orders'], { env, cwd: tmp.dir, input: ["let's keep the orders database in MySQL after all"] });
    const command = /: (minutes condense [^)]*)\.\)$/.exec(blocks(r1.stdout)[0] ?? '')?.[1];
    expect(command).toBeDefined();
    const before = fs.readdirSync(path.join(dir, 'condensations')).length;
    const elsewhere = fs.mkdtempSync(path.join(tmp.dir, 'elsewhere-'));
    const r = await runCli(command!.split(' ').slice(1), { env, cwd: elsewhere });
    expect({ code: r.code, stderr: r.code ? r.stderr : '' }).toEqual({ code: 0, stderr: '' });
    expect(fs.readdirSync(path.join(dir, 'condensations'))).toHaveLength(before + 1);
  });

  it('discord.driftNotes: false turns it off here too', async () => {
    const { b, calls } = await run({ discord: { driftNotes: false } });
    expect(b[0]).toBe('Noted.');
    expect(calls).toBe(0);
  });
});
