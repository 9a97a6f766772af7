import { jsonLine, jsonLines, parsedJsonLines } from '../../src/shared/jsonLines';

describe('JSON Lines', () => {
  test('blank lines are skipped and each other line is parsed on its own, with its number', () => {
    expect(jsonLines('{"a":1}\r\n\n  \n{"b":2}\n{"torn')).toEqual([
      { line: 1, ok: true, value: { a: 1 } },
      { line: 4, ok: true, value: { b: 2 } },
      { line: 5, ok: false },
    ]);
  });

  test('an appended file reads back without its torn last line', () => {
    const text = jsonLine({ threadId: '1' }) + jsonLine({ threadId: '2' }) + '{"threadId":';
    expect(parsedJsonLines(text)).toEqual([{ threadId: '1' }, { threadId: '2' }]);
  });
});
