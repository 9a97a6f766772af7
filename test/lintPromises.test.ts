import path from 'node:path';
import { ESLint } from 'eslint';

/**
 * The lint config's rules that need types, on src/: a promise nobody awaits or catches is an error
 * (an unhandled rejection ends the process: nothing in src/ handles 'unhandledRejection'), `void`
 * alone does not make it deliberate, and an async function where a void callback goes is refused.
 * Linted as if it were a file of src/ (its text replaced), so the check uses the project's types.
 */

// With CI=true typescript-eslint infers a single run (types from disk, once); this check lints text.
process.env.TSESTREE_SINGLE_RUN = 'false';
const ROOT = path.join(__dirname, '..');
const AS_FILE = path.join(ROOT, 'src/shared/queue.ts');

async function findings(code: string): Promise<string[]> {
  // With CI=true typescript-eslint infers a single run and types files as they are on disk, not the
  // text handed in here: this check lints text that is not on disk, so it asks for a program per text.
  const single = { files: ['**/*.ts'], languageOptions: { parserOptions: { disallowAutomaticSingleRunInference: true } } };
  // The config handed in, not found: ESLint loads a config file by dynamic import, which jest's VM refuses.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const config = require(path.join(ROOT, 'eslint.config.js')) as object[];
  const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: true, overrideConfig: [...config, single] });
  const [result] = await eslint.lintText(code, { filePath: AS_FILE });
  return result.messages.map((m) => `${m.line} ${m.ruleId}`);
}

describe('lint: promises in src/', () => {
  it('flags a floating or merely voided promise and an async void callback; a caught one and bookkeeping with both handlers pass', async () => {
    const code = [
      'export async function work(): Promise<void> {}',
      'export function caller(log: (err: unknown) => void): void {',
      '  work();',
      '  void work();',
      '  void work().catch(log);',
      '  const done = () => undefined;',
      '  work().then(done, done);',
      '  setTimeout(async () => {',
      '    await work();',
      '  }, 1);',
      '}',
      '',
    ].join('\n');
    expect(await findings(code)).toEqual([
      '3 @typescript-eslint/no-floating-promises',
      '4 @typescript-eslint/no-floating-promises',
      '8 @typescript-eslint/no-misused-promises',
    ]);
  }, 60_000);
});
