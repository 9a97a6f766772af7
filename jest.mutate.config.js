/**
 * The tests mutation testing runs: the in-process unit tests of the pure core. End-to-end and CLI
 * tests are left out: they run the compiled bin/ (which holds no mutant) or start servers, and
 * would make a run take hours on two cores.
 */
const base = require('./jest.config');

/** @type {import('jest').Config} */
module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/test/memory/grammar.test.ts',
    '<rootDir>/test/memory/entries.test.ts',
    '<rootDir>/test/memory/secrets.test.ts',
    '<rootDir>/test/memory/secretCorpus.test.ts',
    '<rootDir>/test/recall/recall.test.ts',
    '<rootDir>/test/recall/rules.test.ts',
    '<rootDir>/test/recall/abstention.test.ts',
    '<rootDir>/test/recall/semantic.test.ts',
    '<rootDir>/test/recall/searchIndex.test.ts',
    '<rootDir>/test/condense/pure.test.ts',
    '<rootDir>/test/condense/constraints.test.ts',
    '<rootDir>/test/condense/contextArchive.test.ts',
    '<rootDir>/test/condense/boundedRequest.test.ts',
    '<rootDir>/test/condense/draftRequest.test.ts',
    '<rootDir>/test/condense/contextRenderExact.test.ts',
    '<rootDir>/test/condense/contextRenderArchive.test.ts',
    '<rootDir>/test/condense/fold.test.ts',
    '<rootDir>/test/condense/knowledgeDraft.test.ts',
    '<rootDir>/test/condense/knowledgeContext.test.ts',
    '<rootDir>/test/condense/drift.test.ts',
    '<rootDir>/test/bot/gate.test.ts',
  ],
};
