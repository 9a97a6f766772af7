import fs from 'node:fs';
import path from 'node:path';
import { conversationAt, listConversations, listServerIds, readServerNames } from '../../src/memory/dataRootIndex';
import { makeTmpDir } from '../helpers/tmp';

/**
 * The data root's read model on a real folder tree: two servers, channels, a public thread (its
 * working state only), a private thread (its own MEMORY.md), console channels, names.json, and the
 * folders that belong to no conversation (`workspace/`, hidden ones, names that are not ids).
 */
const G = '111111111111111111';
const G2 = '999999999999999999';
const C = '222222222222222222';
const C2 = '444444444444444444';
const PUB = '333333333333333333';
const PRIV = '555555555555555555';

describe('the data root read model', () => {
  const tmp = makeTmpDir();
  const root = tmp.dir;
  afterAll(() => tmp.cleanup());

  const put = (rel: string, text = '') => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  beforeAll(() => {
    put(`${G}/${C}/MEMORY.md`, '# Channel Memory\n');
    put(`${G}/${C}/threads/${PUB}/SESSION.md`, '# Session\n');
    put(`${G}/${C}/threads/${PRIV}/MEMORY.md`, '# Channel Memory\n');
    put(`${G}/${C2}/MEMORY.md`, '# Channel Memory\n');
    put(`${G}/not-an-id/MEMORY.md`);
    put(`${G}/.minutes/names.json`, JSON.stringify({ version: 1, guild: 'Acme', channels: { [C]: 'backend', [PRIV]: 'plans' } }));
    put(`${G2}/${C}/MEMORY.md`, '# Channel Memory\n');
    put(`${G2}/.minutes/names.json`, '{not json');
    put('local/sandbox/MEMORY.md');
    put('local/packages/x.json');
    put('workspace/SOUL.md');
    put('.minutes/shards.json', '{}');
  });

  it('lists servers by id, and only folders named by an id', async () => {
    expect(await listServerIds(root)).toEqual([G, G2]);
    expect(await listServerIds(path.join(root, 'missing'))).toEqual([]);
  });

  it('lists channels and console channels, never a thread, unless private threads are asked for', async () => {
    const all = await listConversations(root);
    expect(all.map((c) => c.key)).toEqual([`${G}/${C}`, `${G}/${C2}`, `${G2}/${C}`, 'local/sandbox']);
    expect(all[0]).toMatchObject({ ref: { kind: 'discord', guildId: G, channelId: C }, dir: path.join(root, G, C), recallDirs: [path.join(root, G, C)] });
    expect(all[3]).toMatchObject({ ref: { kind: 'local', name: 'sandbox' }, dir: path.join(root, 'local', 'sandbox') });
  });

  it('lists a private thread after its channel when asked, a public thread never', async () => {
    const keys = (await listConversations(root, { includePrivate: true })).map((c) => c.key);
    expect(keys).toEqual([`${G}/${C}`, `${G}/${C}/${PRIV}`, `${G}/${C2}`, `${G2}/${C}`, 'local/sandbox']);
    const priv = (await listConversations(root, { includePrivate: true })).find((c) => c.threadId === PRIV)!;
    const tdir = path.join(root, G, C, 'threads', PRIV);
    expect(priv).toMatchObject({ ref: { kind: 'discord', guildId: G, channelId: C, threadId: PRIV, privateThread: true }, dir: tdir });
    expect(priv.recallDirs).toEqual([tdir, path.join(root, G, C)]);
    expect((await listConversations(root, { includePrivate: true, channelsOnly: true })).map((c) => c.key)).not.toContain(`${G}/${C}/${PRIV}`);
  });

  it("narrows to a shard's servers, without console channels", async () => {
    expect((await listConversations(root, { guildIds: new Set([G2]), includePrivate: true })).map((c) => c.key)).toEqual([`${G2}/${C}`]);
  });

  it('names what the bot recorded, ids only where it recorded nothing or the file is broken', async () => {
    const named = await listConversations(root, { includePrivate: true, withNames: true });
    const by = new Map(named.map((c) => [c.key, c]));
    expect(by.get(`${G}/${C}`)).toMatchObject({ serverName: 'Acme', channelName: 'backend' });
    expect(by.get(`${G}/${C}/${PRIV}`)).toMatchObject({ serverName: 'Acme', channelName: 'backend', threadName: 'plans' });
    expect(by.get(`${G}/${C2}`)?.channelName).toBeUndefined();
    expect(by.get(`${G2}/${C}`)?.serverName).toBeUndefined();
    expect(await readServerNames(root, G)).toEqual({ guild: 'Acme', channels: { [C]: 'backend', [PRIV]: 'plans' } });
    expect(await readServerNames(root, G2)).toEqual({ channels: {} });
    // Without the option nothing is read and no name is attached.
    expect((await listConversations(root))[0]!.channelName).toBeUndefined();
  });

  it('says which conversation a folder is, with the private rule, and null for any other folder', async () => {
    expect(await conversationAt(root, path.join(root, G, C))).toEqual({ kind: 'discord', guildId: G, channelId: C });
    expect(await conversationAt(root, path.join(root, G, C, 'threads', PRIV))).toEqual({
      kind: 'discord',
      guildId: G,
      channelId: C,
      threadId: PRIV,
      privateThread: true,
    });
    expect(await conversationAt(root, path.join(root, G, C, 'threads', PUB))).toEqual({ kind: 'discord', guildId: G, channelId: C, threadId: PUB });
    expect(await conversationAt(root, path.join(root, 'local', 'sandbox'))).toEqual({ kind: 'local', name: 'sandbox' });
    for (const other of [
      root,
      path.join(root, G),
      path.join(root, 'local', 'packages'),
      path.join(root, 'workspace'),
      path.join(root, '..'),
      path.join(root, G, 'not-an-id'),
    ]) {
      expect(await conversationAt(root, other)).toBeNull();
    }
  });
});
