import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ConfigFileSchema } from '../../src/config/schema';

const PAGE = path.join(__dirname, '..', '..', 'docs', 'configuration.md');

/** Every setting of the config file as a dotted path (`discord.catchUp.maxAgeMinutes`), and every object on the way (`discord.catchUp`). */
function settingPaths(schema: z.ZodType, prefix = ''): { leaves: string[]; objects: string[] } {
  let s: z.ZodType = schema;
  while (s instanceof z.ZodDefault || s instanceof z.ZodOptional) s = s.unwrap() as z.ZodType;
  if (!(s instanceof z.ZodObject)) return { leaves: [prefix], objects: [] };
  const out = { leaves: [] as string[], objects: prefix ? [prefix] : [] };
  for (const [key, field] of Object.entries(s.shape as Record<string, z.ZodType>)) {
    const sub = settingPaths(field, prefix ? `${prefix}.${key}` : key);
    out.leaves.push(...sub.leaves);
    out.objects.push(...sub.objects);
  }
  return out;
}

/**
 * The dotted names in backticks that read as settings: those whose first part is a top-level
 * setting (`discord.adminRoles`). File names that happen to start like one (`context.json`, `context.ts`,
 * `log.jsonl`) are files of the data root, not settings.
 */
function namedSettings(page: string, topLevel: string[]): string[] {
  const names = [...page.matchAll(/`([a-z][A-Za-z]*(?:\.[A-Za-z]+)+)`/g)].map((m) => m[1]);
  return [...new Set(names.filter((n) => topLevel.includes(n.split('.')[0]) && !/\.(json|jsonl|md|ts|js)$/.test(n)))];
}

/** The settings a page mentions in backticks (whole: `discord.driftNotes`, not inside a longer name). */
function mentioned(page: string, setting: string): boolean {
  return page.includes(`\`${setting}\``);
}

describe('docs/configuration.md and the config schema (src/config/schema.ts)', () => {
  const page = fs.readFileSync(PAGE, 'utf8');
  const { leaves, objects } = settingPaths(ConfigFileSchema);
  const topLevel = Object.keys(ConfigFileSchema.shape);

  it('the schema walk finds the settings (so the checks below cannot pass by reading nothing)', () => {
    expect(leaves).toEqual(
      expect.arrayContaining(['provider', 'models.chat', 'limits.timeoutMs', 'discord.catchUp.maxAgeMinutes', 'recall.api.baseUrl', 'log.format']),
    );
    expect(objects).toEqual(expect.arrayContaining(['discord', 'discord.catchUp', 'recall.api']));
    expect(leaves.length).toBeGreaterThan(30);
  });

  it('every setting of the schema is named on the page', () => {
    expect(leaves.filter((p) => !mentioned(page, p))).toEqual([]);
  });

  it('every setting the page names exists in the schema', () => {
    const known = new Set([...leaves, ...objects]);
    expect(namedSettings(page, topLevel).filter((n) => !known.has(n))).toEqual([]);
  });

  it('the checks see a setting left out and one made up', () => {
    const without = page.split('`discord.catchUp.maxMessages`').join('`discord.catchUp`');
    expect(leaves.filter((p) => !mentioned(without, p))).toEqual(['discord.catchUp.maxMessages']);
    const known = new Set([...leaves, ...objects]);
    const madeUp = `${page}\nSet \`recall.maxItem\` and \`discord.catchUp.maxAge\`; \`context.json\` is a file.\n`;
    expect(namedSettings(madeUp, topLevel).filter((n) => !known.has(n))).toEqual(['recall.maxItem', 'discord.catchUp.maxAge']);
  });
});
