import { frontmatterEnd, sectionText } from '../../src/memory/grammar';

const lines = (text: string) => text.split('\n');

describe('the memory files grammar', () => {
  it('frontmatterEnd: the line after a leading --- block closed by --- or ...; 0 when there is none', () => {
    expect(frontmatterEnd([])).toBe(0);
    expect(frontmatterEnd(lines('# Title\n---\nx: 1\n---'))).toBe(0);
    expect(frontmatterEnd(lines('---\ndate: 2026-11-01\n---\n# Body'))).toBe(3);
    expect(frontmatterEnd(lines('  ---  \na: 1\n...   \nbody'))).toBe(3);
    expect(frontmatterEnd(lines('---\na: 1\n--- not a close\n---'))).toBe(4);
    expect(frontmatterEnd(lines('---\na: 1\n -- -\nbody'))).toBe(0);
    expect(frontmatterEnd(lines('---\nrule: a line ---\nbody'))).toBe(0);
    // An opening line that is never closed is not frontmatter, nor is a close 200 lines down.
    expect(frontmatterEnd(lines('---\na: 1\nbody'))).toBe(0);
    expect(frontmatterEnd(['---', ...Array.from({ length: 198 }, (_, i) => `k${i}: v`), '---'])).toBe(200);
    expect(frontmatterEnd(['---', ...Array.from({ length: 199 }, (_, i) => `k${i}: v`), '---'])).toBe(0);
  });

  it('sectionText: the text under a ## heading up to the next one, trimmed; "" when absent', () => {
    const md = '# Session\n\n## Goal\n\nShip it.\n\n## Current State (v2)\n\n- one\n- two\n\n## Next Steps\n';
    expect(sectionText(md, 'Goal')).toBe('Ship it.');
    expect(sectionText(md, 'Current State (v2)')).toBe('- one\n- two');
    expect(sectionText(md, 'Next Steps')).toBe('');
    expect(sectionText(md, 'Open Questions')).toBe('');
    expect(sectionText('## Goal\r\n\r\nWindows lines\r\n## Next', 'Goal')).toBe('Windows lines');
  });
});
