import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { ChannelType, type Client } from 'discord.js';
import { noteNames, watchNames } from '../../src/bot/intake/names';
import { namesFile } from '../../src/memory/layout';
import { readServerNames } from '../../src/memory/dataRootIndex';
import { silentLogger } from '../../src/log/logger';
import { ChannelStore } from '../../src/memory/store';
import { makeTmpDir } from '../helpers/tmp';

const G = '100000000000000001';

describe('the names the bot records for the dashboard', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let store: ChannelStore;
  beforeEach(() => {
    tmp = makeTmpDir('minutes-names-');
    store = new ChannelStore({ root: tmp.dir });
  });
  afterEach(() => tmp.cleanup());

  it('merges names into <guild>/.minutes/names.json, which the dashboard reads; an unchanged set is not rewritten', async () => {
    await noteNames(store, { guildId: G, guild: 'Acme', channels: [{ id: '2', name: 'general' }] }, silentLogger());
    await noteNames(
      store,
      {
        guildId: G,
        channels: [
          { id: '3', name: 'backend' },
          { id: '../x', name: 'evil' },
        ],
      },
      silentLogger(),
    );
    expect(await readServerNames(tmp.dir, G)).toEqual({ guild: 'Acme', channels: { 2: 'general', 3: 'backend' } });
    const file = namesFile(tmp.dir, G);
    const before = fs.statSync(file).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await noteNames(store, { guildId: G, channels: [{ id: '3', name: 'backend' }] }, silentLogger());
    expect(fs.statSync(file).mtimeMs).toBe(before);
    await noteNames(store, { guildId: 'not-an-id', guild: 'x', channels: [] }, silentLogger());
    expect(fs.readdirSync(tmp.dir)).toEqual([G]);
    // No temp file is left beside it (atomic write).
    expect(fs.readdirSync(path.dirname(file))).toEqual(['names.json']);
  });

  it('records names at start-up and on channel create/rename, never thread names', async () => {
    const client = Object.assign(new EventEmitter(), { options: {}, guilds: { cache: new Map() } });
    const ch = (id: string, name: string, thread = false) => ({
      id,
      name,
      guildId: G,
      type: thread ? ChannelType.PrivateThread : ChannelType.GuildText,
      isThread: () => thread,
      isDMBased: () => false,
    });
    const guild = {
      id: G,
      name: 'Acme',
      channels: {
        cache: new Map([
          ['2', ch('2', 'general')],
          ['9', ch('9', 'secret-thread', true)],
        ]),
      },
    };
    client.guilds.cache.set(G, guild);
    const runs: Promise<void>[] = [];
    watchNames(client as unknown as Client, store, silentLogger(), (_n, fn) => {
      runs.push(fn());
    });
    client.emit('clientReady', client);
    await Promise.all(runs);
    client.emit('channelCreate', ch('4', 'design'));
    client.emit('channelUpdate', ch('2', 'general'), ch('2', 'announcements'));
    client.emit('threadCreate', ch('9', 'secret-thread', true));
    await Promise.all(runs);
    expect(await readServerNames(tmp.dir, G)).toEqual({ guild: 'Acme', channels: { 2: 'announcements', 4: 'design' } });
  });
});
