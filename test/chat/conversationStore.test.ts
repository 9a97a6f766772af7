import fs from 'node:fs';
import path from 'node:path';
import type { Runtime } from '../../src/app/runtime';
import { ChatEngine } from '../../src/chat/engine';
import { ConversationStore } from '../../src/chat/conversationStore';
import type { InboundMessage } from '../../src/chat/conversation';
import { silentLogger } from '../../src/log/logger';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { startFakeModelServer, FakeModelServer } from '../fakes/model/server';
import { manualClock, testRuntime } from '../helpers/runtime';
import { makeTmpDir } from '../helpers/tmp';

/**
 * The stored conversation has one owner, the conversation store: the engine appends turns through
 * it, upkeep compacts through it, and neither calls the other to do so.
 */
describe('the conversation store', () => {
  let fake: FakeModelServer;
  let tmp: ReturnType<typeof makeTmpDir>;
  let rt: Runtime | undefined;
  const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
  const clock = manualClock();
  const msg = (id: string, content: string): InboundMessage => ({ id, authorName: 'al', content, at: clock.now() });

  beforeEach(async () => {
    tmp = makeTmpDir();
    fake = await startFakeModelServer();
  });
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
    await fake.close();
    tmp.cleanup();
  });

  it("a compaction's change lands while a turn waits on the model, and the turn appends its exchange after it", async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    await rt.engine.respond(ref, [msg('1', 'first message about the importer')]);
    let arrived!: () => void;
    const asked = new Promise<void>((r) => (arrived = r));
    let release!: () => void;
    const answer = new Promise<void>((r) => (release = r));
    fake.setHandler(async () => {
      arrived();
      await answer;
      return 'second answer';
    });
    const reply = rt.engine.respond(ref, [msg('2', 'second message')]);
    await asked;
    // What upkeep's compaction does: it must not wait for the turn in flight (it used to queue behind it).
    const { state } = await rt.conversations.update(ref, (c) => ({ ...c, summary: 'S', turns: c.turns.slice(2), compactedTurns: c.compactedTurns + 2 }));
    expect(state.turns).toEqual([]);
    release();
    expect((await reply).text).toBe('second answer');
    await rt.engine.idle();
    const conv = await rt.engine.conversation(ref);
    expect(conv.summary).toBe('S');
    expect(conv.compactedTurns).toBe(2);
    expect(conv.turns.map((t) => t.content)).toEqual([expect.stringContaining('second message'), 'second answer']);
    // On disk: the compaction's snapshot, and the turn as a journal line after it.
    const onDisk = JSON.parse(fs.readFileSync(path.join(rt.store.paths(ref).stateDir, 'conversation.json'), 'utf8'));
    expect(onDisk).toEqual({ ...conv, turns: [], journalSeq: 1 });
    expect(await new ConversationStore({ store: rt.store, logger: silentLogger() }).get(ref)).toEqual(conv);
  });

  it("a new conversation's journal folder is made while its first turn waits on the model: the turn's append only writes", async () => {
    const store = new ChannelStore({ root: tmp.dir, clock: clock.now });
    const conversations = new ConversationStore({ store, logger: silentLogger() });
    const journal = store.paths(ref).conversationJournal;
    // What a first turn does before its model request: the new conversation, with no file read.
    expect(conversations.peek(ref)?.turns).toEqual([]);
    for (let i = 0; i < 400 && !fs.existsSync(journal); i++) await new Promise((r) => setTimeout(r, 5));
    const mkdirSync = jest.spyOn(fs, 'mkdirSync');
    try {
      await conversations.append(ref, [
        { role: 'user', content: 'hello', at: clock.now().toISOString() },
        { role: 'assistant', content: 'hi', at: clock.now().toISOString() },
      ]);
      expect(mkdirSync).not.toHaveBeenCalled();
    } finally {
      mkdirSync.mockRestore();
    }
    await conversations.close();
    expect((await new ConversationStore({ store, logger: silentLogger() }).get(ref)).turns.map((t) => t.content)).toEqual(['hello', 'hi']);
  });

  it('the engine announces each stored turn to every listener, and asks them to shorten a conversation that is too long', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    const conversations = new ConversationStore({ store: rt.store, logger: silentLogger() });
    const heard: string[] = [];
    const engine = new ChatEngine({
      store: rt.store,
      conversations,
      model: rt.model,
      recall: rt.recall,
      usage: rt.usage,
      logger: silentLogger(),
      clock: clock.now,
      settings: { contextMaxChars: 8000 },
      listeners: [
        { turnStored: (_ref, c) => heard.push(`a:${c.turns.length}`) },
        {
          turnStored: (_ref, c) => heard.push(`b:${c.turns.length}`),
          contextTooLong: async (r) => {
            heard.push('shorten');
            await conversations.update(r, (c) => ({ ...c, turns: [], compactedTurns: c.compactedTurns + c.turns.length }));
          },
        },
      ],
    });
    await engine.respond(ref, [msg('1', 'hello')]);
    expect(heard).toEqual(['a:2', 'b:2']);
    fake.enqueue({ error: { status: 400, kind: 'context_too_long' } });
    await engine.respond(ref, [msg('2', 'again')]);
    expect(heard).toEqual(['a:2', 'b:2', 'shorten', 'a:2', 'b:2']);
    expect((await conversations.get(ref)).compactedTurns).toBe(2);
    await engine.idle();
  });

  it('with no listener, a conversation too long is the error it is', async () => {
    rt = await testRuntime(tmp.dir, fake, { clock: clock.now });
    const engine = new ChatEngine({
      store: rt.store,
      conversations: new ConversationStore({ store: rt.store, logger: silentLogger() }),
      model: rt.model,
      recall: rt.recall,
      usage: rt.usage,
      logger: silentLogger(),
      clock: clock.now,
      settings: { contextMaxChars: 8000 },
    });
    fake.enqueue({ error: { status: 400, kind: 'context_too_long' } });
    await expect(engine.respond(ref, [msg('1', 'hello')])).rejects.toMatchObject({ kind: 'context_too_long' });
    await engine.idle();
  });
});
