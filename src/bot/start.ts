import type { Settings } from '../config/load';
import type { Logger } from '../log/logger';
import type { CliIO } from '../cli/main';

export async function startBot(o: { settings: Settings; logger: Logger; io: CliIO }): Promise<number> {
  o.io.stderr.write('minutes: the Discord bot is not built yet in this version; use `npx minutes chat --channel NAME`\n');
  return 1;
}
