/**
 * Slash commands on the fake: registration, INTERACTION_CREATE with typed options and member
 * permissions, and every way discord.js answers (reply, defer + edit, follow-ups with files,
 * ephemeral), plus Discord's 3 s acknowledgement window.
 */
import { AttachmentBuilder, type ChatInputCommandInteraction, type Client, MessageFlags, SlashCommandBuilder } from 'discord.js';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { loggedIn, nextEvent } from './helpers';

let d: FakeDiscord;
let client: Client;
let guild: FakeGuild;
let channel: FakeChannel;
let alice: FakeUser;

const commands = [
  new SlashCommandBuilder()
    .setName('recall')
    .setDescription('What would be recalled')
    .addStringOption((o) => o.setName('query').setDescription('text').setRequired(true)),
  new SlashCommandBuilder()
    .setName('memory')
    .setDescription('Channel memory')
    .addSubcommand((s) => s.setName('show').setDescription('Show entries'))
    .addSubcommand((s) =>
      s
        .setName('forget')
        .setDescription('Forget one entry')
        .addStringOption((o) => o.setName('id').setDescription('entry id').setRequired(true))
        .addUserOption((o) => o.setName('for').setDescription('on behalf of')),
    ),
  new SlashCommandBuilder()
    .setName('status')
    .setDescription('Status')
    .addIntegerOption((o) => o.setName('days').setDescription('days')),
].map((c) => c.toJSON());

beforeAll(async () => {
  d = await FakeDiscord.start();
  ({ guild, channel, user: alice } = d.setupBasic());
  client = await loggedIn(d, { rest: { retries: 0 } });
  await client.application!.commands.set(commands, guild.id);
});

afterAll(async () => {
  await client.destroy();
  await d.stop();
});

afterEach(() => {
  client.removeAllListeners('interactionCreate');
  expect(d.problems).toEqual([]);
});

function nextCommand(): Promise<ChatInputCommandInteraction> {
  return nextEvent(client, 'interactionCreate').then(([i]) => {
    if (!i.isChatInputCommand()) throw new Error('expected a chat input command');
    return i;
  });
}

test('guild commands are registered by bulk overwrite and recorded as sent', async () => {
  expect(d.requestsTo('PUT /applications/:applicationId/guilds/:guildId/commands')).toHaveLength(1);
  expect(
    d
      .commandsIn(guild.id)
      .map((c) => c.name)
      .sort(),
  ).toEqual(['memory', 'recall', 'status']);
  const fetched = await client.application!.commands.fetch({ guildId: guild.id });
  expect(fetched.size).toBe(3);
  // Re-registering keeps ids, like Discord.
  const ids = d
    .commandsIn(guild.id)
    .map((c) => c.id)
    .sort();
  await client.application!.commands.set(commands, guild.id);
  expect(
    d
      .commandsIn(guild.id)
      .map((c) => c.id)
      .sort(),
  ).toEqual(ids);
});

test('options are typed from the registered command, with subcommands and resolved users', async () => {
  const arrived = nextCommand();
  d.slashCommand(channel.id, alice.id, 'memory forget', { id: 'm-12', for: alice.id });
  const i = await arrived;
  expect(i.commandName).toBe('memory');
  expect(i.options.getSubcommand()).toBe('forget');
  expect(i.options.getString('id')).toBe('m-12');
  expect(i.options.getUser('for')?.id).toBe(alice.id);
  expect(i.channelId).toBe(channel.id);
  expect(i.memberPermissions?.has('ManageMessages')).toBe(false);
  await i.reply({ content: 'Not allowed.', flags: MessageFlags.Ephemeral });

  const statusArrived = nextCommand();
  d.slashCommand(channel.id, alice.id, 'status', { days: 7 });
  const s = await statusArrived;
  expect(s.options.getInteger('days')).toBe(7);
  const response = await s.reply({ content: 'ok', withResponse: true });
  expect(response.resource?.message?.content).toBe('ok');
});

