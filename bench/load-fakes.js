#!/usr/bin/env node
// @ts-check
'use strict';
/**
 * The load benchmark's world (issue 7 §4): the fake Discord (guild, one member, N text channels)
 * and the fake Anthropic server that answers after --latency ms with the ids of the newest user turn.
 *
 * Two ways to use it:
 *   - in-process: `createWorld(opts)` (bench/load-run.js --fakes same, the old arrangement);
 *   - as a child process (bench/load-run.js --fakes child, the default): forked with an IPC channel,
 *     it answers commands `{ id, cmd, args }` with `{ id, ok, value | error }`:
 *       info        → apiUrl, botToken, modelBaseURL, channel ids
 *       restCount   → REST calls received so far (to wait for start-up calls to settle)
 *       warm        → one `warm up` mention per channel, resolves once each has its reply (so the
 *                     measured burst meets channels the bot already activated; --warm)
 *       mark        → start of the measured window (REST/model records before it are dropped)
 *       dispatch    → sends the burst (round-robin, setImmediate between rounds unless burst)
 *                     and returns its start and end time
 *       waitAcked   → resolves once every message's id appears in a reply POST (or on timeout)
 *       collect     → every message's key, id and dispatch time, REST calls and model requests of the window with their arrival times,
 *                     the bot's replies per channel as the fake stored them, fake-side problems,
 *                     the fakes' own CPU time and RSS
 *       stop        → closes both servers; the child then exits
 *
 * Every time is `performance.timeOrigin + performance.now()` (ms since the epoch, sub-ms), so the
 * bot process and this one compare on the same machine clock.
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');

require('../test/helpers/register-ts.js');
/** @type {typeof import('../test/fakes/discord/fakeDiscord')} */
// @ts-ignore -- a .ts path, loaded through the transpile-on-require hook above
const { FakeDiscord } = require('../test/fakes/discord/fakeDiscord.ts');
/** @type {typeof import('../test/fakes/model/server')} */
// @ts-ignore -- a .ts path, loaded through the transpile-on-require hook above
const { startFakeModelServer } = require('../test/fakes/model/server.ts');

const now = () => performance.timeOrigin + performance.now();
const { KEY, PART_LINE, keyOf, channelName } = require('./load-keys.js');

/** The ids of the newest user turn, parsed from its `[time UTC] name: load cCCCC mMM` lines. */
function idsInTurn(text) {
  const ids = [];
  let other = 0;
  for (const line of text.split('\n')) {
    const m = PART_LINE.exec(line.trim());
    if (m) ids.push(m[1]);
    else if (line.includes('load c')) other++;
  }
  return { ids, other };
}

/**
 * @param {{ channels: number, messages: number, latency: number }} o
 */
