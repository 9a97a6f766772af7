// @ts-check
'use strict';
/**
 * The load benchmark's message keys, shared by the fakes (bench/load-fakes.js) and the measuring
 * process (bench/load-run.js) without loading the fakes into the bot's process.
 *
 * Message m of channel c says `load cCCCC mMM` (4-digit channel, 2-digit message: `c0007 m03`), so up
 * to 10,000 channels × 100 messages; the fake model echoes the keys of the newest user turn and the
 * replies prove each message was answered once and in order.
 */
const CHANNEL_DIGITS = 4;
const MESSAGE_DIGITS = 2;
const MAX_CHANNELS = 10 ** CHANNEL_DIGITS;
const MAX_MESSAGES = 10 ** MESSAGE_DIGITS;
const KEY_SOURCE = `c(\\d{${CHANNEL_DIGITS}}) m(\\d{${MESSAGE_DIGITS}})`;
/** Every key in a text (global: use with String.prototype.match). */
const KEY = new RegExp(`c\\d{${CHANNEL_DIGITS}} m\\d{${MESSAGE_DIGITS}}`, 'g');
const pad = (n, w) => String(n).padStart(w, '0');

/** @param {number} c @param {number} m */
const keyOf = (c, m) => `c${pad(c, CHANNEL_DIGITS)} m${pad(m, MESSAGE_DIGITS)}`;
/** @param {number} c */
const channelName = (c) => `c${pad(c, CHANNEL_DIGITS)}`;

/** @param {string} key @returns {{ c: number, m: number }} */
function parseKey(key) {
  const k = new RegExp(`^${KEY_SOURCE}$`).exec(key);
  if (!k) throw new Error(`not a load key: ${key}`);
  return { c: Number(k[1]), m: Number(k[2]) };
}

/** One user line of a turn as Minutes and the bare client render it: `[time UTC] name: [@Minutes ]load cCCCC mMM`. */
const PART_LINE = new RegExp(`^\\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC\\] [^\\n]*?: (?:@Minutes )?load (c\\d{${CHANNEL_DIGITS}} m\\d{${MESSAGE_DIGITS}})$`);

module.exports = { KEY, PART_LINE, MAX_CHANNELS, MAX_MESSAGES, keyOf, channelName, parseKey };
