import fs from 'node:fs';
import path from 'node:path';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { DEFAULT_MODELS } from '../../src/llm/provider';
import { PACKAGES_NOTE } from '../../src/prompt/packagesBlock';
import { blocks, runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');

let fake: FakeModelServer;
let tmp: ReturnType<typeof makeTmpDir>;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  tmp = makeTmpDir();
  fake = await startFakeModelServer({ minCacheableTokens: 50 });
  fake.setHandler(() => 'noted');
  const root = path.join(tmp.dir, 'data');
  fs.cpSync(EXAMPLE, path.join(root, 'local', 'orders-team'), { recursive: true });
  // Words only: these tests are about the prompt, not meaning (the sentence model costs a worker).
  fs.writeFileSync(path.join(tmp.dir, 'minutes.config.json'), JSON.stringify({ recall: { semantic: 'off' } }));
  env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL, MINUTES_DATA_DIR: root };
});
afterEach(async () => {
  await fake.close();
  tmp.cleanup();
});

const chatRequests = () => fake.requests.filter((r) => r.model === DEFAULT_MODELS.anthropic.chat);
const console_ = (channel: string, input: string[]) => runCli(['chat', '--channel', channel], { env, cwd: tmp.dir, input });

/** The system blocks up to and including the last one marked for the cache: the stable part. */
function stablePart(body: { system: { text: string; cache_control?: unknown }[] }): string {
  const last = body.system.map((b) => Boolean(b.cache_control)).lastIndexOf(true);
  return body.system
    .slice(0, last + 1)
    .map((b) => b.text)
    .join('\u0000');
}

describe('/pack in console mode', () => {
  it("a package made in one channel and activated in another rides in that channel's stable prompt part, byte-identical turn to turn, until deactivated", async () => {
    const made = await console_('orders-team', ['/pack create orders-db --item m-e0a003 --max-items 4 which database do the orders use']);
    const [created] = blocks(made.stdout);
    expect(created).toMatch(/^Created package orders-db from local\/orders-team: 4 items/);
    expect(fake.requests).toHaveLength(0);

    const r = await console_('billing', [
      '/pack list',
      '/pack activate orders-db',
      'how should billing read orders?',
      'and the invoices?',
      '/pack deactivate orders-db',
      'one more',
    ]);
    const b = blocks(r.stdout);
    expect(b[0]).toMatch(/^orders-db: orders-db \(from local\/orders-team; 4 items, ~\d+ tokens\)\nActive here: none$/);
    expect(b[1]).toMatch(/^Activated package orders-db here: its 4 items/);
    expect(b[4]).toBe("Deactivated package orders-db here: its items leave this conversation's prompt.");
    const [first, second, third] = chatRequests();
    const stable = stablePart(first.body);
    // Labelled with its package, each item with where it came from, above the cache boundary.
    expect(stable).toContain('<context_packages>');
    expect(stable).toContain(PACKAGES_NOTE);
    expect(stable).toContain('## Package orders-db: orders-db');
    expect(stable).toContain('[from: local/orders-team, MEMORY.md, m-e0a003, 2026-11-02]\n> Constraint: order writes must stay under 50 ms at p99\n');
    expect(stable).toContain('the orders database moves to Postgres 16');
    expect(first.lastUserText).not.toContain('<context_packages>');
    // The cache keeps working: the stable part is the same bytes on the next turn, and was read from the cache.
    expect(stablePart(second.body)).toBe(stable);
    expect(second.usage!.cacheReadTokens).toBeGreaterThan(0);
    // Deactivated: gone from the prompt.
    expect(JSON.stringify(third.body)).not.toContain('context_packages');
    expect(JSON.stringify(third.body.system)).not.toContain('order writes must stay under 50 ms');
    expect(fs.readFileSync(path.join(tmp.dir, 'data', 'local', 'billing', '.minutes', 'packages.json'), 'utf8')).toBe('{\n  "active": []\n}\n');
  });

  it('explain, refresh and delete from the console; a refusal is one error line', async () => {
    await console_('orders-team', ['/pack create backups nightly backup job']);
    fs.appendFileSync(
      path.join(tmp.dir, 'data', 'local', 'orders-team', 'MEMORY.md'),
      '- [m-e0b001] the nightly backup job also copies the audit log [from: bo, 2026-11-24]\n',
    );
    const r = await console_('billing', [
      '/pack activate backups',
      '/pack explain backups',
      '/pack refresh backups',
      '/pack',
      '/pack activate nope',
      '/pack frobnicate x',
      '/pack delete backups',
      '/pack list',
    ]);
    const b = blocks(r.stdout);
    expect(b[1]).toContain('Active in: local/billing (since ');
    expect(b[1]).toContain('query "nightly backup job"');
    expect(b[2]).toMatch(
      /^Refreshed package backups: 1 added, 0 removed, 1 unchanged\.\n {2}\+ \[MEMORY\.md · m-e0b001\] the nightly backup job also copies the audit log$/,
    );
    expect(b[3]).toMatch(/^Usage:\n {2}\/pack list/);
    expect(b[4]).toMatch(/^error: no package "nope" in the console channels \(local\/\): \/pack list/);
    expect(b[4].split('\n')).toHaveLength(1);
    expect(b[5]).toBe('error: unknown /pack command "frobnicate": /pack alone lists them');
    expect(b[6]).toBe('Deleted package backups; it was deactivated in local/billing.');
    expect(b[7]).toBe('No packages yet: /pack create NAME <words> (or minutes pack create) makes one.\nActive here: none');
    expect(fake.requests).toHaveLength(0);
  });
});
