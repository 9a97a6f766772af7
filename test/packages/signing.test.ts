import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ChannelStore } from '../../src/memory/store';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService, RecallService } from '../../src/recall/service';
import type { ChannelRef } from '../../src/memory/paths';
import { createPackage, listPackages, PackageDeps, readPackage, refreshPackage } from '../../src/packages/library';
import { explainJson, explainPackage, formatExplain, formatList } from '../../src/packages/explain';
import { exportPackage, importPackage, ImportRequest } from '../../src/packages/transfer';
import { runCli } from '../helpers/cli';
import { makeTmpDir } from '../helpers/tmp';
import { fileTree, refusal } from './helpers';

/**
 * A package's signature is keyed per data root (HMAC-SHA256 with `.minutes/package-key`), so a file
 * whose items were edited and whose hash was recomputed, as anyone can recompute a plain SHA-256,
 * is not taken for one this data root wrote: an import of it, or of any package another data root
 * signed, needs the operator's `--trust`, and the package then says it was imported that way.
 */
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');
const G = '111111111111111111';
const G2 = '444444444444444444';
const C = '222222222222222222';

let tmp: ReturnType<typeof makeTmpDir>;
let recall: RecallService;
const clock = () => new Date('2026-11-25T10:00:00Z');
const channel: ChannelRef = { kind: 'discord', guildId: G, channelId: C };
const server = { kind: 'discord' as const, guildId: G };

/** A data root with the example channel in it, and what creating a package there needs. */
function dataRoot(name: string): { root: string; store: ChannelStore; deps: PackageDeps } {
  const root = path.join(tmp.dir, name);
  fs.cpSync(EXAMPLE, path.join(root, G, C), { recursive: true });
  const store = new ChannelStore({ root, clock });
  return { root, store, deps: { store, search: (r) => recall.search(r), clock } };
}

/** What anyone can do to a file signed with a plain SHA-256: edit it (keeping its size), then hash it again. */
function forge(text: string, edit: (t: string) => string): string {
  const edited = edit(text);
  const unhashed = edited.replace(/^hash: .*\n/m, '');
  const hex = crypto.createHash('sha256').update(unhashed, 'utf8').digest('hex');
  return edited.replace(/^hash: .*$/m, `hash: 'sha256:${hex}'`);
}

/** `trust` is the operator's word that a file not signed by this data root may come in. */
const importing = (store: ChannelStore, text: string, o: Partial<ImportRequest> & { trust?: boolean } = {}) =>
  importPackage(store, { bytes: Buffer.from(text), label: 'pkg.md', clock, ...o } as ImportRequest);

beforeEach(() => {
  tmp = makeTmpDir();
  recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
});
afterEach(async () => {
  await recall.close();
  tmp.cleanup();
});

