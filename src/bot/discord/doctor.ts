import { ApplicationFlagsBitField, Client, GuildBasedChannel } from 'discord.js';
import type { ConfigFile } from '../../config/schema';
import { createDiscordClient } from './client';
import { botPermissionsIn, missingPermissions } from './permissions';

export interface Finding {
  ok: boolean;
  check: string;
  /** What was found; for a problem, what is wrong and how to fix it, in one line. */
  detail: string;
}

/** How long the gateway may take to become ready before the doctor gives up on it. */
const READY_TIMEOUT_MS = 20_000;
/** How long one REST request may take. */
const REST_TIMEOUT_MS = 10_000;

/**
 * Discord checks: the token, the privileged intent, and each configured channel's permissions.
 * Logs in like the bot does (the gateway is the only place the effective permissions are known).
 */
export async function discordFindings(o: {
  token: string;
  apiUrl: string;
  discord: ConfigFile['discord'];
  /** Per REST request; tests shorten it. */
  restTimeoutMs?: number;
}): Promise<Finding[]> {
  const out: Finding[] = [];
  const restTimeoutMs = o.restTimeoutMs ?? REST_TIMEOUT_MS;
  // A short limit and no retries: discord.js's own (15 s, 3 retries) kept a dead URL waiting 60 s.
  const client = createDiscordClient({ apiUrl: o.apiUrl, restTimeoutMs });
  let timer: NodeJS.Timeout | undefined;
  try {
    const ready = new Promise<Client<true>>((resolve, reject) => {
      client.once('clientReady', resolve);
      timer = setTimeout(() => reject(new Error(`not ready within ${READY_TIMEOUT_MS / 1000} s`)), READY_TIMEOUT_MS);
      timer.unref();
    });
    // A failed login returns before anyone awaits `ready`: its timeout must not reject unobserved.
    ready.catch(() => undefined);
    try {
      await client.login(o.token);
    } catch (err) {
      const e = err as { code?: string; message?: string };
      if (e.code === 'TokenInvalid' || /401/.test(e.message ?? '')) {
        out.push({
          ok: false,
          check: 'token',
          detail: 'Discord rejected DISCORD_TOKEN: copy it again from Developer Portal → your app → Bot → Reset Token into .env',
        });
      } else if (e.code === 'DisallowedIntents' || /4014|intent/i.test(e.message ?? '')) {
        out.push({ ok: true, check: 'token', detail: 'accepted' });
        out.push({
          ok: false,
          check: 'intents',
          detail: 'the Message Content intent is off: enable it under Developer Portal → your app → Bot → Privileged Gateway Intents',
        });
      } else if ((err as Error).name === 'AbortError' || /aborted/i.test(e.message ?? '')) {
        out.push({
          ok: false,
          check: 'token',
          detail: `Discord's REST API at ${o.apiUrl} did not answer within ${restTimeoutMs / 1000} s: check DISCORD_API_URL and the network`,
        });
      } else {
        out.push({ ok: false, check: 'token', detail: `could not reach Discord (${(e.message ?? '').split('\n')[0]}): check DISCORD_API_URL and the network` });
      }
      return out;
    }
    const c = await ready;
    out.push({ ok: true, check: 'token', detail: `logged in as ${c.user.tag} in ${c.guilds.cache.size} server(s)` });
    const app = await c.application.fetch();
    const flags = new ApplicationFlagsBitField(app.flags ?? 0);
    const content = flags.has('GatewayMessageContent') || flags.has('GatewayMessageContentLimited');
    out.push(
      content
        ? { ok: true, check: 'intents', detail: 'Message Content intent enabled' }
        : {
            ok: false,
            check: 'intents',
            detail: 'the Message Content intent is off: enable it under Developer Portal → your app → Bot → Privileged Gateway Intents',
          },
    );
    const configured = [...new Set([...o.discord.channels, ...o.discord.alwaysOnChannels])];
    if (!configured.length) {
      out.push({ ok: true, check: 'channels', detail: 'no channels configured: the bot answers mentions wherever it can see and post' });
    }
    for (const id of configured) {
      // Silent on purpose: gone, or not visible to the bot: treated as absent.
      const ch = await c.channels.fetch(id).catch(() => null);
      if (!ch || ch.isDMBased()) {
        out.push({
          ok: false,
          check: `channel ${id}`,
          detail: 'not visible to the bot: invite it to that server and give it View Channel there, or remove the id from the config',
        });
        continue;
      }
      const gch = ch as GuildBasedChannel;
      // Threads of a configured channel are served too, so their permission counts here.
      const unique = missingPermissions(botPermissionsIn(gch), true);
      out.push(
        unique.length
          ? { ok: false, check: `channel #${gch.name}`, detail: `missing ${unique.join(', ')}: grant them to the bot in that channel's settings` }
          : { ok: true, check: `channel #${gch.name}`, detail: 'permissions complete' },
      );
    }
  } finally {
    clearTimeout(timer);
    await client.destroy();
  }
  return out;
}
