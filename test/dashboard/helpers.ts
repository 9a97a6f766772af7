import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createDashboard } from '../../src/dashboard/server';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';

/** A dashboard on a free loopback port over `root`, with words-only recall (offline, no model). */
export async function startDashboard(
  root: string,
  token?: string,
  o: { includePrivate?: boolean; clock?: () => Date } = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
  const d = createDashboard({ root, host: '127.0.0.1', port: 0, token, recall, includePrivate: o.includePrivate, ...(o.clock ? { clock: o.clock } : {}) });
  const url = await d.listen();
  return {
    url,
    close: async () => {
      await d.close();
      await recall.close();
    },
  };
}

/** Every file's path, size, mode and content hash, and every folder: what "unchanged" means. */
export function hashTree(root: string): string {
  const h = crypto.createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      const st = fs.lstatSync(p);
      h.update(`${path.relative(root, p)}|${e.isDirectory() ? 'd' : 'f'}|${st.size}|${st.mode}|${st.mtimeMs}\n`);
      if (e.isDirectory()) walk(p);
      else h.update(fs.readFileSync(p));
    }
  };
  walk(root);
  return h.digest('hex');
}

/** The search page's score columns, row by row: score, words, meaning (null for "—"). */
export function scoreRows(html: string): { score: number; lexical: number; semantic: number | null }[] {
  return [...html.matchAll(/<td class="score"[^>]*>([^<]*)<\/td><td class="score"[^>]*>([^<]*)<\/td><td class="score"[^>]*>([^<]*)<\/td>/g)].map((m) => ({
    score: Number(m[1]),
    lexical: Number(m[2]),
    semantic: m[3] === '—' ? null : Number(m[3]),
  }));
}

/** One section of a page by its id (sections do not nest on the dashboard's pages). */
export function sectionOf(html: string, id: string): string {
  const m = new RegExp(`<section id="${id}"[^>]*>[\\s\\S]*?</section>`).exec(html);
  if (!m) throw new Error(`no section #${id} on the page`);
  return m[0];
}
