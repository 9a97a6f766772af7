// @ts-check
'use strict';
/**
 * jest's globalTeardown: one line naming every suite skipped and why, from the file
 * skippedSuitesSetup.js named. It runs after jest's summary, so the line is the run's last; nothing
 * is printed when nothing was skipped.
 */
const fs = require('node:fs');

/**
 * "Skipped 3 suites: a, b — why; c — why": suites grouped by reason, in the order noted; null for none.
 * @param {string} text JSON lines of {"what", "why"}
 */
function summary(text) {
  /** @type {Map<string, Set<string>>} */
  const byWhy = new Map();
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const { what, why } = JSON.parse(line);
    const whats = byWhy.get(why) ?? new Set();
    whats.add(what);
    byWhy.set(why, whats);
  }
  const count = [...byWhy.values()].reduce((n, s) => n + s.size, 0);
  if (!count) return null;
  const parts = [...byWhy].map(([why, whats]) => `${[...whats].join(', ')} — ${why}`);
  return `Skipped ${count} suite${count === 1 ? '' : 's'}: ${parts.join('; ')}`;
}

module.exports = function teardown() {
  const file = process.env.MINUTES_TEST_SKIPS;
  if (!file) return;
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return; // nothing was skipped: no file was written
  } finally {
    fs.rmSync(file, { force: true });
  }
  const line = summary(text);
  if (line) process.stderr.write(`${line}\n`);
};
module.exports.summary = summary;
