import fs from 'node:fs';
import path from 'node:path';
import { ActiveConversations } from '../../src/bot/intake/activeConversations';
import { makeTmpDir } from '../helpers/tmp';

/** Issue 25 §3: the bot's record of where it works stays bounded over thousands of channels. */
describe('the conversations the bot works in', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('remembers the most recent ones over 5,000 channels, and after forgetting one still answers right', () => {
    const seen = new ActiveConversations({ max: 100 });
    const dirs = Array.from({ length: 5_000 }, (_, i) => path.join(tmp.dir, `c${i}`));
    // Every channel met once: each asks for its first-run record once.
    expect(dirs.filter((d) => seen.activate(d))).toHaveLength(5_000);
    // The 100 most recent are remembered: no second first-run record for them.
    expect(dirs.slice(4_900).filter((d) => seen.activate(d))).toHaveLength(0);
    // An older one is forgotten: asked again (harmless, the record keeps its first date).
    expect(seen.activate(dirs[0])).toBe(true);
    // Forgotten as active too: its folder on disk says it is (the first turn made it); without one it is not.
    fs.mkdirSync(dirs[1]);
    expect(seen.isActive(dirs[1])).toBe(true);
    expect(seen.isActive(dirs[2])).toBe(false);
    // A remembered one needs no folder check.
    expect(seen.isActive(dirs[4_999])).toBe(true);
  });

  it('tries the first-run record again after it failed', () => {
    const seen = new ActiveConversations();
    const dir = path.join(tmp.dir, 'c');
    expect(seen.activate(dir)).toBe(true);
    expect(seen.activate(dir)).toBe(false);
    seen.activationFailed(dir);
    expect(seen.activate(dir)).toBe(true);
    expect(seen.isActive(dir)).toBe(true);
  });
});
