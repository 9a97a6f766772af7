import fc from 'fast-check';
import { condensationMarkIn, hiddenCondensationMark, stripInternalMarkers } from '../../src/shared/markers';

describe('the condensation mark of a Discord post', () => {
  it('is read back from the hidden form, which shows nothing (only zero-width characters)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9a-f]{12}$/), fc.string(), (hex, around) => {
        const mark = hiddenCondensationMark(hex);
        expect(mark).toMatch(/^[\u200b\u200c\u2060]+$/);
        expect(condensationMarkIn(`## 📝 Condensation: x${mark}\n${around}`)).toBe(`minutes:cond:${hex}`);
      }),
    );
  });

  it('still reads the visible line of older posts', () => {
    expect(condensationMarkIn('## 📝 Condensation: x\n**Date:** 2026-11-20\n-# minutes:cond:0123456789ab')).toBe('minutes:cond:0123456789ab');
    expect(condensationMarkIn('## 📝 Condensation: x\nno mark here')).toBeUndefined();
  });

  it('is stripped, with the older visible line, from anything shown to a person', () => {
    const hidden = `## 📝 Condensation: x${hiddenCondensationMark('0123456789ab')}\n**Date:** 2026-11-20`;
    expect(stripInternalMarkers(hidden)).toBe('## 📝 Condensation: x\n**Date:** 2026-11-20');
    expect(stripInternalMarkers('a\n-# minutes:cond:0123456789ab')).toBe('a');
  });
});
