import fc from 'fast-check';
import {
  decisionButtonRow,
  decisionCustomId,
  parseDecisionCustomId,
  parseFormCustomId,
  recordForm,
  supersedeForm,
} from '../../src/bot/secretary/decisionButtons';
import { clickAllowed } from '../../src/bot/secretary/clickRules';
import { ConfigFileSchema } from '../../src/config/schema';

const decisionId = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 10, maxLength: 10 }).map((h) => `d-${h}`);
const action = fc.constantFrom('confirm' as const, 'reopen' as const, 'supersede' as const);

describe('the ids on a pinned condensation', () => {
  it('name what they act on, within Discord’s 100 characters, and read back exactly', () => {
    fc.assert(
      fc.property(action, decisionId, (a, id) => {
        const custom = decisionCustomId(a, id);
        expect(custom.length).toBeLessThanOrEqual(100);
        expect(parseDecisionCustomId(custom)).toEqual({ action: a, decisionId: id });
      }),
    );
  });

  it('another id is not taken for one (another bot’s, a tampered one)', () => {
    const ours = /^minutes:decision:(confirm|reopen|supersede):d-[0-9a-f]{10}$/;
    fc.assert(
      fc.property(
        fc.string().filter((x) => !ours.test(x)),
        (x) => expect(parseDecisionCustomId(x)).toBeUndefined(),
      ),
    );
    expect(parseDecisionCustomId('minutes:decision:delete:d-0123456789')).toBeUndefined();
    expect(parseDecisionCustomId('minutes:decision:confirm:d-0123456789/../x')).toBeUndefined();
    expect(parseFormCustomId('minutes:record:12')).toBeUndefined();
  });

  it('the row is Confirm, Reopen, Supersede; the forms read back what they are for', () => {
    expect(decisionButtonRow('d-0123456789').components.map((c) => ('label' in c ? c.label : ''))).toEqual(['Confirm', 'Reopen', 'Supersede']);
    expect(parseFormCustomId(supersedeForm('d-0123456789').toJSON().custom_id)).toEqual({ kind: 'supersede', decisionId: 'd-0123456789' });
    expect(parseFormCustomId(recordForm('123456789012345678', 'x').toJSON().custom_id)).toEqual({ kind: 'record', messageId: '123456789012345678' });
  });
});

describe('who may click', () => {
  const d = (o: object) => ConfigFileSchema.parse({ discord: o }).discord;
  const ref = { kind: 'discord' as const, guildId: '1', channelId: '2' };
  it('follows the allowlists of places and members', () => {
    expect(clickAllowed(ref, '7', [], d({}))).toBe(true);
    expect(clickAllowed(ref, '7', [], d({ channels: ['3'] }))).toBe(false);
    expect(clickAllowed(ref, '7', [], d({ users: ['8'] }))).toBe(false);
    expect(clickAllowed(ref, '7', ['9'], d({ roles: ['9'] }))).toBe(true);
    expect(clickAllowed({ kind: 'local', name: 'x' } as never, '7', [], d({}))).toBe(false);
  });
});
