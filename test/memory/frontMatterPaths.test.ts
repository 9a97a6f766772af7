import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { listCondensations } from '../../src/condense/saga/listing';
import { silentLogger } from '../../src/log/logger';
import { createMinutesMcp } from '../../src/mcp/server';
import { buildRecallService } from '../../src/recall/service';
import { secretaryModel } from '../condense/helpers';
import { startDashboard } from '../dashboard/helpers';
import { startFakeModelServer } from '../fakes/model/server';
import { runCli } from '../helpers/cli';
import { condensedChannel } from '../helpers/condensedChannel';
import { makeTmpDir } from '../helpers/tmp';

/**
 * No file in the data root runs code (issue 40 §2). gray-matter picks a parser from the word after
 * the opening `---`, and `---js` evals the block. Every path that reads front matter from the data
 * root — recall, the dashboard, `minutes mcp`, the audit, the Secretary, context packages — is given
 * a channel made by Minutes itself plus one condensation (and one package) whose front matter is
 * JavaScript that would write a marker file and set a global. Nothing may be written, the file is
 * reported as malformed with its name, and the rest of the channel still works.
 */
const EVIL_COND = '2026-11-25-pineapple-keys.md';
/** A package file is refused before its front matter is parsed at all: it must open with a bare `---` line. */
const PACKAGE_REFUSED = /package evil is not a context package Minutes wrote \((no frontmatter manifest at the top|malformed front matter)/;
const GLOBAL = '__minutesFrontMatterRan';

function evilFrontMatter(marker: string, open = '---js'): string {
  return (
    `${open}\n` +
    `{ topic: (require('fs').writeFileSync(${JSON.stringify(marker)}, 'ran'), globalThis.${GLOBAL} = true, 'pineapple'),\n` +
    `  ledger_key: 'evil', minutes_package: 1 }\n` +
    `---\n`
  );
}

function evilCondensation(marker: string, open?: string): string {
  return `${evilFrontMatter(marker, open)}## 📝 Condensation: Pineapple keys\n**Date:** 2026-11-25\n**Decision:** the pineapple keys stay in the orders vault\n`;
}

let tmp: ReturnType<typeof makeTmpDir>;
let root: string;
let dir: string;
let marker: string;

beforeAll(async () => {
  tmp = makeTmpDir('minutes-front-matter-');
  root = path.join(tmp.dir, 'channels');
  ({ dir } = await condensedChannel({ root, scratch: tmp.dir }));
  marker = path.join(tmp.dir, 'marker');
  fs.writeFileSync(path.join(dir, 'condensations', EVIL_COND), evilCondensation(marker));
  fs.mkdirSync(path.join(root, 'local', 'packages'), { recursive: true });
  fs.writeFileSync(path.join(root, 'local', 'packages', 'evil.md'), `${evilFrontMatter(marker)}# Evil\n\n## Items\n\n_(no items)_\n`);
}, 60_000);
afterAll(() => tmp.cleanup());

afterEach(() => {
  // Checked after every test, whatever it asserted itself.
  const ran = fs.existsSync(marker) || (globalThis as Record<string, unknown>)[GLOBAL] === true;
  fs.rmSync(marker, { force: true });
  delete (globalThis as Record<string, unknown>)[GLOBAL];
  expect({ ran }).toEqual({ ran: false });
});

const env = () => ({ MINUTES_DATA_DIR: root, LOG_LEVEL: 'warn', MINUTES_VECTOR_CACHE: path.join(tmp.dir, 'vectors') });

describe('a data file whose front matter asks for JavaScript runs nothing', () => {
  test('recall and search: the file is skipped with a warning naming it; the other condensations are found', async () => {
    const r = await runCli(['search', '--channel-dir', dir, '--query', 'orders database Postgres pineapple', '--semantic', 'off', '--json'], {
      env: env(),
      cwd: tmp.dir,
    });
    expect(r.code).toBe(0);
    const items = (JSON.parse(r.stdout) as { items: { file: string; text: string }[] }).items;
    expect(items.some((i) => /Postgres/.test(i.text))).toBe(true);
    expect(items.some((i) => i.file.includes(EVIL_COND))).toBe(false);
    expect(r.stderr).toContain(EVIL_COND);
    expect(r.stderr).toMatch(/malformed/);
  });

  test('the dashboard: the channel page and the file page open; the file is shown as malformed, not read', async () => {
    const dash = await startDashboard(root);
    try {
      const channel = await fetch(new URL('/channel/local/orders', dash.url));
      expect(channel.status).toBe(200);
      const page = await channel.text();
      expect(page).toContain('Postgres');
      const evil = await fetch(new URL(`/channel/local/orders/c/${EVIL_COND.slice(0, -3)}`, dash.url));
      expect(evil.status).toBe(200);
      const body = await evil.text();
      expect(body).toMatch(/malformed front matter/);
      expect(body).toContain('&quot;js&quot;');
      const search = await fetch(new URL('/search?q=pineapple', dash.url));
      expect(search.status).toBe(200);
      // The home page's audit flags the channel.
      expect(await (await fetch(dash.url)).text()).toContain('1 condensation(s) with malformed front matter (not read)');
    } finally {
      await dash.close();
    }
  });

  test('minutes mcp: search, list_decisions and get_package answer; the package is reported as malformed; the server keeps serving', async () => {
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    const { server } = createMinutesMcp({ root, recall, logger: silentLogger(), version: 'test' });
    const [a, b] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: 'test', version: '1' });
    await Promise.all([server.connect(b), client.connect(a)]);
    const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
    const text = (r: CallToolResult) => r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
    try {
      const search = await call('search', { query: 'orders database Postgres pineapple', channel: 'local/orders' });
      expect(search.isError).toBeFalsy();
      expect(text(search)).toContain('Postgres');
      expect(text(search)).not.toContain(EVIL_COND);
      const decisions = await call('list_decisions', { channel: 'local/orders' });
      expect(decisions.isError).toBeFalsy();
      expect(text(decisions)).toContain('Postgres');
      const pkg = await call('get_package', { name: 'evil' });
      expect(pkg.isError).toBe(true);
      expect(text(pkg)).toMatch(PACKAGE_REFUSED);
      const channels = await call('list_channels', {});
      expect(text(channels)).toContain('local/orders');
    } finally {
      await client.close();
      await server.close();
      await recall.close();
    }
  });

  test('minutes audit names the file as malformed and still checks the rest of the channel', async () => {
    const r = await runCli(['audit', '--channel-dir', dir], { env: env(), cwd: tmp.dir });
    expect(r.stdout + r.stderr).toMatch(new RegExp(`condensations/${EVIL_COND.replace(/[.]/g, '\\.')}.*malformed front matter`));
    // The evil file's ledger_key is never read, so it is not reported as an unfolded condensation.
    expect(r.stdout + r.stderr).not.toMatch(/pineapple-keys\.md is not folded/);
    expect(r.code).toBe(1);
  });

  test('the Secretary files a new condensation beside the file, and /condensations lists it as malformed', async () => {
    const fake = await startFakeModelServer({ handler: secretaryModel() });
    try {
      const transcript = path.join(tmp.dir, 'third.jsonl');
      const t0 = Date.parse('2026-11-26T10:00:00Z');
      const lines: [string, string][] = [
        ['al', 'who owns the orders dashboards?'],
        ['bo', 'decision: the orders dashboards move to Grafana'],
      ];
      fs.writeFileSync(
        transcript,
        lines.map(([author, content], i) => JSON.stringify({ author, timestamp: new Date(t0 + i * 60_000).toISOString(), content })).join('\n') + '\n',
      );
      const r = await runCli(['condense', '--channel-dir', dir, '--transcript', transcript, '--apply'], {
        env: { ...env(), ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: fake.anthropicBaseURL },
        cwd: tmp.dir,
      });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    } finally {
      await fake.close();
    }
    const listed = await listCondensations(path.join(dir, 'condensations'));
    expect(listed).toMatch(/^- 2026-11-26: /m);
    expect(listed).toMatch(new RegExp(`${EVIL_COND.replace(/[.]/g, '\\.')}.*malformed front matter`));
    expect(fs.readFileSync(path.join(dir, 'condensations', EVIL_COND), 'utf8')).toBe(evilCondensation(marker));
  }, 30_000);

  test('context packages: naming the file as an item, listing, explaining and importing report it as malformed', async () => {
    const cli = (...args: string[]) => runCli(['pack', ...args], { env: env(), cwd: tmp.dir });
    const named = await cli('create', 'from-evil', '--channel-dir', dir, '--item', EVIL_COND);
    expect(named.code).toBe(2);
    expect(named.stderr).toMatch(new RegExp(`${EVIL_COND.replace(/[.]/g, '\\.')}.*malformed front matter`));
    const good = await cli('create', 'orders-db', '--channel-dir', dir, '--query', 'orders database Postgres pineapple', '--semantic', 'off');
    expect({ code: good.code, stderr: good.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
    const list = await cli('list');
    expect(list.stdout).toContain('orders-db');
    expect(list.stdout).toMatch(PACKAGE_REFUSED);
    const explain = await cli('explain', 'evil', '--server', 'local');
    expect(explain.code).toBe(2);
    expect(explain.stderr).toMatch(PACKAGE_REFUSED);
    const file = path.join(tmp.dir, 'evil-import.md');
    fs.copyFileSync(path.join(root, 'local', 'packages', 'evil.md'), file);
    const imported = await cli('import', file, '--server', 'local');
    expect(imported.code).toBe(2);
    expect(imported.stderr).toMatch(/evil-import\.md is not a context package Minutes wrote/);
  }, 30_000);

  test.each(['--- js', '---JS', '---javascript', '---coffee', '---\tjs'])('%s is refused the same way', async (open) => {
    const other = path.join(dir, 'condensations', '2026-11-27-other.md');
    fs.writeFileSync(other, evilCondensation(marker, open));
    try {
      const r = await runCli(['audit', '--channel-dir', dir], { env: env(), cwd: tmp.dir });
      expect(r.stdout + r.stderr).toMatch(/2026-11-27-other\.md.*malformed front matter/);
    } finally {
      fs.rmSync(other);
    }
  });
});
