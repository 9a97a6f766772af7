/**
 * The rules around buttons and forms that an end-to-end test leans on: forms in the newer label
 * layout, a form opened by a button updating that button's message, buttons still working for a
 * client that logged in after the message was posted, and the answers Discord refuses.
 */
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  type Client,
  LabelBuilder,
  ModalBuilder,
  type ModalSubmitInteraction,
  TextDisplayBuilder,
  TextInputBuilder,
  TextInputStyle,
} from 'discord.js';
import { FakeDiscord } from '../fakes/discord/fakeDiscord';
import type { FakeChannel, FakeUser } from '../fakes/discord/state';
import { loggedIn, nextEvent } from './helpers';

let d: FakeDiscord;
let client: Client;
let channel: FakeChannel;
let alice: FakeUser;

beforeAll(async () => {
  d = await FakeDiscord.start();
  ({ channel, user: alice } = d.setupBasic());
  client = await loggedIn(d, { rest: { retries: 0 } });
});

afterAll(async () => {
  await client.destroy();
  await d.stop();
});

afterEach(() => {
  client.removeAllListeners('interactionCreate');
  expect(d.problems).toEqual([]);
});

const supersedeRow = () =>
  new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId('supersede:d2').setLabel('Supersede').setStyle(ButtonStyle.Danger));

async function post(c: Client, content: string) {
  const ch = await c.channels.fetch(channel.id);
  if (!ch?.isSendable()) throw new Error('channel not sendable');
  return ch.send({ content, components: [supersedeRow()] });
}

test('a form in the label layout comes back in that layout, and can update the message whose button opened it', async () => {
  const sent = await post(client, 'Decision: deploy on Tuesdays');
  client.on('interactionCreate', async (i) => {
    if (i.isButton()) {
      await i.showModal(
        new ModalBuilder()
          .setCustomId('supersede-form:d2')
          .setTitle('Supersede decision')
          .addTextDisplayComponents(new TextDisplayBuilder().setContent('Replaces: deploy on Tuesdays'))
          .addLabelComponents(
            new LabelBuilder()
              .setLabel('New decision')
              .setTextInputComponent(new TextInputBuilder().setCustomId('decision').setStyle(TextInputStyle.Paragraph)),
            new LabelBuilder()
              .setLabel('Reason')
              .setTextInputComponent(new TextInputBuilder().setCustomId('reason').setStyle(TextInputStyle.Short).setValue('as agreed')),
          ),
      );
    } else if (i.isModalSubmit() && i.isFromMessage()) {
      const text = `Superseded by: ${i.fields.getTextInputValue('decision')} (${i.fields.getTextInputValue('reason')})`;
      await i.update({ content: `~~Decision: deploy on Tuesdays~~ ${text}`, components: [] });
    }
  });
  const click = d.clickButton(sent.id, alice.id, 'supersede:d2');
  const modal = await d.waitFor(() => click.modal);
  expect(modal.inputs.map((x) => [x.custom_id, x.label, x.value])).toEqual([
    ['decision', 'New decision', undefined],
    ['reason', 'Reason', 'as agreed'],
  ]);
  const submit = d.submitModal(click, alice.id, { decision: 'deploy on Thursdays' });
  await d.waitFor(() => d.message(sent.id).content.startsWith('~~'));
  expect(d.message(sent.id).content).toBe('~~Decision: deploy on Tuesdays~~ Superseded by: deploy on Thursdays (as agreed)');
  expect(d.buttonsOf(sent.id)).toEqual([]);
  expect(submit.callbacks.map((c) => c.type)).toEqual([7]);
  expect(submit.answered).toBe(true);
  expect((submit.payload.data as { components: unknown[] }).components).toEqual([
    { type: 10 },
    { type: 18, component: { type: 4, custom_id: 'decision', value: 'deploy on Thursdays' } },
    { type: 18, component: { type: 4, custom_id: 'reason', value: 'as agreed' } },
  ]);
  expect(() => d.submitModal(click, alice.id, { decision: 'again' })).toThrow(/already submitted/);
});

test('a button keeps working for a client that logged in after the message was posted', async () => {
  const sent = await post(client, 'Decision: keep the monorepo');
  const later = await loggedIn(d, { rest: { retries: 0 } });
  try {
    const arrived = nextEvent(later, 'interactionCreate');
    const ix = d.clickButton(sent.id, alice.id, 'supersede:d2');
    const [i] = await arrived;
    if (!i.isButton()) throw new Error('expected a button');
    expect(i.message.content).toBe('Decision: keep the monorepo');
    await i.deferUpdate();
    expect(ix.acknowledged).toBe(true);
    expect(ix.answered).toBe(false);
  } finally {
    await later.destroy();
  }
});

test('Discord refuses an update answering a slash command and a form answering a form', async () => {
  const slash = nextEvent(client, 'interactionCreate');
  d.slashCommand(channel.id, alice.id, 'status');
  const [s] = await slash;
  const refused = await client.rest
    .post(`/interactions/${s.id}/${(s as { token: string }).token}/callback`, { body: { type: 7, data: { content: 'x' } }, auth: false })
    .catch((e: unknown) => e);
  expect(refused).toMatchObject({ code: 50035 });
  // A form with no title is refused too.
  const untitled = await client.rest
    .post(`/interactions/${s.id}/${(s as { token: string }).token}/callback`, { body: { type: 9, data: { custom_id: 'x', components: [] } }, auth: false })
    .catch((e: unknown) => e);
  expect(untitled).toMatchObject({ code: 50035 });

  const sent = await post(client, 'Decision: weekly demos');
  const form = new ModalBuilder()
    .setCustomId('f2')
    .setTitle('F2')
    .addLabelComponents(new LabelBuilder().setLabel('A').setTextInputComponent(new TextInputBuilder().setCustomId('a').setStyle(TextInputStyle.Short)));
  client.on('interactionCreate', (i) => {
    if (i.isButton()) void i.showModal(form);
  });
  const click = d.clickButton(sent.id, alice.id, 'supersede:d2');
  await d.waitFor(() => click.modal);
  client.removeAllListeners('interactionCreate');
  const submitted = nextEvent(client, 'interactionCreate');
  d.submitModal(click, alice.id, { a: 'x' });
  const [m] = (await submitted) as [ModalSubmitInteraction];
  // discord.js has no showModal on a form submit; Discord refuses the raw answer as well.
  const formOnForm = await client.rest
    .post(`/interactions/${m.id}/${m.token}/callback`, { body: { type: 9, data: form.toJSON() }, auth: false })
    .catch((e: unknown) => e);
  expect(formOnForm).toMatchObject({ code: 50035 });
  expect(() => d.submitModal(click, d.addMember(channel.guildId, { username: 'bob' }).id, { a: 'y' })).toThrow(/shown to/);
});
