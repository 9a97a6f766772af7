import { openMentions } from '../../src/chat/openMentions';
import { storedReplies } from '../../src/chat/conversation';
import { emptyConversation } from '../../src/shared/conversation';

const msg = (id: string, extra: Record<string, unknown> = {}) => ({
  type: 'message',
  id,
  author: { id: '9', name: 'al' },
  at: '2026-11-28T10:00:00.000Z',
  content: `text ${id}`,
  ...extra,
});

describe('openMentions: what the log says is still owed a reply', () => {
  it('an addressed message with no settled record is owed; one settled, deleted or never addressed is not', () => {
    const owed = openMentions([
      msg('100', { addressed: true }),
      { type: 'answered', at: '', ids: ['100'], how: 'sent' },
      msg('101'),
      msg('102', { addressed: true }),
      msg('103', { addressed: true }),
      { type: 'delete', id: '103', at: '' },
      msg('104', { addressed: true, mayForget: true }),
      { type: 'edit', id: '104', at: '', content: 'edited words' },
      msg('105'),
    ]);
    expect(owed.open.map((m) => m.id)).toEqual(['102', '104']);
    expect(owed.open[1]).toMatchObject({ content: 'edited words', mayForget: true });
    // Context: what people said since the last answered reply, before the newest owed message.
    expect(owed.context.map((m) => m.id)).toEqual(['101']);
    expect(owed.lastSeenId).toBe('105');
    expect([...owed.logged].sort()).toEqual(['100', '101', '102', '103', '104', '105']);
  });

  it('a log written before addressed messages were marked owes nothing, and damaged lines are skipped', () => {
    const owed = openMentions([msg('5'), 'not a record', null, [1], { type: 'message', id: 7 }, { type: 'answered', ids: 'x' }, msg('6')]);
    expect(owed.open).toEqual([]);
    expect(owed.lastSeenId).toBe('6');
  });

  it('ids compare as numbers (a shorter snowflake is older), and a settled id never seen as a message still counts as seen', () => {
    const owed = openMentions([msg('99', { addressed: true }), msg('100', { addressed: true }), { type: 'answered', at: '', ids: ['1000'], how: 'too-old' }]);
    expect(owed.open.map((m) => m.id)).toEqual(['99', '100']);
    expect(owed.lastSeenId).toBe('1000');
    expect(owed.logged.has('1000')).toBe(true);
  });
});

describe('storedReplies: a turn stored before its reply went out', () => {
  const inbound = (id: string) => ({ id, authorName: 'al', content: id, at: new Date(0) });
  const state = {
    ...emptyConversation(),
    turns: [
      { role: 'user' as const, content: 'a b', at: '', ids: ['a', 'b'] },
      { role: 'assistant' as const, content: 'reply to a and b', at: '' },
      { role: 'user' as const, content: 'c', at: '', ids: ['c'] },
    ],
  };
  it('returns the stored reply for messages it answered and leaves the rest for a new turn', () => {
    expect(storedReplies(state, [inbound('b'), inbound('d')])).toEqual({ replies: ['reply to a and b'], rest: [inbound('d')] });
    // A user turn with no reply after it (the model never answered) is not an answer.
    expect(storedReplies(state, [inbound('c')])).toEqual({ replies: [], rest: [inbound('c')] });
    expect(storedReplies(state, [inbound('z')]).replies).toEqual([]);
  });
});