test('member permissions reflect roles (admin-only commands)', async () => {
  const mods = d.createRole(guild.id, { name: 'mods', permissions: ['ManageMessages'] });
  const mod = d.addMember(guild.id, { username: 'mod', roles: [mods.id] });
  const arrived = nextCommand();
  d.slashCommand(channel.id, mod.id, 'memory show');
  const i = await arrived;
  expect(i.memberPermissions?.has('ManageMessages')).toBe(true);
  await i.reply('shown');
});

test('deferReply + editReply; followUp with a file; ephemeral replies stay out of history', async () => {
  client.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    await i.deferReply({ flags: MessageFlags.Ephemeral });
    await i.editReply('Would inject: nothing relevant.');
    await i.followUp({
      content: 'Full context attached.',
      files: [new AttachmentBuilder(Buffer.from('# CONTEXT\nlong text'), { name: 'CONTEXT.md' })],
      flags: MessageFlags.Ephemeral,
    });
  });
  const ix = d.slashCommand(channel.id, alice.id, 'recall', { query: 'database choice' });
  await d.waitFor(() => ix.followups.length === 1);
  expect(ix.deferred).toBe(true);
  expect(ix.ackDelayMs).toBeLessThan(3000);
  expect(ix.ephemeral).toBe(true);
  expect(ix.original?.content).toBe('Would inject: nothing relevant.');
  expect(ix.original!.flags & MessageFlags.Loading).toBe(0);
  const [followup] = ix.followups;
  expect(followup.attachments.map((a) => [a.filename, a.content.toString()])).toEqual([['CONTEXT.md', '# CONTEXT\nlong text']]);
  expect(ix.texts).toEqual(['Would inject: nothing relevant.', 'Full context attached.']);
  expect(d.messagesIn(channel.id).map((m) => m.id)).not.toContain(ix.original!.id);
  const routes = d.requests.filter((r) => r.path.includes(ix.token)).map((r) => r.route);
  expect(routes).toEqual([
    'POST /interactions/:interactionId/:token/callback',
    'PATCH /webhooks/:applicationId/:token/messages/:messageId',
    'POST /webhooks/:applicationId/:token',
  ]);
});

test('a public reply is a channel message; a second reply is refused (40060)', async () => {
  let second: unknown;
  client.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    await i.reply({ content: 'Status: fine', allowedMentions: { parse: [] } });
    second = await client.rest
      .post(`/interactions/${i.id}/${i.token}/callback`, { body: { type: 4, data: { content: 'again' } }, auth: false })
      .catch((e: unknown) => e);
  });
  const ix = d.slashCommand(channel.id, alice.id, 'status');
  const answered = await d.waitForAnswer(ix);
  await d.waitFor(() => second);
  expect(answered.original?.content).toBe('Status: fine');
  expect(d.botMessagesIn(channel.id).map((m) => m.id)).toContain(ix.original!.id);
  expect(d.pingsNobody(ix.original!)).toBe(true);
  expect(second).toMatchObject({ code: 40060 });
});

test('the first follow-up after a defer becomes the original response', async () => {
  client.on('interactionCreate', async (i) => {
    if (!i.isChatInputCommand()) return;
    await i.deferReply();
    await i.followUp('done');
  });
  const ix = d.slashCommand(channel.id, alice.id, 'status');
  await d.waitForAnswer(ix);
  expect(ix.original?.content).toBe('done');
  expect(ix.followups).toEqual([]);
});

test('acknowledging after the window fails with Unknown interaction (10062)', async () => {
  const slow = await FakeDiscord.start({ limits: { interactionAckMs: 100 } });
  const { channel: ch, user } = slow.setupBasic();
  const c = await loggedIn(slow, { rest: { retries: 0 } });
  try {
    const arrived = nextEvent(c, 'interactionCreate');
    slow.slashCommand(ch.id, user.id, 'anything');
    const [i] = await arrived;
    await new Promise((r) => setTimeout(r, 150));
    await expect((i as ChatInputCommandInteraction).reply('late')).rejects.toMatchObject({ code: 10062 });
  } finally {
    await c.destroy();
    await slow.stop();
  }
});
