// @ts-check
'use strict';
/**
 * The value after a flag on a bench's command line (`--days 91`), or the default.
 * @param {string} name @param {string} dflt
 */
function arg(name, dflt) {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : dflt;
}
module.exports = { arg };
