import fs from 'node:fs';
import fc from 'fast-check';
import type { Runtime } from '../../src/app/runtime';
import { forgetCommand } from '../../src/chat/commands';
import type { InboundMessage } from '../../src/chat/conversation';
import { mayForgetEntry, recordedAuthor, requestSource } from '../../src/chat/forgetting';
import { parseMemory } from '../../src/memory/entries';
import type { ChannelRef } from '../../src/memory/paths';
import { testRuntime } from '../helpers/runtime';
import { withTmpAndFakeModel } from '../helpers/tmpAndFakeModel';

/**
 * Who may make the bot forget: an admin, or the person whose words the entry holds (by the user id
 * its provenance records). An unset field never grants: a message that says nothing of its author
 * cannot make the bot forget, whatever the transport forgot to fill in.
 */
const ref: ChannelRef = { kind: 'discord', guildId: '100000000000000001', channelId: '200000000000000002' };
const ANA = '300000000000000003';
const BO = '400000000000000004';
const MEMORY =
  '# Channel Memory\n\n## Durable Facts\n\n' +
  `- [m-aaaaaa] the staging VPN needs a hardware key [from: ana, user ${ANA}, msg 500000000000000005, 2026-11-02]\n` +
  '- [m-bbbbbb] the exporter ships on Fridays [from: chat, msg 600000000000000006, 2026-11-02]\n';

describe('the rule', () => {
  const entry = (source: string) => ({ source });

  it('the author recorded by requestSource is read back for any display name, even one that spells another id', () => {
    fc.assert(
      fc.property(fc.string(), fc.stringMatching(/^\d{1,20}$/), fc.stringMatching(/^\d{1,20}$/), (name, user, msg) => {
        const source = requestSource({ id: msg, authorName: name, authorId: user });
        // A name with brackets cannot close the provenance tag early (the author would lose their entry).
        // As MEMORY.md stores it, then parses it back.
        const line = parseMemory(`- [m-abcdef] a fact [from: ${source.replace(/\s+/g, ' ').trim()}, 2026-11-02]`)[0]!;
        return recordedAuthor(line.source) === user;
      }),
    );
    expect(recordedAuthor(`mallory, user ${ANA}, msg 7, user ${BO}, msg 8`)).toBe(BO);
  });

  it('grants an admin, and the recorded author only; nothing unset grants', () => {
    const said = entry(`ana, user ${ANA}, msg 1`);
    expect(mayForgetEntry({ admin: true }, said)).toBe(true);
    expect(mayForgetEntry({ userId: ANA }, said)).toBe(true);
    expect(mayForgetEntry({ userId: BO }, said)).toBe(false);
    expect(mayForgetEntry({}, said)).toBe(false);
    expect(mayForgetEntry({ admin: false, userId: undefined }, said)).toBe(false);
    // No recorded id (a name is not proof; an inferred fact, a hand-written line): admins only.
    expect(mayForgetEntry({ userId: ANA }, entry('ana, msg 1'))).toBe(false);
    expect(mayForgetEntry({ userId: ANA }, { source: undefined })).toBe(false);
    expect(mayForgetEntry({ userId: ANA }, undefined)).toBe(false);
    expect(mayForgetEntry({ admin: true }, undefined)).toBe(true);
    // A console message has no id: its provenance is as before.
    expect(requestSource({ id: 'c-1', authorName: 'you' })).toBe('you, msg c-1');
  });
});

describe('forgetting through the engine and /memory forget', () => {
  const world = withTmpAndFakeModel();
  let rt: Runtime | undefined;
  afterEach(async () => {
    await rt?.close();
    rt = undefined;
  });

  async function start(): Promise<Runtime> {
    world.fake.setHandler(() => 'noted');
    rt = await testRuntime(world.tmp.dir, world.fake);
    const p = rt.store.paths(ref);
    fs.mkdirSync(p.channelDir, { recursive: true });
    fs.writeFileSync(p.memory, MEMORY);
    return rt;
  }
  let seq = 0;
  const say = (r: Runtime, content: string, extra: Partial<InboundMessage> = {}) =>
    r.engine.respond(ref, [
      { id: `7000000000000${String(seq++).padStart(5, '0')}`, authorName: 'someone', content, at: new Date('2026-11-25T09:00:00Z'), ...extra },
    ]);
  const memory = (r: Runtime) => fs.readFileSync(r.store.paths(ref).memory, 'utf8');
  const ctx = (r: Runtime) => ({
    store: r.store,
    engine: r.engine,
    clock: () => new Date(),
    actor: 'x',
    usage: r.usage,
    upkeep: { lastRuns: async () => ({}) },
  });

  it('a message that says nothing of its author cannot make the bot forget; one that names another member neither', async () => {
    const r = await start();
    const unset = await say(r, 'forget the staging VPN needs a hardware key');
    expect(unset.text).toContain('(Only admins and the person who said it can make me forget m-aaaaaa.)');
    const other = await say(r, 'forget the staging VPN needs a hardware key', { authorName: 'ana', authorId: BO });
    expect(other.text).toContain('(Only admins and the person who said it can make me forget m-aaaaaa.)');
    expect(memory(r)).toContain('m-aaaaaa');
  });

  it('the author can; an admin can forget any entry', async () => {
    const r = await start();
    expect((await say(r, 'forget the staging VPN needs a hardware key', { authorId: ANA })).text).toContain('(Forgot m-aaaaaa');
    expect((await say(r, 'forget the exporter ships on Fridays', { authorId: ANA })).text).toContain('can make me forget m-bbbbbb');
    expect((await say(r, 'forget the exporter ships on Fridays', { mayForget: true })).text).toContain('(Forgot m-bbbbbb');
    expect(memory(r)).not.toMatch(/m-aaaaaa|m-bbbbbb/);
  });

  it('what someone asks to remember records their id, so they can make it forget it later', async () => {
    const r = await start();
    await say(r, 'remember that the release train leaves on Tuesdays', { authorName: 'bo', authorId: BO, id: '800000000000000008' });
    expect(memory(r)).toMatch(new RegExp(`the release train leaves on Tuesdays \\[from: bo, user ${BO}, msg 800000000000000008, \\d{4}-\\d{2}-\\d{2}\\]`));
    expect((await say(r, 'forget the release train leaves on Tuesdays', { authorId: ANA })).text).toContain('can make me forget');
    expect((await say(r, 'forget the release train leaves on Tuesdays', { authorId: BO })).text).toContain('(Forgot');
  });

  it('/memory forget: the same rule', async () => {
    const r = await start();
    expect(await forgetCommand(ctx(r), ref, 'm-aaaaaa', {})).toBe('Nothing forgotten: Only admins and the person who said it can make me forget m-aaaaaa.');
    expect(await forgetCommand(ctx(r), ref, 'm-aaaaaa', { userId: BO })).toMatch(/^Nothing forgotten/);
    expect(await forgetCommand(ctx(r), ref, 'm-bbbbbb', { userId: ANA })).toMatch(/^Nothing forgotten/);
    expect(await forgetCommand(ctx(r), ref, 'm-aaaaaa', { userId: ANA })).toMatch(/^Forgot m-aaaaaa/);
    expect(await forgetCommand(ctx(r), ref, 'm-bbbbbb', { admin: true })).toMatch(/^Forgot m-bbbbbb/);
  });
});
