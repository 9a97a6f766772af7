#!/usr/bin/env node
// npm leaves platform bindings it cannot fetch out of package-lock.json (npm/cli#4828), and the
// registry this project is built against serves only the Linux builds of unrs-resolver (a jest 30
// dependency). `npm ci` then fails with "Missing: @unrs/resolver-binding-… from lock file" on every
// machine. This adds the missing optional entries (no download is needed: npm skips bindings for
// other platforms). Run it after any `npm install` that rewrites the lock file.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
let added = 0;
for (const [key, pkg] of Object.entries(lock.packages)) {
  if (!/(^|\/)unrs-resolver$/.test(key) || !pkg.optionalDependencies) continue;
  for (const [name, version] of Object.entries(pkg.optionalDependencies)) {
    const entryKey = `node_modules/${name}`;
    if (lock.packages[entryKey]) continue;
    const rest = name.replace('@unrs/resolver-binding-', '');
    const [os, arch] = rest.split('-');
    const entry = { version, cpu: [arch], dev: true, license: 'MIT', optional: true, os: [os] };
    if (/-(gnu|gnueabihf)$/.test(rest)) entry.libc = ['glibc'];
    if (/-(musl|musleabihf)$/.test(rest)) entry.libc = ['musl'];
    lock.packages[entryKey] = entry;
    added++;
  }
}
const sorted = {};
for (const k of Object.keys(lock.packages).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0))) sorted[k] = lock.packages[k];
lock.packages = sorted;
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`fix-lockfile: added ${added} platform binding entr${added === 1 ? 'y' : 'ies'}\n`);
