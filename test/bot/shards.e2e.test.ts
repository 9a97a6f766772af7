/**
 * Two shard processes of one bot, played by two bots in this process (shards 0 and 1 of 2) on one
 * data root: each serves only its guild, and shard 0's Secretary upkeep (resuming interrupted
 * condensations, the audit) never touches the folder of a guild on shard 1.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { RunningBot } from '../../src/bot/start/start';
import { queueFile } from '../../src/bot/secretary/auditThreads';
import { EMPTY_CONTEXT } from '../../src/condense/knowledge/contextData';
import type { ChannelRef } from '../../src/memory/paths';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { startFakeModelServer, type FakeModelServer } from '../fakes/model/server';
import { BotHarness, capturedLogger, launchReady, startHarness } from '../helpers/botHarness';

type Place = { guild: FakeGuild; channel: FakeChannel; user: FakeUser };

/** Every file under `dir` with its content (what "untouched" is checked against). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile()) out[path.relative(dir, path.join(e.parentPath, e.name))] = fs.readFileSync(path.join(e.parentPath, e.name), 'utf8');
  }
  return out;
}

describe('a bot sharded two ways, one data root', () => {
  let h: BotHarness;
  let model1: FakeModelServer;
  let shard1: RunningBot | undefined;
  let a: Place;
  let b: Place;

  beforeEach(async () => {
    h = await startHarness({
      shards: { ids: [0], count: 2 },
      setup: (d) => {
        a = d.setupBasic({ guildName: 'A', onShard: [0, 2] });
        b = d.setupBasic({ guildName: 'B', onShard: [1, 2], username: 'bob' });
      },
    });
    // Shard 1 talks to its own fake model, so an answer tells which shard wrote it.
    model1 = await startFakeModelServer();
    h.model.setHandler(() => 'from shard 0');
    model1.setHandler(() => 'from shard 1');
    const settings1 = { ...h.settings, anthropic: { ...h.settings.anthropic, baseURL: model1.anthropicBaseURL } };
    shard1 = await launchReady(settings1, capturedLogger().logger, { shards: { ids: [1], count: 2 } });
  });
  afterEach(async () => {
    await shard1?.stop();
    await h.close();
    await model1.close();
  });

  it('answers each guild exactly once, from the shard owning it, and each writes only its own guild folder', async () => {
    expect([[...h.bot.client.guilds.cache.keys()], [...shard1!.client.guilds.cache.keys()]]).toEqual([[a.guild.id], [b.guild.id]]);
    const qa = h.discord.userSays(a.channel.id, a.user.id, 'what did we decide in A?', { mentionsBot: true });
    const qb = h.discord.userSays(b.channel.id, b.user.id, 'what did we decide in B?', { mentionsBot: true });
    expect((await h.discord.waitForBotMessage(a.channel.id, { after: qa.id })).content).toBe('from shard 0');
    expect((await h.discord.waitForBotMessage(b.channel.id, { after: qb.id })).content).toBe('from shard 1');
    await new Promise((r) => setTimeout(r, 300));
    expect([h.discord.botMessagesIn(a.channel.id).length, h.discord.botMessagesIn(b.channel.id).length]).toEqual([1, 1]);
    expect(h.model.requests.map((r) => r.lastUserText).join('\n')).not.toContain('in B?');
    expect(model1.requests.map((r) => r.lastUserText).join('\n')).not.toContain('in A?');

    await Promise.all([h.bot.runtime.store.idle(), shard1!.runtime.store.idle()]);
    const folder = (g: Place) => Object.values(snapshot(path.join(h.dataDir, g.guild.id, g.channel.id))).join('\n');
    expect([folder(a).includes('from shard 0'), folder(a).includes('from shard 1')]).toEqual([true, false]);
    expect([folder(b).includes('from shard 1'), folder(b).includes('from shard 0')]).toEqual([true, false]);
  });

  it("shard 0's resume of interrupted condensations and its audit leave guild B's folder untouched (leases, queue, CONTEXT.md)", async () => {
    // Shard 1 out of the way (its own start-up sweep would act on B): only shard 0 acts now.
    await shard1!.stop();
    shard1 = undefined;
    const store = h.bot.runtime.store;
    const seed = (g: Place) => {
      const ref: ChannelRef = { kind: 'discord', guildId: g.guild.id, channelId: g.channel.id };
      const state = store.paths(ref).channelStateDir;
      fs.mkdirSync(state, { recursive: true });
      const now = new Date().toISOString();
      // A condensation another process is running right now (its lease is live).
      fs.writeFileSync(
        path.join(state, 'ledger.json'),
        JSON.stringify({
          version: 1,
          firstRunAt: now,
          entries: {
            k1: {
              key: 'k1',
              status: 'running',
              trigger: 'auto',
              attempts: 1,
              createdAt: now,
              updatedAt: now,
              decisionId: 'd-1',
              leaseUntil: new Date(Date.now() + 600_000).toISOString(),
              steps: {},
              facts: { date: '2026-11-01', channelName: 'general', participants: ['al', 'bea'], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
              conversation: { label: 'x', threadId: '1', channelName: 'general' },
            },
          },
        }),
      );
      fs.writeFileSync(queueFile(store, ref), JSON.stringify({ threadId: '1', at: now }) + '\n');
      fs.writeFileSync(path.join(state, 'context.json'), JSON.stringify({ ...EMPTY_CONTEXT, currentState: { text: 'Decided.', date: '2026-11-01' } }));
      fs.writeFileSync(path.join(store.paths(ref).channelDir, 'CONTEXT.md'), '# written by hand\n');
      return store.paths(ref).channelDir;
    };
    const dirA = seed(a);
    const dirB = seed(b);
    const beforeA = snapshot(dirA);
    const beforeB = snapshot(dirB);

    // The periodic sweep leaves a live lease alone: it may be a condensation running in this process.
    await h.bot.secretary.resumeInterrupted();
    expect(snapshot(dirA)['.minutes/ledger.json']).toBe(beforeA['.minutes/ledger.json']);
    await h.bot.secretary.resumeInterrupted({ atStart: true });
    await h.bot.secretary.audit();

    expect(snapshot(dirB)).toEqual(beforeB);
    // The same seeds in guild A were acted on: the lease released, the queue consumed, CONTEXT.md re-rendered.
    const afterA = snapshot(dirA);
    expect(afterA['.minutes/ledger.json']).toContain('"leaseUntil": "1970-01-01T00:00:00.000Z"');
    expect(afterA['.minutes/condense-queue.jsonl']).toBeUndefined();
    expect(afterA['CONTEXT.md']).not.toBe(beforeA['CONTEXT.md']);
  });
});
