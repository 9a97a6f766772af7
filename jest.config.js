/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
  testTimeout: 30000,
  // Two cores here; suites that start servers and child processes compete for them.
  maxWorkers: 2,
  // The run ends with one line naming the suites skipped for want of something here (redis-server).
  globalSetup: '<rootDir>/test/helpers/skippedSuitesSetup.js',
  globalTeardown: '<rootDir>/test/helpers/skippedSuitesTeardown.js',
};
