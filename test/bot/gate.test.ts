import { decide, MessageFacts, placeAllowed } from '../../src/bot/intake/gate';
import { ConfigFileSchema } from '../../src/config/schema';

/** Who the bot answers, notes or ignores: the allowlists and the bot checks, one fact at a time. */
const discord = (o: Record<string, unknown> = {}) => ConfigFileSchema.parse({ discord: o }).discord;
const facts = (o: Partial<MessageFacts> = {}): MessageFacts => ({
  inGuild: true,
  authorIsBot: false,
  authorId: '21',
  guildId: '100',
  channelId: '11',
  threadId: null,
  roleIds: [],
  mentionsBot: false,
  repliesToBot: false,
  ...o,
});

describe('the message gate', () => {
  it('answers a mention or a reply to the bot, notes other human messages', () => {
    expect(decide(facts({ mentionsBot: true }), discord())).toBe('answer');
    expect(decide(facts({ repliesToBot: true }), discord())).toBe('answer');
    expect(decide(facts(), discord())).toBe('note');
  });

  it('ignores direct messages, messages without a guild, and bots (itself included)', () => {
    expect(decide(facts({ inGuild: false, mentionsBot: true }), discord())).toBe('ignore');
    expect(decide(facts({ guildId: null, mentionsBot: true }), discord())).toBe('ignore');
    expect(decide(facts({ authorIsBot: true, mentionsBot: true }), discord())).toBe('ignore');
  });

  it('answers every human message in an always-on channel, and only there', () => {
    const d = discord({ alwaysOnChannels: ['11'] });
    expect(decide(facts(), d)).toBe('answer');
    expect(decide(facts({ channelId: '12' }), d)).toBe('note');
    expect(decide(facts({ authorIsBot: true }), d)).toBe('ignore');
  });

  it('guild and channel allowlists: outside them nothing is answered or noted; a thread counts by its parent or its own id', () => {
    expect(decide(facts({ mentionsBot: true }), discord({ guilds: ['200'] }))).toBe('ignore');
    expect(decide(facts({ mentionsBot: true }), discord({ guilds: ['100'] }))).toBe('answer');
    const d = discord({ channels: ['12', '19'] });
    expect(decide(facts({ mentionsBot: true }), d)).toBe('ignore');
    expect(decide(facts({ mentionsBot: true, channelId: '12' }), d)).toBe('answer');
    expect(decide(facts({ mentionsBot: true, threadId: '19' }), d)).toBe('answer');
    expect(decide(facts({ mentionsBot: true, threadId: '18' }), d)).toBe('ignore');
  });

  it('user and role allowlists: a person outside them is noted, never answered', () => {
    const byUser = discord({ users: ['22'] });
    expect(decide(facts({ mentionsBot: true }), byUser)).toBe('note');
    expect(decide(facts({ mentionsBot: true, authorId: '22' }), byUser)).toBe('answer');
    const byRole = discord({ roles: ['31'] });
    expect(decide(facts({ mentionsBot: true, roleIds: ['32'] }), byRole)).toBe('note');
    expect(decide(facts({ mentionsBot: true, roleIds: ['32', '31'] }), byRole)).toBe('answer');
    expect(decide(facts({ roleIds: ['32'] }), discord({ roles: ['31'], alwaysOnChannels: ['11'] }))).toBe('note');
    // Either list lets a person in.
    expect(decide(facts({ mentionsBot: true, authorId: '22' }), discord({ users: ['22'], roles: ['31'] }))).toBe('answer');
  });

  it('placeAllowed: the same guild and channel allowlists, for commands and reactions', () => {
    expect(placeAllowed('100', '11', null, discord())).toBe(true);
    expect(placeAllowed('100', '11', null, discord({ guilds: ['200'] }))).toBe(false);
    expect(placeAllowed('200', '11', null, discord({ guilds: ['200'] }))).toBe(true);
    const d = discord({ channels: ['12', '19'] });
    expect(placeAllowed('100', '11', null, d)).toBe(false);
    expect(placeAllowed('100', '12', null, d)).toBe(true);
    expect(placeAllowed('100', '11', '19', d)).toBe(true);
    expect(placeAllowed('100', '11', '18', d)).toBe(false);
  });
});