describe('a package is signed by its data root', () => {
  it('an item edited with its SHA-256 recomputed is not imported, into this data root or another', async () => {
    const a = dataRoot('a');
    await createPackage(a.deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const good = await exportPackage(a.store, server, 'orders-db');
    const forged = forge(good, (t) => t.replace('moves to Postgres 16', 'moves to MongoDB 4.0'));
    expect(forged).not.toBe(good);
    const before = fileTree(a.root);
    const here = await refusal(importing(a.store, forged, { server: { kind: 'discord', guildId: G2 } }));
    expect(here.message).toMatch(/^pkg\.md is not signed by this data root .*--trust/);
    expect(fileTree(a.root)).toEqual(before);

    const b = dataRoot('b');
    const beforeB = fileTree(b.root);
    expect((await refusal(importing(b.store, forged))).message).toMatch(/is not signed by this data root/);
    // A refused import leaves the data root as it was: not even the key is made.
    expect(fileTree(b.root)).toEqual(beforeB);
  });

  it("another data root's package imports only with --trust, and is then shown as imported, not as this data root's own", async () => {
    const a = dataRoot('a');
    await createPackage(a.deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const exported = await exportPackage(a.store, server, 'orders-db');
    const b = dataRoot('b');
    await refusal(importing(b.store, exported));
    expect(fs.existsSync(path.join(b.root, G, 'packages'))).toBe(false);

    const { pkg } = await importing(b.store, exported, { trust: true });
    expect(pkg.imported).toEqual({ fromServer: G, at: '2026-11-25T10:00:00.000Z', unverified: true });
    const e = await explainPackage(b.store, server, 'orders-db');
    expect(e.hashOk).toBe(true);
    expect(explainJson(e)).toMatchObject({ own: false, imported: { fromServer: G, unverified: true } });
    expect(formatExplain(e)).toContain(`imported with --trust from server ${G} on 2026-11-25 (not signed by this data root when it came in)`);
    const list = await listPackages(b.store, server);
    expect(list[0]).toMatchObject({ name: 'orders-db', imported: true });
    expect(formatList(list)).toMatch(/^orders-db: orders-db \(from \d+\/\d+; imported with --trust; \d+ items, ~\d+ tokens\)$/);
    // Its own data root still calls it its own.
    const own = await explainPackage(a.store, server, 'orders-db');
    expect(explainJson(own)).toMatchObject({ own: true, hashOk: true });
    expect(formatExplain(own)).not.toContain('imported');

    // Exported again, it says how it first came in, and this data root's key signs it now.
    const again = await exportPackage(b.store, server, 'orders-db');
    expect(again).toContain('unverified: true');
    await importing(b.store, again, { server: { kind: 'discord', guildId: G2 } });
    expect(explainJson(await explainPackage(b.store, { kind: 'discord', guildId: G2 }, 'orders-db'))).toMatchObject({
      own: false,
      imported: { fromServer: G, unverified: true },
    });
  });

  it('the key: made on first use in the data root’s .minutes/, readable by its owner only, the same for every writer', async () => {
    const a = dataRoot('a');
    const key = path.join(a.root, '.minutes', 'package-key');
    expect(fs.existsSync(key)).toBe(false);
    await Promise.all([
      createPackage(a.deps, { name: 'one', from: channel, query: 'orders database', actor: 'al' }),
      createPackage({ ...a.deps, store: new ChannelStore({ root: a.root, clock }) }, { name: 'two', from: channel, query: 'nightly backup', actor: 'al' }),
    ]);
    expect(fs.statSync(key).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(key, 'utf8')).toMatch(/^[0-9a-f]{64}\n$/);
    expect(fs.readdirSync(path.join(a.root, '.minutes'))).toEqual(['package-key']);
    for (const name of ['one', 'two']) expect((await readPackage(a.store, server, name)).hashOk).toBe(true);
    // A package file names the key's kind of signature, never the key.
    const text = fs.readFileSync(path.join(a.root, G, 'packages', 'one.md'), 'utf8');
    expect(text).toMatch(/\nhash: 'hmac-sha256:[0-9a-f]{64}'\n---\n/);
    expect(text).not.toContain(fs.readFileSync(key, 'utf8').trim());
  });

  it('a package file copied in by hand, or written before packages were signed, is read but not called signed; refresh signs it again', async () => {
    const a = dataRoot('a');
    await createPackage(a.deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const file = path.join(a.root, G, 'packages', 'orders-db.md');
    const signed = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(
      file,
      forge(signed, (t) => t),
    );
    const read = await readPackage(a.store, server, 'orders-db');
    expect(read.hashOk).toBe(false);
    expect(read.pkg.items.length).toBeGreaterThan(0);
    expect(formatExplain(await explainPackage(a.store, server, 'orders-db'))).toContain('Signature: not this data root');
    expect((await refusal(exportPackage(a.store, server, 'orders-db'))).message).toMatch(/refresh it/);
    const r = await refreshPackage(a.deps, server, 'orders-db');
    expect(r.changed).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe(signed);
    expect((await readPackage(a.store, server, 'orders-db')).hashOk).toBe(true);
  });

  it('a damaged key is never replaced: writing a package stops with one line naming the file', async () => {
    const a = dataRoot('a');
    fs.mkdirSync(path.join(a.root, '.minutes'), { recursive: true });
    fs.writeFileSync(path.join(a.root, '.minutes', 'package-key'), 'not a key\n');
    const err = await refusal(createPackage(a.deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' }));
    expect(err.message).toMatch(/package-key is not a key Minutes wrote/);
    expect(fs.readFileSync(path.join(a.root, '.minutes', 'package-key'), 'utf8')).toBe('not a key\n');
    expect(fs.existsSync(path.join(a.root, G, 'packages', 'orders-db.md'))).toBe(false);
  });
});

describe('minutes pack import --trust', () => {
  const pack = (args: string[]) => runCli(['pack', ...args], { env: { MINUTES_DATA_DIR: path.join(tmp.dir, 'unused') }, cwd: tmp.dir });

  it('refuses a file from another data root with one line naming --trust; with it, imports it and says it came in on trust', async () => {
    const a = dataRoot('a');
    await createPackage(a.deps, { name: 'orders-db', from: channel, query: 'orders database', actor: 'al' });
    const out = path.join(tmp.dir, 'orders-db.md');
    expect((await pack(['export', 'orders-db', '--out', out, '--data-dir', a.root])).code).toBe(0);
    const other = path.join(tmp.dir, 'other');
    const refused = await pack(['import', out, '--data-dir', other]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^minutes pack: .*orders-db\.md is not signed by this data root .*--trust.*\n$/);
    expect(fileTree(other)).toEqual({});
    const taken = await pack(['import', out, '--data-dir', other, '--trust']);
    expect(taken.stderr).toBe('');
    expect(taken.stdout).toMatch(
      new RegExp(
        `^Imported package orders-db \\(\\d+ items\\) into server ${G}, on --trust: it was not signed by this data root, and is shown as imported\\.\\n$`,
      ),
    );
    const list = await pack(['list', '--data-dir', other]);
    expect(list.stdout).toContain('imported with --trust');
  });
});
