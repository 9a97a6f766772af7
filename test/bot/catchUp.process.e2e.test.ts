/**
 * `minutes start` (the real bin/minutes.js) killed with SIGKILL in the middle of a burst of
 * "remember that …" mentions in two channels, more mentions posted while it is down, then started
 * again: every fact lands in MEMORY.md exactly once, every mention is covered by exactly one reply,
 * and no message is replied to twice. The kill lands at five different points of the work.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { FakeMessage } from '../fakes/discord/state';
import type { FakeRequest } from '../fakes/model/types';
import { BotHarness, processEnv, startHarness } from '../helpers/botHarness';

const BIN = path.join(__dirname, '../../bin/minutes.js');
const BURST = 12;
const WHILE_DOWN = 2;

type KillPoint = { at: 'model-request'; n: number } | { at: 'reply'; n: number } | { at: 'memory-write'; fact: string };

const POINTS: [string, KillPoint][] = [
  ['at the first model request, before any reply', { at: 'model-request', n: 1 }],
  ['the instant Discord receives the first reply', { at: 'reply', n: 1 }],
  ['at the fourth model request', { at: 'model-request', n: 4 }],
  ['the instant Discord receives the third reply', { at: 'reply', n: 3 }],
  ['as soon as a fact is in MEMORY.md, before its reply', { at: 'memory-write', fact: 'kiwi-1-5' }],
];

/** The facts a model request's newest messages carry (people's lines only: recall quotes older ones). */
function factsAsked(req: FakeRequest): string[] {
  return req.lastUserText
    .split('\n')
    .filter((l) => /^\[[^\]]+ UTC\] alice: /.test(l))
    .flatMap((l) => l.match(/kiwi-\d+-\d+/g) ?? []);
}

describe('minutes start killed with SIGKILL mid-burst, then started again', () => {
  let h: BotHarness;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    await h?.close();
  });

  it.each(POINTS)(
    'loses nothing and answers nothing twice: killed %s',
    async (_name, point) => {
      let guildId = '';
      let channels: string[] = [];
      let alice = '';
      h = await startHarness({
        launch: false,
        setup: (d) => {
          const b = d.setupBasic({ channelName: 'ops' });
          guildId = b.guild.id;
          alice = b.user.id;
          channels = [b.channel.id, d.createTextChannel(b.guild.id, { name: 'dev' }).id];
        },
      });
      const config = path.join(path.dirname(h.dataDir), 'minutes.config.json');
      fs.writeFileSync(
        config,
        JSON.stringify({ limits: { requestsPerMinute: 0, maxRetries: 0 }, recall: { semantic: 'off' }, discord: { offerCondense: false, driftNotes: false } }),
      );
      const memoryOf = (c: string) => path.join(h.dataDir, guildId, c, 'MEMORY.md');
      let chatRequests = 0;
      let killed = false;
      const kill = () => {
        if (killed || !child) return;
        killed = true;
        process.kill(-child.pid!, 'SIGKILL');
      };
      h.model.setHandler(async (req) => {
        const facts = factsAsked(req);
        if (!facts.length) return 'nothing to add';
        if (point.at === 'model-request' && ++chatRequests === point.n) kill();
        await new Promise((r) => setTimeout(r, 150));
        return `ack ${facts.join(' ')}`;
      });
      let replies = 0;
      const off = h.discord.on('request', (r) => {
        if (point.at === 'reply' && r.route === 'POST /channels/:channelId/messages' && ++replies === point.n) kill();
      });
      const poll =
        point.at === 'memory-write'
          ? setInterval(() => {
              if (channels.some((c) => fs.existsSync(memoryOf(c)) && fs.readFileSync(memoryOf(c), 'utf8').includes(point.fact))) kill();
            }, 2)
          : undefined;

      const start = () => {
        const p = spawn(process.execPath, [BIN, 'start'], {
          cwd: path.dirname(h.dataDir),
          env: {
            ...processEnv(h),
            MINUTES_CONFIG: config,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
          detached: true,
        });
        let err = '';
        p.stderr!.on('data', (d) => (err += d));
        const exited = new Promise<NodeJS.Signals | number | null>((resolve) => p.once('exit', (code, sig) => resolve(sig ?? code)));
        const loggedIn = h.discord.waitFor(() => (err.includes('"logged in to Discord"') ? true : undefined), 30_000, 'logged in');
        return { p, exited, loggedIn, stderr: () => err };
      };

      const first = start();
      child = first.p;
      await first.loggedIn;
      const mentions: FakeMessage[] = [];
      const say = (c: number, i: number) =>
        mentions.push(h.discord.userSays(channels[c], alice, `remember that burst fact number ${c}-${i} is kiwi-${c}-${i}`, { mentionsBot: true }));
      for (let i = 0; i < BURST; i++) {
        for (let c = 0; c < channels.length; c++) say(c, i);
        await new Promise((r) => setTimeout(r, 120));
      }
      // Whatever point was chosen, the bot is down before the mentions below are posted.
      await h.discord.waitFor(() => (killed ? true : undefined), 20_000, 'the kill point');
      expect(await first.exited).toBe('SIGKILL');
      clearInterval(poll);
      off();
      for (let i = BURST; i < BURST + WHILE_DOWN; i++) for (let c = 0; c < channels.length; c++) say(c, i);

      const second = start();
      child = second.p;
      await second.loggedIn;
      const allFacts = mentions.map((m) => /kiwi-\d+-\d+/.exec(m.content)![0]);
      // The "ack" lines of each reply (a reply sent again after the crash may hold several).
      const acks = () =>
        channels
          .flatMap((c) => h.discord.botMessagesIn(c))
          .map((m) =>
            m.content
              .split('\n')
              .filter((l) => l.startsWith('ack '))
              .join(' '),
          );
      const acked = (f: string) => acks().filter((t) => new RegExp(`\\b${f}\\b`).test(t)).length;
      await h.discord.waitFor(() => (allFacts.every((f) => acked(f) > 0) ? true : undefined), 30_000, 'every mention answered');
      // Anything late (a second answer) has time to show.
      await new Promise((r) => setTimeout(r, 800));
      second.p.kill('SIGTERM');
      expect(await second.exited).toBe(0);

      // Every fact once in its channel's MEMORY.md.
      for (const [c, channel] of channels.entries()) {
        const memory = fs.readFileSync(memoryOf(channel), 'utf8');
        for (let i = 0; i < BURST + WHILE_DOWN; i++) {
          const fact = `kiwi-${c}-${i}`;
          expect({ fact, times: memory.match(new RegExp(`\\b${fact}\\b`, 'g'))?.length ?? 0 }).toEqual({ fact, times: 1 });
        }
      }
      // Every mention covered by exactly one reply (the fake model's "ack" lists the facts it was asked).
      for (const f of allFacts) expect({ fact: f, replies: acked(f) }).toEqual({ fact: f, replies: 1 });
      // No message replied to twice.
      const referenced = channels.flatMap((c) => h.discord.botMessagesIn(c)).flatMap((m) => (m.reference ? [m.reference.messageId] : []));
      expect(new Set(referenced).size).toBe(referenced.length);
    },
    90_000,
  );
});
