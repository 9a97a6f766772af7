import fs from 'node:fs';
import path from 'node:path';
import { ChannelStore } from '../../src/memory/store';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService, RecallService } from '../../src/recall/service';
import type { ChannelRef } from '../../src/memory/paths';
import { parsePackage, renderPackage } from '../../src/packages/format';
import { createPackage, listPackages, PackageDeps, readPackage, refreshPackage } from '../../src/packages/library';
import { explainJson, explainPackage, formatExplain } from '../../src/packages/explain';
import { exportPackage, importPackage } from '../../src/packages/transfer';
import { activatePackage, activeIn, deactivatePackage, deletePackage } from '../../src/packages/activation';
import { makeTmpDir } from '../helpers/tmp';
import { fileTree, refusal } from './helpers';

const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');
const G = '111111111111111111';
const G2 = '444444444444444444';
const C = '222222222222222222';
const C2 = '555555555555555555';
const T = '333333333333333333';

let tmp: ReturnType<typeof makeTmpDir>;
let root: string;
let store: ChannelStore;
let recall: RecallService;
let deps: PackageDeps;
const clock = () => new Date('2026-11-25T10:00:00Z');
const local: ChannelRef = { kind: 'local', name: 'orders-team' };
const channel: ChannelRef = { kind: 'discord', guildId: G, channelId: C };

function copyChannel(to: string): void {
  fs.cpSync(EXAMPLE, to, { recursive: true });
}

beforeEach(() => {
  tmp = makeTmpDir();
  root = path.join(tmp.dir, 'data');
  copyChannel(path.join(root, 'local', 'orders-team'));
  copyChannel(path.join(root, G, C));
  store = new ChannelStore({ root, clock });
  recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  deps = { store, search: (r) => recall.search(r), clock };
});
afterEach(async () => {
  await recall.close();
  tmp.cleanup();
});

