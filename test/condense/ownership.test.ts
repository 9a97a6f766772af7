import fc from 'fast-check';
import { authorIdOf, foldActionItems, isNamedMember } from '../../src/condense/knowledge/actionItems';
import { foldQuestions } from '../../src/condense/knowledge/openQuestions';
import { authorsOf } from '../../src/condense/condensation/transcript';

/**
 * An action item's owner and a question's asker are recorded by Discord user id when the name the
 * condensation wrote is one of the discussion's authors (exactly one); the id, never the name,
 * decides who may close or answer it by hand.
 */
const BO = '400000000000000004';
const AL = '300000000000000003';
const authors = [
  { id: AL, name: 'al' },
  { id: BO, name: 'Bo' },
];

describe('ownership by account', () => {
  it('records the id of the one author a written name is, and none for an unknown or ambiguous name', () => {
    const { items } = foldActionItems([], {
      decisionId: 'd-1',
      date: '2026-11-02',
      raw: ['bo: write the migration', 'AL: tune buffers', 'carol: ask legal', 'update the wiki'],
      supersedes: [],
      authors,
    });
    expect(items.map((i) => [i.owner, i.ownerId])).toEqual([
      ['bo', BO],
      ['AL', AL],
      ['carol', undefined],
      [undefined, undefined],
    ]);
    expect(authorIdOf('al', [...authors, { id: '500000000000000005', name: 'Al' }])).toBeUndefined();
    const qs = foldQuestions([], { decisionId: 'd-1', date: '2026-11-02', raw: ['Bo: which region?'], answered: [], supersedes: [], authors });
    expect(qs[0]).toMatchObject({ askedBy: 'Bo', askedById: BO });
  });

  it("only an author with a Discord id counts (a console's or a log's name-only author does not)", () => {
    const at = new Date('2026-11-02T09:00:00Z');
    const m = (authorId: string, authorName: string) => ({ id: '1', authorId, authorName, at, content: 'x', isBot: false });
    expect(authorsOf([m(BO, 'bo'), m('you', 'you'), m(BO, 'bo-renamed'), m(AL, 'al')])).toEqual([
      { id: BO, name: 'bo' },
      { id: AL, name: 'al' },
    ]);
  });

  it('no recorded id names nobody, whatever the asker is called', () => {
    fc.assert(fc.property(fc.option(fc.string(), { nil: undefined }), fc.string(), (recorded, user) => isNamedMember(recorded, user) === (recorded === user)));
    expect(isNamedMember(undefined, '')).toBe(false);
  });
});
