/**
 * Buttons, forms and message commands on the fake, driven through the real discord.js client:
 * a bot posts a button row, a member clicks, the bot answers (ephemeral reply, message update,
 * deferred update, a form), the form comes back as a modal submit, and a message context-menu
 * command arrives with its target message.
 */
import {
  ActionRowBuilder,
  ApplicationCommandType,
  ButtonBuilder,
  ButtonStyle,
  type ButtonInteraction,
  type Client,
  ContextMenuCommandBuilder,
  type Interaction,
  MessageFlags,
  ModalBuilder,
  PermissionFlagsBits,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel, FakeGuild, FakeUser } from '../fakes/discord/state';
import { loggedIn, nextEvent } from './helpers';

let d: FakeDiscord;
let client: Client;
let guild: FakeGuild;
let channel: FakeChannel;
let alice: FakeUser;

beforeAll(async () => {
  d = await FakeDiscord.start();
  ({ guild, channel, user: alice } = d.setupBasic());
  client = await loggedIn(d, { rest: { retries: 0 } });
});

afterAll(async () => {
  await client.destroy();
  await d.stop();
});

afterEach(() => {
  client.removeAllListeners('interactionCreate');
  expect(d.problems).toEqual([]);
  expect(d.unhandled).toEqual([]);
});

const row = (...buttons: Array<[string, string, boolean?]>) =>
  new ActionRowBuilder<ButtonBuilder>().addComponents(
    buttons.map(([customId, label, disabled]) =>
      new ButtonBuilder()
        .setCustomId(customId)
        .setLabel(label)
        .setStyle(ButtonStyle.Secondary)
        .setDisabled(disabled ?? false),
    ),
  );

async function postWithButtons(content = 'Decision: use Postgres') {
  const ch = await client.channels.fetch(channel.id);
  if (!ch?.isSendable()) throw new Error('channel not sendable');
  return ch.send({ content, components: [row(['confirm:d1', 'Confirm'], ['reopen:d1', 'Reopen'], ['supersede:d1', 'Supersede'])] });
}

function nextOf<T extends Interaction>(is: (i: Interaction) => i is T): Promise<T> {
  return nextEvent(client, 'interactionCreate').then(([i]) => {
    if (!is(i)) throw new Error(`unexpected interaction type ${i.type}`);
    return i;
  });
}

const isButton = (i: Interaction): i is ButtonInteraction => i.isButton();

test('a bot message keeps its button row; PATCH replaces it', async () => {
  const sent = await postWithButtons();
  const stored = d.message(sent.id);
  expect(stored.components).toEqual([
    {
      type: 1,
      components: [
        { type: 2, style: ButtonStyle.Secondary, custom_id: 'confirm:d1', label: 'Confirm', disabled: false },
        { type: 2, style: ButtonStyle.Secondary, custom_id: 'reopen:d1', label: 'Reopen', disabled: false },
        { type: 2, style: ButtonStyle.Secondary, custom_id: 'supersede:d1', label: 'Supersede', disabled: false },
      ],
    },
  ]);
  const fetched = await sent.channel.messages.fetch({ message: sent.id, force: true });
  // discord.js parses the row back from the REST payload.
  const rows = fetched.components.map((r) => r.toJSON()) as Array<{ components: Array<{ label?: string }> }>;
  const labels = rows.flatMap((r) => r.components.map((c) => c.label));
  expect(labels).toEqual(['Confirm', 'Reopen', 'Supersede']);
  await sent.edit({ components: [row(['supersede:d1', 'Supersede'])] });
  expect(d.buttonsOf(sent.id).map((b) => b.custom_id)).toEqual(['supersede:d1']);
});

test('Discord refuses duplicate custom ids and more than five buttons in a row', async () => {
  const ch = await client.channels.fetch(channel.id);
  if (!ch?.isSendable()) throw new Error('channel not sendable');
  await expect(ch.send({ components: [row(['x', 'A'], ['x', 'B'])] })).rejects.toMatchObject({ code: 50035 });
  const six = Array.from({ length: 6 }, (_, i): [string, string] => [`b${i}`, `B${i}`]);
  await expect(ch.send({ components: [row(...six)] })).rejects.toMatchObject({ code: 50035 });
});

