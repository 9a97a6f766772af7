// @ts-check
'use strict';
/**
 * jest's globalSetup: names the file where suites note a skip for want of something on this machine
 * (test/helpers/skippedSuites.ts); skippedSuitesTeardown.js prints them in the run's last line.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

module.exports = function setup() {
  // Per run (the pid), so two runs at once on one machine keep their own lists. Workers start
  // after this and inherit the environment.
  const file = path.join(os.tmpdir(), `minutes-jest-skipped-${process.pid}.jsonl`);
  fs.rmSync(file, { force: true });
  process.env.MINUTES_TEST_SKIPS = file;
};
