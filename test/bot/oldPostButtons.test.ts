import type { ContextData, ContextDecision } from '../../src/condense/knowledge/contextData';
import type { Ledger, LedgerEntry } from '../../src/condense/saga/ledgerSchema';
import { postsWithoutButtons } from '../../src/bot/secretary/oldPostButtons';

/** Which older posts get their buttons (issue 43 §1): only decisions in force, once, where the link says. */
describe('postsWithoutButtons', () => {
  const entry = (key: string, messageId: string, more: Partial<LedgerEntry> = {}): LedgerEntry => ({
    key,
    status: 'done',
    trigger: 'explicit',
    conversation: { label: 'x', channelName: 'db' },
    facts: { date: '2026-01-01', channelName: 'db', participants: [], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
    decisionId: `d-${key.slice(0, 10)}`,
    steps: { posted: { messageId, url: `https://discord.com/channels/111111111111111111/222222222222222222/${messageId}`, pin: 'pinned' } },
    attempts: 1,
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    ...more,
  });
  const decision = (key: string, more: Partial<ContextDecision> = {}): ContextDecision => ({
    id: `d-${key.slice(0, 10)}`,
    kind: 'decision',
    topic: 't',
    text: key,
    date: '2026-01-01',
    ledgerKey: key,
    ...more,
  });
  const ledgerOf = (...es: LedgerEntry[]): Ledger => ({ version: 1, entries: Object.fromEntries(es.map((e) => [e.key, e])) });
  const contextOf = (...ds: ContextDecision[]): ContextData => ({ version: 1, decisions: ds, constraints: [] });

  it('lists the posts of decisions in force not looked at yet, oldest first, in the channel their link names', () => {
    const keys = ['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc', 'dddddddddddd', 'eeeeeeeeeeee', 'ffffffffffff', '000000000000'];
    const [inForce, older, replaced, none, marked, running, skipped] = keys;
    const ledger = ledgerOf(
      entry(inForce, '300000000000000002'),
      entry(older, '300000000000000001', { steps: { posted: { messageId: '300000000000000001', pin: 'pinned' } } }),
      entry(replaced, '300000000000000003'),
      entry(none, '300000000000000004'),
      entry(marked, '300000000000000005', { postButtons: 'had' }),
      entry(running, '300000000000000006', { status: 'running' }),
      entry(skipped, '300000000000000007', { steps: { posted: 'skipped' } }),
    );
    const context = contextOf(
      decision(inForce, { status: 'disputed' }),
      decision(older, { status: 'ratified' }),
      decision(replaced, { supersededBy: 'd-aaaaaaaaaa' }),
      decision(none, { kind: 'none' }),
      decision(marked),
      decision(running),
      decision(skipped),
    );
    expect(postsWithoutButtons(ledger, context, '999999999999999999')).toEqual([
      { key: older, decisionId: `d-${older.slice(0, 10)}`, messageId: '300000000000000001', channelId: '999999999999999999' },
      { key: inForce, decisionId: `d-${inForce.slice(0, 10)}`, messageId: '300000000000000002', channelId: '222222222222222222' },
    ]);
  });

  it('nothing for a ledger whose decisions are not in context.json', () => {
    expect(postsWithoutButtons(ledgerOf(entry('aaaaaaaaaaaa', '300000000000000002')), contextOf(), '9')).toEqual([]);
  });
});
