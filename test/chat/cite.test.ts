import { decisionLogSources, sourcesLine } from '../../src/chat/cite';
import type { RecallItem } from '../../src/recall/types';

const item = (text: string, link?: string): RecallItem => ({ file: 'MEMORY.md', heading: '', text, score: 1, lexical: 1, ...(link ? { link } : {}) });
const A = 'https://discord.com/channels/1/2/3';
const B = 'https://discord.com/channels/1/2/4';

describe('answers that cite the decision log', () => {
  const releases = item(
    '- [m-aaaaa1] Decision (Release day): production releases happen on Tuesdays after the standup [from: condensation 2026-11-01-release-day.md, 2026-11-01]',
    A,
  );

  it('a reply that repeats a condensation line links its post', () => {
    expect(decisionLogSources('Production releases happen on Tuesdays, after the standup.', [releases])).toEqual([A]);
    expect(sourcesLine([A, B])).toBe(`-# From the decision log: <${A}> · <${B}>`);
  });

  it('no link for an unrelated reply, a line without a post, a link already given, or a shared common word', () => {
    expect(decisionLogSources('Penguins cannot fly, but they swim well.', [releases])).toEqual([]);
    expect(decisionLogSources('Production releases happen on Tuesdays.', [item('- production releases happen on Tuesdays')])).toEqual([]);
    expect(decisionLogSources(`Releases are on Tuesdays after the standup (${A}).`, [releases])).toEqual([]);
    expect(decisionLogSources('That happens after lunch.', [releases])).toEqual([]);
    expect(sourcesLine([])).toBe('');
  });

  it('at most two sources', () => {
    const many = [A, B, 'https://discord.com/channels/1/2/5'].map((l) => item('- production releases happen on Tuesdays after the standup', l));
    expect(decisionLogSources('Production releases happen on Tuesdays after the standup.', many)).toEqual([A, B]);
  });
});
