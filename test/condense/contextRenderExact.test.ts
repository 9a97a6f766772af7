import fs from 'node:fs';
import path from 'node:path';
import { ContextData, EMPTY_CONTEXT } from '../../src/condense/knowledge/contextData';
import { withHashLine } from '../../src/condense/knowledge/contextHash';
import { renderContextBody } from '../../src/condense/knowledge/contextRender';

/**
 * CONTEXT.md byte for byte, in process (the mutation run showed its headings, notes and line
 * formats were matched only by fragment): the example channel's structured context renders to the
 * CONTEXT.md committed in examples/, and a channel with nothing condensed has its fixed layout.
 */
describe('CONTEXT.md as rendered from its structured data', () => {
  const dir = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');

  it("renders the example channel's context.json to the CONTEXT.md committed beside it", () => {
    const data = ContextData.parse(JSON.parse(fs.readFileSync(path.join(dir, '.minutes', 'context.json'), 'utf8')));
    expect(withHashLine(renderContextBody(data))).toBe(fs.readFileSync(path.join(dir, 'CONTEXT.md'), 'utf8'));
  });

  it('lays out a channel with nothing condensed yet', () => {
    expect(renderContextBody(EMPTY_CONTEXT)).toBe(
      [
        '# Channel Context',
        '',
        '## Current State',
        '',
        '_Nothing condensed yet._',
        '',
        '## Key Decisions',
        '',
        '_None yet._',
        '',
        '## Active Constraints',
        '',
        '_None._',
        '',
        '## Superseded Decisions',
        '',
        '_None._',
        '',
      ].join('\n'),
    );
  });
});
