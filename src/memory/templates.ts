import { SESSION_SECTIONS } from './grammar';

/**
 * Starting content for each memory file. A missing file is filled from here the first time the bot
 * works in a channel, so an old folder with only MEMORY.md and HISTORY.md migrates by itself.
 */
export const TEMPLATES = {
  'CONTEXT.md': [
    '# Channel Context',
    '',
    '## Current State',
    '',
    '_Nothing condensed yet._',
    '',
    '## Key Decisions',
    '',
    '## Active Constraints',
    '',
    '## Superseded Decisions',
    '',
  ].join('\n'),
  'MEMORY.md': [
    '# Channel Memory',
    '',
    '<!-- Durable facts, decisions, preferences and constraints, one per line. Edit freely: lines you add get an id on the next write and keep their words. -->',
    '',
    '## Durable Facts',
    '',
  ].join('\n'),
  'SESSION.md': ['# Session', '', `## ${SESSION_SECTIONS.goal}`, '', `## ${SESSION_SECTIONS.state}`, '', `## ${SESSION_SECTIONS.next}`, ''].join('\n'),
  'HISTORY.md': ['# Channel History', ''].join('\n'),
} as const;

export type TemplateFile = keyof typeof TEMPLATES;
