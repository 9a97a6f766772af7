import fs from 'node:fs';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS } from '../helpers/chromiumArgs';
import { noteSkipped } from '../helpers/skippedSuites';

/**
 * Debian's chromium driven by playwright-core (no browser download), for the dashboard's browser
 * suites. Without chromium a developer's run skips with one line; with CI=true it must run.
 */
const CHROMIUM = process.env.MINUTES_CHROMIUM ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);

/** `describe` when chromium is here (or CI=true), else `describe.skip`, the skip noted with `what`. */
export function describeWithChromium(what: string): jest.Describe {
  if (haveChromium || process.env.CI === 'true') return describe;
  // Said on the run's last line too, with the other suites skipped for want of something here.
  noteSkipped(what, `no ${CHROMIUM} (apt-get install chromium)`);
  return describe.skip;
}

/** A fresh profile folder per run (playwright passes it as --user-data-dir). */
export async function launchChromium(userDataDir: string): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...CHROMIUM_ARGS],
  });
}
