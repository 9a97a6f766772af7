import fs from 'node:fs';
import path from 'node:path';
import type { RunningBot } from '../../src/bot/start/start';
import type { FakeRequest } from '../fakes/model/types';
import type { FakeChannel, FakeGuild, FakeMessage, FakeUser } from '../fakes/discord/state';
import { BotHarness, startWithControlChannel } from '../helpers/botHarness';
import { knowledgeModel } from '../helpers/knowledgeModel';

/**
 * Drift notes against the fake Discord and the fake model: a message that contradicts a decision
 * in force gets one small line citing it and its pinned post (under the bot's reply when the bot
 * was asked, a short message of its own when not); the same decision is not raised again in that
 * conversation the same day; agreeing and unrelated messages get nothing; the switch turns it off.
 */
const isDrift = (r: { system: string }) => /check one chat message against decisions/.test(r.system);

/** A good judge: MySQL or SQLite against Postgres, Friday against Tuesday; anything else is no contradiction. */
function judge(req: FakeRequest): string {
  const input = req.messages[0].text;
  const message = /<message>\n([\s\S]*?)\n<\/message>/.exec(input)?.[1] ?? '';
  const shown = [...input.matchAll(/^- (d-[0-9a-f]{10}) \[[^\]]+\] [^:]+: (.*)$/gm)].map((m) => ({ id: m[1], text: m[2] }));
  const against = (word: RegExp, decision: RegExp) =>
    word.test(message) && !/glad|right call|agree/i.test(message) ? shown.find((d) => decision.test(d.text)) : undefined;
  const hit = against(/mysql|sqlite/i, /postgres/i) ?? against(/friday/i, /tuesday/i);
  return JSON.stringify({ contradicts: hit?.id ?? null, why: hit ? 'another choice for the same thing' : '' });
}

function model(req: FakeRequest): string | { text: string; delayMs: number } {
  if (isDrift(req)) return judge(req);
  // The bot's answer takes a moment, as a real one does: the drift judgement is in before it.
  if (!/Secretary of a team/.test(req.system)) return { text: 'Noted.', delayMs: 1_000 };
  return knowledgeModel()(req);
}

describe('drift notes', () => {
  let h: BotHarness;
  let guild: FakeGuild;
  let general: FakeChannel;
  let control: FakeChannel;
  let alice: FakeUser;
  let bo: FakeUser;

  async function start(config?: unknown): Promise<void> {
    ({ h, guild, general, control, alice, bo } = await startWithControlChannel('orders', config));
    h.model.setHandler(model as (req: FakeRequest) => string);
  }
  afterEach(async () => {
    await h.close();
  });

  const posts = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('📝 Condensation'));
  /** Condenses a thread of general deciding `decision`; returns the pinned post. */
  async function decide(name: string, decision: string): Promise<FakeMessage> {
    const thread = h.discord.createThread(general.id, { name, ownerId: alice.id });
    const first = h.discord.userSays(thread.id, alice.id, `what about ${name}?`);
    h.discord.userSays(thread.id, bo.id, `decision: ${decision}`);
    const before = posts().length;
    h.discord.react(thread.id, first.id, alice.id, '📝');
    await h.discord.waitFor(() => (posts().length > before ? true : undefined), 8000, 'the post');
    const ctx = path.join(h.dataDir, guild.id, general.id, '.minutes', 'context.json');
    await h.discord.waitFor(() => (fs.existsSync(ctx) && fs.readFileSync(ctx, 'utf8').includes(decision) ? true : undefined), 8000, 'context.json');
    return posts()[posts().length - 1];
  }
  /** Every message so far was taken in and every check it started has finished (stopping the bot waits for them). */
  const processed = async () => {
    const q = h.discord.userSays(control.id, alice.id, 'are you there?', { mentionsBot: true });
    await h.discord.waitForBotMessage(control.id, { after: q.id, timeoutMs: 8000 });
    await h.bot.stop();
    h.bot = undefined as unknown as RunningBot;
  };
  const driftCalls = () => h.model.requests.filter(isDrift).length;
  const driftLines = () => h.discord.botMessagesIn(general.id).filter((m) => m.content.includes('-# This differs from a decision in force'));
  const today = () => new Date().toISOString().slice(0, 10);

  it('one line under the reply, one short message when not asked, then nothing more for the same decision that day; agreeing and unrelated get none', async () => {
    await start();
    const db = await decide('the database', 'the orders database moves to Postgres 16');
    const rel = await decide('releases', 'releases go out on Tuesdays');
    const dbLink = `https://discord.com/channels/${guild.id}/${general.id}/${db.id}`;
    const relLink = `https://discord.com/channels/${guild.id}/${general.id}/${rel.id}`;

    // Agreeing: a call, no line. Unrelated: not even a call.
    h.discord.userSays(general.id, alice.id, "let's keep the orders on Postgres 16, it was the right call");
    h.discord.userSays(general.id, bo.id, 'lunch at noon?');
    const asked = h.discord.userSays(general.id, alice.id, "let's just put the orders on MySQL", { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: asked.id, timeoutMs: 8000 });
    expect(reply.content).toBe(
      `Noted.\n-# This differs from a decision in force since ${today()}: “the orders database moves to Postgres 16” — <${dbLink}>. If that has changed, record the new decision: react 📝 or run /condense.`,
    );
    expect(h.discord.pingsNobody(reply)).toBe(true);

    const aside = h.discord.userSays(general.id, bo.id, "let's ship the release on Friday instead");
    const note = await h.discord.waitForBotMessage(general.id, { after: aside.id, timeoutMs: 8000 });
    expect(note.content).toBe(
      `-# This differs from a decision in force since ${today()}: “releases go out on Tuesdays” — <${relLink}>. If that has changed, record the new decision: react 📝 or run /condense.`,
    );
    expect(h.discord.pingsNobody(note)).toBe(true);
    expect(driftCalls()).toBe(3);

    // The same decision again the same day, in the same conversation: no call, no line.
    h.discord.userSays(general.id, bo.id, 'we should really move the orders back to MySQL');
    await processed();
    expect(driftCalls()).toBe(3);
    expect(driftLines()).toHaveLength(2);
    const state = JSON.parse(fs.readFileSync(path.join(h.dataDir, guild.id, general.id, '.minutes', 'drift.json'), 'utf8'));
    expect(Object.values(state.raised)).toEqual([today(), today()]);
  });

  it('nothing is checked where the bot may not post, or when discord.driftNotes is false', async () => {
    await start({ limits: { maxRetries: 2, requestsPerMinute: 0 }, discord: { driftNotes: false } });
    await decide('the database', 'the orders database moves to Postgres 16');
    const asked = h.discord.userSays(general.id, alice.id, "let's just put the orders on MySQL", { mentionsBot: true });
    const reply = await h.discord.waitForBotMessage(general.id, { after: asked.id, timeoutMs: 8000 });
    expect(reply.content).toBe('Noted.');
    h.discord.userSays(general.id, bo.id, 'we should move the orders to SQLite');
    await processed();
    expect(driftCalls()).toBe(0);
    expect(driftLines()).toHaveLength(0);

    await h.close();
    await start();
    await decide('the database', 'the orders database moves to Postgres 16');
    h.discord.setBotPermissions(general.id, { SendMessages: false });
    h.discord.userSays(general.id, bo.id, 'we should move the orders to SQLite');
    await processed();
    expect(driftCalls()).toBe(0);
  });
});
