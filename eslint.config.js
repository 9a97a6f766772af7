// @ts-check
'use strict';
/**
 * ESLint (flat config) with typescript-eslint's recommended rules, over src/, test/ and bench/.
 * Rules switched off or relaxed say why beside them.
 */
const js = require('@eslint/js');
const tseslint = require('typescript-eslint');

module.exports = tseslint.config(
  { ignores: ['dist/**', 'bench/out/**', 'node_modules/**', 'coverage/**', 'channels/**', 'examples/**', 'reports/**', '.stryker-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        fetch: 'readonly',
        NodeJS: 'readonly',
      },
    },
    rules: {
      // An argument or binding named with a leading underscore is unused on purpose (an interface's shape).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Control bytes are matched on purpose: the code strips them from untrusted text (files, model output, messages).
      'no-control-regex': 'off',
      // Wiring: a closure may read a binding (the upkeep, the recall service) that is assigned once, later.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Rules that need types, for src/ only (tests and benches await what they mean to): a promise
    // nobody awaits or catches loses its rejection (an unhandled rejection ends the process), and
    // one handed where a void callback is expected (an event listener) is never awaited either.
    // Fire-and-forget is written `void p.catch(log)`, so the reader sees where its failure goes.
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { project: './tsconfig.json', tsconfigRootDir: __dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // Front matter is read in one place, YAML only: gray-matter's other engines (`---js`) run the file's code.
    files: ['src/**/*.ts'],
    ignores: ['src/memory/frontMatter.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: [{ name: 'gray-matter', message: 'read and write front matter through src/memory/frontMatter.ts (YAML only; no engine that runs code)' }] },
      ],
    },
  },
  {
    // Plain CommonJS scripts (benches, the bin shim, tooling): require() is how they load code.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { __filename: 'readonly' } },
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      // Benches take performance from node:perf_hooks explicitly (older Node had no global).
      'no-redeclare': ['error', { builtinGlobals: false }],
      // A .ts path loaded through the transpile-on-require hook: @ts-ignore documents it; there is no error to expect when checked as JS.
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-ignore': 'allow-with-description' }],
    },
  },
);