test('a click arrives as a button interaction with custom id, member and message; an ephemeral reply answers it', async () => {
  const sent = await postWithButtons();
  const arrived = nextOf(isButton);
  const ix = d.clickButton(sent.id, alice.id, 'confirm:d1');
  const i = await arrived;
  expect(i.customId).toBe('confirm:d1');
  expect(i.user.id).toBe(alice.id);
  expect(i.member?.user.id).toBe(alice.id);
  expect(i.message.id).toBe(sent.id);
  expect(i.channelId).toBe(channel.id);
  expect(i.guildId).toBe(guild.id);
  await i.reply({ content: 'Only members with the Secretary role may confirm.', flags: MessageFlags.Ephemeral });
  await d.waitForAnswer(ix);
  expect(ix.type).toBe(3);
  expect(ix.payload.data).toEqual({ custom_id: 'confirm:d1', component_type: 2 });
  expect(ix.ephemeral).toBe(true);
  expect(ix.texts).toEqual(['Only members with the Secretary role may confirm.']);
  expect(ix.acknowledgedAt).not.toBeNull();
  expect(ix.ackDelayMs).toBeLessThan(3000);
  expect(d.messagesIn(channel.id).map((m) => m.id)).not.toContain(ix.original!.id);
  // Answering twice is refused as on Discord.
  await expect(i.reply('again')).rejects.toBeDefined();
  const again = await client.rest.post(`/interactions/${i.id}/${i.token}/callback`, { body: { type: 6 }, auth: false }).catch((e: unknown) => e);
  expect(again).toMatchObject({ code: 40060 });
});

test('update (type 7) edits the clicked message; deferUpdate (type 6) then editReply edits it too', async () => {
  const sent = await postWithButtons();
  client.on('interactionCreate', async (i) => {
    if (!i.isButton()) return;
    if (i.customId === 'confirm:d1') {
      await i.update({ content: 'Decision: use Postgres (ratified by alice)', components: [row(['supersede:d1', 'Supersede'])] });
    } else {
      await i.deferUpdate();
      await i.editReply({ content: 'Decision: use Postgres (disputed)' });
    }
  });
  const ix = d.clickButton(sent.id, alice.id, 'confirm:d1');
  await d.waitFor(() => d.message(sent.id).content.includes('ratified'));
  expect(ix.callbacks.map((c) => c.type)).toEqual([7]);
  expect(d.buttonsOf(sent.id).map((b) => b.label)).toEqual(['Supersede']);
  expect(d.message(sent.id).editedAt).not.toBeNull();

  const deferred = d.clickButton(sent.id, alice.id, 'supersede:d1');
  await d.waitFor(() => d.message(sent.id).content.includes('disputed'));
  expect(deferred.callbacks.map((c) => c.type)).toEqual([6]);
  expect(deferred.original?.id).toBe(sent.id);
});

test('clicking a button the message does not carry, or a disabled one, fails loudly', async () => {
  const ch = await client.channels.fetch(channel.id);
  if (!ch?.isSendable()) throw new Error('channel not sendable');
  const sent = await ch.send({ content: 'x', components: [row(['off', 'Off', true])] });
  expect(() => d.clickButton(sent.id, alice.id, 'nope')).toThrow(/no button/);
  expect(() => d.clickButton(sent.id, alice.id, 'off')).toThrow(/disabled/);
});

test('a button shows a form; its submission arrives as a modal submit with the typed values', async () => {
  const sent = await postWithButtons();
  client.on('interactionCreate', async (i) => {
    if (i.isButton()) {
      const modal = new ModalBuilder()
        .setCustomId('supersede-form:d1')
        .setTitle('Supersede decision')
        .addComponents(
          new ActionRowBuilder<TextInputBuilder>().addComponents(
            new TextInputBuilder().setCustomId('decision').setLabel('New decision').setStyle(TextInputStyle.Paragraph).setValue('use Postgres'),
          ),
          new ActionRowBuilder<TextInputBuilder>().addComponents(
            new TextInputBuilder().setCustomId('reason').setLabel('Reason').setStyle(TextInputStyle.Short).setRequired(false),
          ),
        );
      await i.showModal(modal);
    } else if (i.isModalSubmit()) {
      await i.reply({
        content: `${i.customId}: ${i.fields.getTextInputValue('decision')} / ${i.fields.getTextInputValue('reason')} / from ${i.message?.id}`,
        flags: MessageFlags.Ephemeral,
      });
    }
  });
  const click = d.clickButton(sent.id, alice.id, 'supersede:d1');
  const modal = await d.waitFor(() => click.modal);
  expect(modal).toEqual({
    custom_id: 'supersede-form:d1',
    title: 'Supersede decision',
    inputs: [
      { custom_id: 'decision', label: 'New decision', style: 2, value: 'use Postgres', required: true },
      { custom_id: 'reason', label: 'Reason', style: 1, value: undefined, required: false },
    ],
  });
  expect(click.acknowledged).toBe(true);
  expect(click.answered).toBe(false);

  const submit = d.submitModal(click, alice.id, { decision: 'use SQLite', reason: 'one file is enough' });
  await d.waitForAnswer(submit);
  expect(submit.type).toBe(5);
  expect(submit.payload.data).toEqual({
    custom_id: 'supersede-form:d1',
    components: [
      { type: 1, components: [{ type: 4, custom_id: 'decision', value: 'use SQLite' }] },
      { type: 1, components: [{ type: 4, custom_id: 'reason', value: 'one file is enough' }] },
    ],
  });
  expect(submit.texts).toEqual([`supersede-form:d1: use SQLite / one file is enough / from ${sent.id}`]);
});