async function createWorld(o) {
  const d = await FakeDiscord.start();
  const guild = d.createGuild({ name: 'load' });
  const user = d.addMember(guild.id, { username: 'alice' });
  const channels = [];
  for (let c = 0; c < o.channels; c++) channels.push(d.createTextChannel(guild.id, { name: channelName(c) }));

  /** @type {Array<{ at: number, ids: string[], other: number }>} */
  const modelRequests = [];
  const model = await startFakeModelServer({
    latencyMs: o.latency,
    handler: (req) => {
      const at = now();
      const { ids, other } = idsInTurn(req.lastUserText);
      modelRequests.push({ at, ids, other });
      return ids.length ? `ack ${ids.join(' ')}` : 'ok';
    },
  });

  // Every REST call, timed on the fake's side: received = answered − the fake's own duration.
  /** @type {Array<{ route: string | null, status: number, recvAt: number, doneAt: number, content: string | null, path: string }>} */
  const rest = [];
  const acked = new Set();
  let ackTarget = Infinity;
  /** @type {Array<() => void>} */
  let ackWaiters = [];
  d.on('request', (r) => {
    const doneAt = now();
    const body = /** @type {any} */ (r.body);
    const content = typeof body?.content === 'string' ? body.content : null;
    rest.push({ route: r.route, status: r.status, recvAt: doneAt - r.durationMs, doneAt, content, path: r.path });
    if (r.route === 'POST /channels/:channelId/messages' && r.status === 200 && content) {
      for (const k of content.match(KEY) ?? []) acked.add(k);
      if (acked.size >= ackTarget) {
        const w = ackWaiters;
        ackWaiters = [];
        for (const f of w) f();
      }
    }
  });

  let restFrom = 0;
  let modelFrom = 0;
  let cpuFrom = process.cpuUsage();
  let rssPeak = 0;
  let warmed = false;
  /** @type {Array<{ key: string, c: number, m: number, id: string, dispatchAt: number }>} */
  let sent = [];
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
  }, 50);
  sampler.unref();

  return {
    info: () => ({
      apiUrl: d.apiUrl,
      botToken: d.botToken,
      guildId: guild.id,
      modelBaseURL: model.anthropicBaseURL,
      channelIds: channels.map((c) => c.id),
      pid: process.pid,
    }),
    restCount: () => rest.length,
    warm: async () => {
      for (const ch of channels) d.userSays(ch.id, user.id, 'warm up', { mentionsBot: true });
      const deadline = now() + 120_000;
      while (channels.some((ch) => d.botMessagesIn(ch.id).length < 1) && now() < deadline) await new Promise((r) => setTimeout(r, 20));
      warmed = true;
      return channels.filter((ch) => d.botMessagesIn(ch.id).length >= 1).length;
    },
    now,
    mark: () => {
      restFrom = rest.length;
      modelFrom = modelRequests.length;
      cpuFrom = process.cpuUsage();
      rssPeak = process.memoryUsage().rss;
      return now();
    },
    /** @param {{ burst: boolean }} a */
    dispatch: async (a) => {
      sent = [];
      const t0 = now();
      for (let m = 0; m < o.messages; m++) {
        for (let c = 0; c < o.channels; c++) {
          const key = keyOf(c, m);
          const dispatchAt = now();
          const msg = d.userSays(channels[c].id, user.id, `load ${key}`, { mentionsBot: true });
          sent.push({ key, c, m, id: msg.id, dispatchAt });
        }
        if (!a.burst) await new Promise((r) => setImmediate(r));
      }
      // The id list goes back with `collect`, after the window: not parsed by the bot's loop mid-run.
      return { t0, dispatchEnd: now() };
    },
    /** @param {{ total: number, timeoutMs: number }} a */
    waitAcked: async (a) => {
      ackTarget = a.total;
      if (acked.size < a.total) {
        await new Promise((resolve) => {
          const t = setTimeout(resolve, a.timeoutMs);
          ackWaiters.push(() => {
            clearTimeout(t);
            resolve(undefined);
          });
        });
      }
      return { acked: acked.size, at: now() };
    },
    collect: () => {
      const cpu = process.cpuUsage(cpuFrom);
      return {
        sent,
        rest: rest.slice(restFrom),
        modelRequests: modelRequests.slice(modelFrom),
        replies: channels.map((ch) =>
          d
            .botMessagesIn(ch.id)
            .slice(warmed ? 1 : 0)
            .map((r) => ({ content: String(r.content), ref: r.reference?.messageId ?? null })),
        ),
        problems: [...d.problems],
        unhandled: d.unhandled.map((r) => `${r.method} ${r.path}`),
        cpu: { userS: cpu.user / 1e6, systemS: cpu.system / 1e6 },
        rssPeakMB: Math.round((Math.max(rssPeak, process.memoryUsage().rss) / 1048576) * 10) / 10,
      };
    },
    stop: async () => {
      clearInterval(sampler);
      await d.stop();
      await model.close();
    },
  };
}

module.exports = { createWorld, idsInTurn, KEY };

// ---- as a child process ------------------------------------------------------------------------
if (require.main === module) {
  if (!process.send) throw new Error('bench/load-fakes.js runs as a forked child (IPC) of bench/load-run.js');
  const args = process.argv.slice(2);
  const num = (flag, dflt) => {
    const i = args.indexOf(flag);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  /** @type {Awaited<ReturnType<typeof createWorld>> | null} */
  let world = null;
  const ready = createWorld({ channels: num('--channels', 100), messages: num('--messages', 20), latency: num('--latency', 20) }).then((w) => {
    world = w;
  });
  const send = (m) => new Promise((resolve) => process.send?.(m, () => resolve(undefined)));
  process.on('message', async (/** @type {any} */ msg) => {
    try {
      await ready;
      if (!world) throw new Error('no world');
      const fn = /** @type {any} */ (world)[msg.cmd];
      if (typeof fn !== 'function') throw new Error(`unknown command ${msg.cmd}`);
      const value = await fn(msg.args ?? {});
      await send({ id: msg.id, ok: true, value });
      if (msg.cmd === 'stop') process.exit(0);
    } catch (err) {
      await send({ id: msg.id, ok: false, error: String(/** @type {any} */ (err)?.stack ?? err) });
    }
  });
  // The parent gone (crash, Ctrl-C): do not linger with open servers.
  process.on('disconnect', () => process.exit(0));
  ready.catch((err) => {
    console.error(`load-fakes: ${path.basename(__filename)} failed to start`, err);
    process.exit(1);
  });
}