describe('creating a package', () => {
  it('gathers named items first, then the query matches, within the budget, each with its provenance', async () => {
    const { pkg, leftOut } = await createPackage(deps, {
      name: 'orders-db',
      from: local,
      query: 'which database do the orders use',
      items: ['m-e0a003', 'CONTEXT.md#open-action-items'],
      budget: { maxItems: 3 },
      actor: 'al',
    });
    expect(pkg.items).toHaveLength(3);
    expect(leftOut.length).toBeGreaterThan(0);
    expect(pkg.items[0]).toEqual({
      text: 'Constraint: order writes must stay under 50 ms at p99',
      channel: 'local/orders-team',
      file: 'MEMORY.md',
      entry: 'm-e0a003',
      date: '2026-11-02',
      recipe: 1,
    });
    expect(pkg.items[1]).toMatchObject({ file: 'CONTEXT.md', entry: 'Open Action Items', recipe: 1 });
    expect(pkg.items[1].text).toContain('migrate the orders tables');
    // The query's best match: the decision in force, as its condensation states it.
    expect(pkg.items[2]).toMatchObject({ file: 'condensations/2026-11-16-orders-database.md', entry: 'Orders database', recipe: 2 });
    expect(pkg.items[2].text).toContain('the orders database moves to Postgres 16');
    expect(pkg.recipes).toEqual([
      { kind: 'items', items: ['m-e0a003', 'CONTEXT.md#open-action-items'] },
      { kind: 'query', query: 'which database do the orders use' },
    ]);
    const file = path.join(root, 'local', 'packages', 'orders-db.md');
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toMatch(/^---\nminutes_package: 1\n/);
    expect(text).toMatch(/\nhash: 'hmac-sha256:[0-9a-f]{64}'\n---\n# orders-db\n/);
    expect(text).toContain(
      '### 1. MEMORY.md · m-e0a003\n\n- channel: local/orders-team\n- file: MEMORY.md\n- entry: m-e0a003\n- date: 2026-11-02\n- recipe: 1\n\n> Constraint',
    );
    expect(parsePackage(text).pkg).toEqual(pkg);
  });

  it('keeps the token budget too, and a condensation named by its file is one item', async () => {
    const { pkg } = await createPackage(deps, {
      name: 'release',
      from: channel,
      items: ['2026-11-23-release-process.md', 'condensations/2026-11-16-orders-database.md'],
      budget: { maxTokens: 150 },
      actor: 'al',
    });
    expect(pkg.items).toHaveLength(1);
    expect(pkg.items[0]).toMatchObject({ channel: `${G}/${C}`, file: 'condensations/2026-11-23-release-process.md', date: '2026-11-23' });
    expect(pkg.items[0].text).toMatch(/^## 📝 Condensation: Release process\n/);
    expect(pkg.source).toEqual({ channel: `${G}/${C}` });
    expect(pkg.server).toBe(G);
    expect(fs.existsSync(path.join(root, G, 'packages', 'release.md'))).toBe(true);
  });

  it('never lets a secret in: a hand-written password in memory is [redacted] in the package', async () => {
    fs.appendFileSync(path.join(root, 'local', 'orders-team', 'MEMORY.md'), '- the staging database password is Zq8#kP2!vL9x\n');
    const { pkg } = await createPackage(deps, { name: 'staging', from: local, query: 'staging database password', actor: 'al' });
    const text = fs.readFileSync(path.join(root, 'local', 'packages', 'staging.md'), 'utf8');
    expect(pkg.items.some((it) => it.text.includes('password is [redacted]'))).toBe(true);
    expect(text).not.toContain('Zq8#kP2');
  });

  it('refuses, with one line and nothing written: a bad name, no recipe, an unknown item, a name taken, nothing found', async () => {
    const before = fileTree(root);
    expect((await refusal(createPackage(deps, { name: '../x', from: local, query: 'orders', actor: 'al' }))).kind).toBe('bad-name');
    expect((await refusal(createPackage(deps, { name: 'x', from: local, actor: 'al' }))).kind).toBe('no-recipe');
    const unknown = await refusal(createPackage(deps, { name: 'x', from: local, items: ['m-ffffff'], actor: 'al' }));
    expect(unknown.message).toMatch(/no MEMORY\.md entry m-ffffff in local\/orders-team/);
    expect((await refusal(createPackage(deps, { name: 'x', from: local, items: ['m-e0a002'], actor: 'al' }))).message).toMatch(/superseded by m-e0a006/);
    expect((await refusal(createPackage(deps, { name: 'x', from: local, items: ['CONTEXT.md#nope'], actor: 'al' }))).message).toMatch(
      /has no section "nope": it has CONTEXT\.md#current-state/,
    );
    expect((await refusal(createPackage(deps, { name: 'x', from: local, query: 'kubernetes helm charts', actor: 'al' }))).kind).toBe('nothing-found');
    expect((await refusal(createPackage(deps, { name: 'x', from: local, query: 'orders', budget: { maxItems: 0 }, actor: 'al' }))).kind).toBe('bad-budget');
    expect(fileTree(root)).toEqual(before);
    await createPackage(deps, { name: 'x', from: local, query: 'orders', actor: 'al' });
    expect((await refusal(createPackage(deps, { name: 'x', from: local, query: 'release', actor: 'bo' }))).kind).toBe('exists');
  });
});

describe('explain and refresh', () => {
  it('explains items, the recipe that picked each, provenance, size and where the package is active', async () => {
    await createPackage(deps, { name: 'orders-db', from: local, query: 'orders database', items: ['m-e0a003'], actor: 'al' });
    await activatePackage({ store, clock }, { target: { kind: 'local', name: 'billing' }, name: 'orders-db', actor: 'bo' });
    const e = await explainPackage(store, { kind: 'local' }, 'orders-db');
    const text = formatExplain(e);
    expect(text).toMatch(/^Package orders-db \(pkg-[0-9a-f]{12}\): orders-db\n/);
    expect(text).toContain('Made from local/orders-team on 2026-11-25 by al');
    expect(text).toContain('  1. items m-e0a003\n  2. query "orders database"');
    expect(text).toContain('Active in: local/billing (since 2026-11-25, by bo)');
    expect(text).toContain('1. local/orders-team · MEMORY.md · m-e0a003 · 2026-11-02 (recipe 1: items m-e0a003; ~14 tokens)');
    const json = explainJson(e);
    expect(json).toMatchObject({ name: 'orders-db', hashOk: true, activeIn: [{ conversation: 'local/billing', by: 'bo' }] });
    expect((json.items as { tokens: number }[])[0].tokens).toBe(14);
  });

  it('refresh re-runs the recipes and shows the difference; with nothing new the file is left byte for byte', async () => {
    await createPackage(deps, { name: 'backups', from: local, query: 'nightly backup job', actor: 'al' });
    const file = path.join(root, 'local', 'packages', 'backups.md');
    const first = fs.readFileSync(file, 'utf8');
    const same = await refreshPackage(deps, { kind: 'local' }, 'backups');
    expect(same.changed).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(first);
    fs.appendFileSync(
      path.join(root, 'local', 'orders-team', 'MEMORY.md'),
      '- [m-e0b001] the nightly backup job also copies the audit log [from: bo, 2026-11-24]\n',
    );
    const r = await refreshPackage(deps, { kind: 'local' }, 'backups');
    expect(r.changed).toBe(true);
    expect(r.added.map((it) => it.entry)).toEqual(['m-e0b001']);
    expect(r.removed).toEqual([]);
    const { pkg, hashOk } = await readPackage(store, { kind: 'local' }, 'backups');
    expect(hashOk).toBe(true);
    expect(pkg.refreshed).toBe('2026-11-25T10:00:00.000Z');
    expect(pkg.items.map((it) => it.entry)).toContain('m-e0b001');
  });
});

describe('export and import', () => {
  it('export gives the file as stored; another data root takes it on --trust, signed by its own key from then on', async () => {
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders database', items: ['CONTEXT.md#key-decisions'], actor: 'al' });
    const exported = await exportPackage(store, { kind: 'discord', guildId: G }, 'orders-db');
    expect(exported).toBe(fs.readFileSync(path.join(root, G, 'packages', 'orders-db.md'), 'utf8'));
    const other = new ChannelStore({ root: path.join(tmp.dir, 'other') });
    const { server, pkg } = await importPackage(other, { bytes: Buffer.from(exported), clock, trust: true });
    expect(server).toEqual({ kind: 'discord', guildId: G });
    const again = await exportPackage(other, server, 'orders-db');
    expect(again).toBe(fs.readFileSync(path.join(tmp.dir, 'other', G, 'packages', 'orders-db.md'), 'utf8'));
    // The same package, but marked as taken on trust and signed with the other data root's key.
    expect(parsePackage(again).pkg).toEqual(pkg);
    expect(pkg).toEqual({ ...parsePackage(exported).pkg, imported: { fromServer: G, at: '2026-11-25T10:00:00.000Z', unverified: true } });
    expect(again.replace(/^hash: .*$/m, '').replace(/^imported:\n(?: {2}.*\n)+/m, '')).toBe(exported.replace(/^hash: .*$/m, ''));
  });

  it("an import into another server makes it that server's package and says where it came from", async () => {
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const exported = await exportPackage(store, { kind: 'discord', guildId: G }, 'orders-db');
    const { pkg } = await importPackage(store, { bytes: Buffer.from(exported), server: { kind: 'discord', guildId: G2 }, clock });
    expect(pkg).toMatchObject({ server: G2, imported: { fromServer: G, at: '2026-11-25T10:00:00.000Z' } });
    expect(parsePackage(fs.readFileSync(path.join(root, G2, 'packages', 'orders-db.md'), 'utf8')).pkg).toEqual(pkg);
    await activatePackage({ store, clock }, { target: { kind: 'discord', guildId: G2, channelId: C2 }, name: 'orders-db', actor: 'al' });
  });

  it('refuses a bad file with one line and changes nothing: not signed here, bad format, too large, not UTF-8, a secret, a name taken', async () => {
    await createPackage(deps, { name: 'orders-db', from: local, query: 'orders database', actor: 'al' });
    const good = await exportPackage(store, { kind: 'local' }, 'orders-db');
    const other = path.join(tmp.dir, 'other');
    fs.mkdirSync(other);
    const target = new ChannelStore({ root: other });
    // On --trust, so each refusal below is the file's own problem, not its signature's.
    const imp = (text: string | Buffer) =>
      refusal(importPackage(target, { bytes: typeof text === 'string' ? Buffer.from(text) : text, label: 'pkg.md', trust: true }));

    const edited = good.replace('moves to Postgres 16', 'moves to Oracle');
    expect(edited).not.toBe(good);
    expect((await refusal(importPackage(target, { bytes: Buffer.from(edited), label: 'pkg.md' }))).message).toMatch(
      /^pkg\.md is not signed by this data root \(another data root exported it, it was edited since, or it was exported before packages were signed\): if you trust where it came from, import it with --trust/,
    );
    // Trusted or not, an edit that breaks the layout (the manifest's size no longer fits the items) is not a package Minutes wrote.
    expect((await imp(edited)).message).toMatch(/^pkg\.md is not a context package Minutes wrote \(it is not laid out as Minutes writes it\)/);
    expect((await imp('# just some notes\n')).kind).toBe('bad-format');
    expect((await imp(good.replace('## Items', '## Things'))).message).toMatch(/^pkg\.md is not a context package Minutes wrote \(no "## Items" section\)/);
    expect((await imp(good.replace('minutes_package: 1', 'minutes_package: 7'))).message).toMatch(/manifest minutes_package:/);
    expect((await imp(good.replace(/\n\n/g, '\n\n\n'))).kind).toBe('bad-format');
    expect((await imp(good + 'x'.repeat(300 * 1024))).kind).toBe('too-large');
    expect((await imp(Buffer.from([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe]))).message).toMatch(/not UTF-8/);
    const withSecret = parsePackage(good).pkg;
    withSecret.items[1].text = 'the staging password is Zq8#kP2!vL9x';
    expect((await imp(renderPackage(withSecret, Buffer.alloc(32)))).message).toMatch(
      /^pkg\.md holds what looks like a password, key or private URL \(in item 2\)/,
    );
    expect(fs.readdirSync(other)).toEqual([]);

    await importPackage(target, { bytes: Buffer.from(good), trust: true });
    const after = fileTree(other);
    expect((await imp(good)).kind).toBe('exists');
    expect(fileTree(other)).toEqual(after);
  });
});

describe('who may see what', () => {
  const thread: ChannelRef = { kind: 'discord', guildId: G, channelId: C, threadId: T, privateThread: true };

  beforeEach(() => {
    const dir = path.join(root, G, C, 'threads', T);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(
      path.join(dir, 'MEMORY.md'),
      '# Channel Memory\n\n- [m-aa0001] the salary bands for the orders team are under review [from: cy, 2026-11-20]\n',
    );
  });

  it("a private thread's package is active only in that thread, is never exported, and is hidden from other conversations", async () => {
    const { pkg } = await createPackage(deps, { name: 'salaries', from: thread, query: 'salary bands', actor: 'cy' });
    expect(pkg.source).toEqual({ channel: `${G}/${C}/threads/${T}`, privateThread: true });
    expect(pkg.items[0]).toMatchObject({ channel: `${G}/${C}/threads/${T}`, file: 'MEMORY.md', entry: 'm-aa0001' });
    const before = fileTree(root);
    const refused = await refusal(activatePackage({ store, clock }, { target: channel, name: 'salaries', actor: 'al' }));
    expect(refused.kind).toBe('private-thread');
    expect(refused.message).toBe('package salaries holds items from a private thread, which never leave it: use it in that thread only');
    expect((await refusal(exportPackage(store, { kind: 'discord', guildId: G }, 'salaries'))).kind).toBe('private-thread');
    expect((await refusal(explainPackage(store, { kind: 'discord', guildId: G }, 'salaries', channel))).kind).toBe('private-thread');
    expect(fileTree(root)).toEqual(before);
    expect((await listPackages(store, { kind: 'discord', guildId: G }, channel)).map((s) => s.name)).toEqual([]);
    expect((await listPackages(store, { kind: 'discord', guildId: G }, thread)).map((s) => s.name)).toEqual(['salaries']);
    await activatePackage({ store, clock }, { target: thread, name: 'salaries', actor: 'cy' });
    expect((await activeIn(store, thread)).map((a) => a.name)).toEqual(['salaries']);
  });

  it("a package is activated only in its own server's conversations, even when its file is copied by hand", async () => {
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const elsewhere: ChannelRef = { kind: 'discord', guildId: G2, channelId: C2 };
    const before = fileTree(root);
    const refused = await refusal(
      activatePackage({ store, clock }, { target: elsewhere, name: 'orders-db', actor: 'al', server: { kind: 'discord', guildId: G } }),
    );
    expect(refused.kind).toBe('other-server');
    expect(refused.message).toMatch(
      new RegExp(
        `^package orders-db belongs to server ${G}, and a package is active only in its own server \\(this is server ${G2}\\): export it and import it here`,
      ),
    );
    expect(
      (await refusal(activatePackage({ store, clock }, { target: local, name: 'orders-db', actor: 'al', server: { kind: 'discord', guildId: G } }))).kind,
    ).toBe('other-server');
    expect(fileTree(root)).toEqual(before);
    fs.mkdirSync(path.join(root, G2, 'packages'), { recursive: true });
    fs.copyFileSync(path.join(root, G, 'packages', 'orders-db.md'), path.join(root, G2, 'packages', 'orders-db.md'));
    expect((await refusal(activatePackage({ store, clock }, { target: elsewhere, name: 'orders-db', actor: 'al' }))).kind).toBe('other-server');
  });

  it('deleting a package deactivates it everywhere first', async () => {
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const t: ChannelRef = { kind: 'discord', guildId: G, channelId: C2, threadId: T };
    await activatePackage({ store, clock }, { target: t, name: 'orders-db', actor: 'al' });
    expect(await activatePackage({ store, clock }, { target: t, name: 'orders-db', actor: 'al' })).toMatchObject({ already: true });
    const { deactivated } = await deletePackage(store, { kind: 'discord', guildId: G }, 'orders-db');
    expect(deactivated).toEqual([`${G}/${C2}/threads/${T}`]);
    expect(await activeIn(store, t)).toEqual([]);
    expect(fs.existsSync(path.join(root, G, 'packages', 'orders-db.md'))).toBe(false);
    expect(await deactivatePackage(store, t, 'orders-db')).toBe(false);
  });
});

describe('/pack for someone who is not an admin', () => {
  it('lists and explains, but creating, activating, deactivating, refreshing and deleting are refused in one line', async () => {
    const { packCommand } = await import('../../src/chat/packCommands');
    await createPackage(deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const ctx = { store, search: deps.search, clock, actor: 'bo', isAdmin: false };
    const before = fileTree(root);
    for (const sub of ['create x orders', 'activate orders-db', 'deactivate orders-db', 'refresh orders-db', 'delete orders-db']) {
      const err = await refusal(packCommand(ctx, channel, sub));
      expect(err.kind).toBe('not-admin');
      expect(err.message).toMatch(/^only admins can \w+ packages; \/pack list and \/pack explain are open to everyone$/);
    }
    expect(fileTree(root)).toEqual(before);
    expect(await packCommand(ctx, channel, 'list')).toMatch(/^orders-db: orders-db/);
    expect(await packCommand(ctx, channel, 'explain orders-db')).toMatch(/^Package orders-db/);
  });
});