test('a form is submitted only if the bot showed one, with its required inputs and known ids', async () => {
  const sent = await postWithButtons();
  client.on('interactionCreate', async (i) => {
    if (i.isButton() && i.customId === 'confirm:d1') await i.deferUpdate();
    if (i.isButton() && i.customId === 'supersede:d1') {
      await i.showModal(
        new ModalBuilder()
          .setCustomId('f')
          .setTitle('F')
          .addComponents(
            new ActionRowBuilder<TextInputBuilder>().addComponents(new TextInputBuilder().setCustomId('a').setLabel('A').setStyle(TextInputStyle.Short)),
          ),
      );
    }
  });
  const plain = d.clickButton(sent.id, alice.id, 'confirm:d1');
  await d.waitFor(() => plain.acknowledged);
  expect(() => d.submitModal(plain, alice.id, {})).toThrow(/never showed a form/);
  const click = d.clickButton(sent.id, alice.id, 'supersede:d1');
  await d.waitFor(() => click.modal);
  expect(() => d.submitModal(click, alice.id, {})).toThrow(/required/);
  expect(() => d.submitModal(click, alice.id, { a: 'x', b: 'y' })).toThrow(/no input "b"/);
});

test('message context-menu commands register with type 3 and permissions, and arrive with the target message', async () => {
  const commands = [
    new ContextMenuCommandBuilder().setName('Record as decision').setType(ApplicationCommandType.Message),
    new ContextMenuCommandBuilder()
      .setName('Remember this')
      .setType(ApplicationCommandType.Message)
      .setDefaultMemberPermissions(PermissionFlagsBits.ManageMessages),
  ].map((c) => c.toJSON());
  await client.application!.commands.set(commands, guild.id);
  const registered = d.commandsIn(guild.id);
  expect(registered.map((c) => [c.name, c.type, c.raw.default_member_permissions ?? null])).toEqual([
    ['Record as decision', 3, null],
    ['Remember this', 3, String(PermissionFlagsBits.ManageMessages)],
  ]);

  const target = d.userSays(channel.id, alice.id, 'We will ship on Fridays only.\nSecond line.');
  client.on('interactionCreate', async (i) => {
    if (!i.isMessageContextMenuCommand()) return;
    await i.showModal(
      new ModalBuilder()
        .setCustomId(`record:${i.targetMessage.id}`)
        .setTitle('Record as decision')
        .addComponents(
          new ActionRowBuilder<TextInputBuilder>().addComponents(
            new TextInputBuilder().setCustomId('decision').setLabel('Decision').setStyle(TextInputStyle.Paragraph).setValue(i.targetMessage.content),
          ),
        ),
    );
  });
  const seen = nextEvent(client, 'interactionCreate');
  const ix = d.runMessageCommand('Record as decision', target.id, alice.id, channel.id);
  const [i] = await seen;
  if (!i.isMessageContextMenuCommand()) throw new Error('expected a message command');
  expect(i.commandName).toBe('Record as decision');
  expect(i.targetId).toBe(target.id);
  expect(i.targetMessage.content).toBe('We will ship on Fridays only.\nSecond line.');
  expect(i.targetMessage.author.id).toBe(alice.id);
  const modal = await d.waitFor(() => ix.modal);
  expect(modal.inputs[0].value).toBe('We will ship on Fridays only.\nSecond line.');
  expect(ix.ackDelayMs).toBeLessThan(3000);

  // Discord hides a command the member's permissions do not cover.
  expect(() => d.runMessageCommand('Remember this', target.id, alice.id, channel.id)).toThrow(/does not see/);
  expect(() => d.runMessageCommand('Forget this', target.id, alice.id, channel.id)).toThrow(/no message command/);
});
