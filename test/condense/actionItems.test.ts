import { closeItem, droppedNow, foldActionItems, parseActionItem, staleItems } from '../../src/condense/knowledge/actionItems';

describe('action items', () => {
  it('reads the owner as written and a due date when one was said', () => {
    // 2026-11-24 is a Tuesday.
    expect(parseActionItem('bo: update the runbook by Friday', '2026-11-24')).toEqual({ owner: 'bo', text: 'update the runbook by Friday', due: '2026-11-27' });
    expect(parseActionItem('Priya Shah: order samples due 2026-12-01', '2026-11-24')).toEqual({
      owner: 'Priya Shah',
      text: 'order samples due 2026-12-01',
      due: '2026-12-01',
    });
    expect(parseActionItem('write the migration by tomorrow', '2026-11-24')).toEqual({ text: 'write the migration by tomorrow', due: '2026-11-25' });
    expect(parseActionItem('al: ping the vendor by Tuesday', '2026-11-24').due).toBe('2026-12-01');
    expect(parseActionItem('TODO: tidy the docs', '2026-11-24')).toEqual({ text: 'TODO: tidy the docs' });
  });

  it('folding is idempotent, and a replacing decision drops the open items of the one it replaces', () => {
    const first = foldActionItems([], { decisionId: 'd-1', date: '2026-11-01', raw: ['bo: update the runbook', 'none'], supersedes: [] });
    expect(first.items).toHaveLength(1);
    expect(foldActionItems(first.items, { decisionId: 'd-1', date: '2026-11-01', raw: ['bo: update the runbook'], supersedes: [] }).items).toEqual(first.items);
    const second = foldActionItems(first.items, { decisionId: 'd-2', date: '2026-11-10', raw: ['al: migrate the data'], supersedes: ['d-1'] });
    expect(second.dropped.map((i) => i.text)).toEqual(['update the runbook']);
    expect(second.items.map((i) => [i.text, i.status])).toEqual([
      ['update the runbook', 'dropped'],
      ['migrate the data', 'open'],
    ]);
    expect(droppedNow({ actions: first.items }, { actions: second.items }).map((i) => i.id)).toEqual([first.items[0].id]);
  });

  it('closing: an unknown or closed item says why; stale items are the open ones past the age', () => {
    const { items } = foldActionItems([], { decisionId: 'd-1', date: '2026-10-01', raw: ['bo: a', 'al: b'], supersedes: [] });
    const r = closeItem(items, items[0].id, 'bo', '2026-11-01');
    expect(r.closed?.status).toBe('done');
    expect(closeItem(r.items, items[0].id, 'bo', '2026-11-01').why).toMatch(/already done/);
    expect(closeItem(r.items, 'a-nope00', 'bo', '2026-11-01').why).toMatch(/no action item a-nope00/);
    expect(staleItems(r.items, new Date('2026-11-20T00:00:00Z'), 14).map((i) => i.text)).toEqual(['b']);
    expect(staleItems(r.items, new Date('2026-10-10T00:00:00Z'), 14)).toEqual([]);
  });
});
