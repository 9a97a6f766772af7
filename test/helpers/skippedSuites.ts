import fs from 'node:fs';

/**
 * Suites skipped for want of something on this machine (redis-server), said where a person reads:
 * the run's last line. A suite notes its skip here; jest's global setup names the file for the run
 * (MINUTES_TEST_SKIPS, in every worker's environment) and its teardown prints one line from it
 * (skippedSuitesSetup.js, skippedSuitesTeardown.js). A file run alone without that setup still warns.
 */
export const SKIPS_ENV = 'MINUTES_TEST_SKIPS';

export function noteSkipped(what: string, why: string): void {
  console.warn(`[skipped] ${what}: ${why}`);
  const file = process.env[SKIPS_ENV];
  // One short line per suite, appended: workers write at once without tearing it.
  if (file) fs.appendFileSync(file, `${JSON.stringify({ what, why })}\n`);
}
