import fs from 'node:fs';
import type { Client } from 'discord.js';
import { botThereSince } from '../../src/bot/secretary/firstSeen';
import { firstSeenFile } from '../../src/memory/layout';
import type { DiscordSecretary } from '../../src/bot/secretary/discordSecretary';
import { discordSecretary } from '../../src/bot/start/start';
import type { Runtime } from '../../src/app/runtime';
import { readLedger } from '../../src/condense/saga/ledgerFile';
import type { ChannelRef } from '../../src/memory/paths';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { makeTmpDir } from '../helpers/tmp';
import { testRuntime } from '../helpers/runtime';

const channel: ChannelRef = { kind: 'discord', guildId: '111111111111111111', channelId: '222222222222222222' };
const privateThread: ChannelRef = { ...channel, threadId: '333333333333333333', privateThread: true };

describe('the first-run record (automatic condensations count from it)', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  let fake: FakeModelServer;
  let runtime: Runtime;
  let secretary: DiscordSecretary;

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
    runtime = await testRuntime(tmp.dir, fake);
    // noteChannel needs only the store and the clock; no Discord connection is made.
    secretary = discordSecretary({} as Client, runtime);
  });
  afterEach(async () => {
    await secretary.stop();
    await runtime.close();
    await fake.close();
    tmp.cleanup();
  });

  it('a private thread and its channel each get their own record, whichever speaks first', async () => {
    await secretary.noteChannel(runtime.store.parentRef(privateThread));
    await secretary.noteChannel(runtime.store.parentRef(channel));
    expect((await readLedger(runtime.store, privateThread)).firstRunAt).toBeDefined();
    expect((await readLedger(runtime.store, channel)).firstRunAt).toBeDefined();
  });

  it('a burst in one channel shares one record', async () => {
    const [a, b] = [secretary.noteChannel(channel), secretary.noteChannel(channel)];
    expect(a).toBe(b);
    await a;
    expect((await readLedger(runtime.store, channel)).firstRunAt).toBeDefined();
  });

  it("a server already seen: the first contact in a channel makes no ledger write, and automatic triggers still count from the server's sighting", async () => {
    const seenAt = new Date(Date.now() - 60_000);
    await runtime.store.writePrivateState(firstSeenFile(runtime.store.root, channel.guildId), { version: 1, firstSeenAt: seenAt.toISOString() });
    await secretary.noteChannel(channel);
    await secretary.noteChannel(runtime.store.parentRef(privateThread));
    expect(fs.existsSync(runtime.store.paths(channel).ledger)).toBe(false);
    expect(fs.existsSync(runtime.store.paths(privateThread).ledger)).toBe(false);
    for (const ref of [channel, privateThread]) {
      expect(await botThereSince(runtime.store, channel.guildId, (await readLedger(runtime.store, ref)).firstRunAt)).toEqual(seenAt);
    }
  });

  it("first contacts in many channels of one server at once read the server's record once", async () => {
    const seenAt = new Date(Date.now() - 60_000);
    const seenFile = firstSeenFile(runtime.store.root, channel.guildId);
    await runtime.store.writePrivateState(seenFile, { version: 1, firstSeenAt: seenAt.toISOString() });
    const reads = jest.spyOn(runtime.store, 'readState');
    const channels = Array.from({ length: 20 }, (_, i): ChannelRef => ({ ...channel, channelId: String(222222222222222300n + BigInt(i)) }));
    await Promise.all(channels.map((ref) => secretary.noteChannel(ref)));
    expect(reads.mock.calls.filter(([file]) => file === seenFile)).toHaveLength(1);
    for (const ref of channels) expect(fs.existsSync(runtime.store.paths(ref).ledger)).toBe(false);
  });
});
