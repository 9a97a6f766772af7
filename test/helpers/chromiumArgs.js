// @ts-check
'use strict';
/**
 * The flags Debian's chromium is started with by the dashboard's browser tests and the screenshot
 * script: headless, no sandbox (containers), and nothing that would reach the network on its own
 * (updates, sync, background fetches). Plain JS so the script (no TypeScript) shares it.
 */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

module.exports = { CHROMIUM_ARGS };
