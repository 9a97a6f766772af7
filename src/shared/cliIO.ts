/**
 * A command's view of the outside world: its streams, environment and working folder. Injected so
 * tests run commands in process, and used below the CLI (the bot's start command) without the CLI.
 */
export interface CliIO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Where `.env` is also looked for (the installed package's root); tests leave it unset. */
  projectRoot?: string;
}
