// @ts-check
'use strict';
/**
 * The rules and knobs bench/recall-loo.js judges, each with a small grid whose first value is the
 * rule switched off (or, for the core constants that have no "off", the shipped value, marked so).
 * Every rule kept in the code is listed here with what it is for, so the next change is judged the
 * same way; docs/benchmarks.md lists what was measured and removed.
 */

/** @returns {{name: string, what: string, grid: {label: string, tuning: object}[]}[]} */
function rules() {
  const t = (/** @type {string} */ label, /** @type {object} */ tuning) => ({ label, tuning });
  return [
    {
      name: 'sessionBoost',
      what: "a matching HISTORY summary lifts that day's entries",
      grid: [t('0', { sessionBoost: 0 }), t('0.3', { sessionBoost: 0.3 }), t('0.6', { sessionBoost: 0.6 }), t('1', { sessionBoost: 1 })],
    },
    {
      name: 'weakFactor',
      what: 'a word common in the language counts this share as evidence',
      grid: [t('1', { weakFactor: 1 }), t('0.75', { weakFactor: 0.75 }), t('0.5', { weakFactor: 0.5 }), t('0.3', { weakFactor: 0.3 })],
    },
    {
      name: 'rareFloor',
      what: 'a word not common in the language keeps at least this evidence',
      grid: [t('0', { rareFloor: 0 }), t('0.5', { rareFloor: 0.5 }), t('0.75', { rareFloor: 0.75 }), t('1', { rareFloor: 1 })],
    },
    {
      name: 'rareWord',
      what: 'one word rare in the language and in the channel opens the gate (rareDfMax/rareWordMin)',
      grid: [
        t('off', { rareDfMax: 0 }),
        t('3/0.7', { rareDfMax: 3, rareWordMin: 0.7 }),
        t('6/0.7', { rareDfMax: 6, rareWordMin: 0.7 }),
        t('3/0.5', { rareDfMax: 3, rareWordMin: 0.5 }),
      ],
    },
    {
      name: 'charsPerItem',
      what: 'the item cap grows with the budget (one item per this many characters, at least 16)',
      grid: [t('0', { charsPerItem: 0 }), t('125', { charsPerItem: 125 }), t('250', { charsPerItem: 250 })],
    },
    {
      name: 'denseCandidates',
      what: 'meaning admits this many lines that share no word with the message',
      grid: [t('0', { denseCandidates: 0 }), t('20', { denseCandidates: 20 }), t('50', { denseCandidates: 50 }), t('100', { denseCandidates: 100 })],
    },
    // Core constants with no "off": the first value is the shipped one (the comparison is against it).
    {
      name: 'denseWeight*',
      what: "meaning's share of the fused score",
      grid: [t('0.3', { denseWeight: 0.3 }), t('0.2', { denseWeight: 0.2 }), t('0.45', { denseWeight: 0.45 })],
    },
    {
      name: 'denseAdmit*',
      what: 'the cosine a line needs to be admitted by meaning alone',
      grid: [t('0.4', { denseAdmit: 0.4 }), t('0.35', { denseAdmit: 0.35 }), t('0.45', { denseAdmit: 0.45 })],
    },
    {
      name: 'gateMin*',
      what: 'the evidence the best line needs for recall to speak (abstention)',
      grid: [t('1.15', { gateMin: 1.15 }), t('1.0', { gateMin: 1.0 }), t('1.3', { gateMin: 1.3 })],
    },
    {
      name: 'evidenceMin*',
      what: 'the evidence any other line needs once the gate is passed',
      grid: [t('0.3', { evidenceMin: 0.3 }), t('0.2', { evidenceMin: 0.2 }), t('0.45', { evidenceMin: 0.45 })],
    },
  ];
}

module.exports = { rules };
