/** Shared setup for the fake's own tests: a real discord.js Client logged in against a FakeDiscord. */
import { Client, type ClientEvents, type ClientOptions, GatewayIntentBits, Partials } from 'discord.js';
import type { FakeDiscord } from '../fakes/discord/fakeDiscord';

export const BOT_INTENTS = [
  GatewayIntentBits.Guilds,
  GatewayIntentBits.GuildMessages,
  GatewayIntentBits.MessageContent,
  GatewayIntentBits.GuildMessageReactions,
];

/** The options Minutes uses: partials so reactions on uncached messages and uncached channels arrive. */
export function clientFor(d: FakeDiscord, overrides: Partial<ClientOptions> = {}): Client {
  return new Client({
    intents: BOT_INTENTS,
    partials: [Partials.Message, Partials.Channel, Partials.Reaction, Partials.User, Partials.ThreadMember],
    ...overrides,
    rest: { api: d.apiUrl, ...overrides.rest },
  });
}

export async function loggedIn(d: FakeDiscord, overrides: Partial<ClientOptions> = {}): Promise<Client> {
  const client = clientFor(d, overrides);
  const ready = new Promise<void>((resolve) => client.once('clientReady', () => resolve()));
  await client.login(d.botToken);
  await ready;
  return client;
}

/** The next `event` whose arguments satisfy `match`, or a rejection after `timeoutMs`. */
export function nextEvent<K extends keyof ClientEvents>(
  client: Client,
  event: K,
  match: (...args: ClientEvents[K]) => boolean = () => true,
  timeoutMs = 5000,
): Promise<ClientEvents[K]> {
  return new Promise((resolve, reject) => {
    const listener = (...args: ClientEvents[K]) => {
      if (!match(...args)) return;
      clearTimeout(timer);
      client.off(event, listener);
      resolve(args);
    };
    const timer = setTimeout(() => {
      client.off(event, listener);
      reject(new Error(`no ${String(event)} within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    client.on(event, listener);
  });
}

/** Every `event` emitted from now on (to assert "exactly once"). */
export function collect<K extends keyof ClientEvents>(client: Client, event: K): ClientEvents[K][] {
  const seen: ClientEvents[K][] = [];
  client.on(event, (...args: ClientEvents[K]) => void seen.push(args));
  return seen;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
