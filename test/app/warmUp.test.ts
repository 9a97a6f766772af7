import fs from 'node:fs';
import path from 'node:path';
import { warmUpRecall } from '../../src/app/warmUp';
import { channelPaths } from '../../src/memory/layout';
import type { ChannelRef } from '../../src/memory/paths';
import { buildRecallService } from '../../src/recall/service';
import { silentLogger } from '../../src/log/logger';
import { makeTmpDir } from '../helpers/tmp';

/** A channel folder with a MEMORY.md line and a cold log last written `secondsAgo` ago. */
function channel(
  root: string,
  guildId: string,
  channelId: string,
  secondsAgo: number,
  line = `- [m-${channelId.slice(-6)}] we deploy with blue-green releases`,
): ChannelRef {
  const ref: ChannelRef = { kind: 'discord', guildId, channelId };
  const p = channelPaths(root, ref);
  fs.mkdirSync(p.channelDir, { recursive: true });
  fs.writeFileSync(p.memory, `# Memory\n\n${line}\n`);
  fs.writeFileSync(p.log, '{"type":"message"}\n');
  const t = new Date(Date.now() - secondsAgo * 1000);
  fs.utimesSync(p.log, t, t);
  return ref;
}

describe('warming recall up at start', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => (tmp = makeTmpDir()));
  afterEach(() => tmp.cleanup());

  it("indexes the served servers' channels, most recently active first, up to the cap", async () => {
    const root = path.join(tmp.dir, 'channels');
    const old = channel(root, '111111111111111111', '200000000000000001', 3_000);
    const recent = channel(root, '111111111111111111', '200000000000000002', 10);
    const middle = channel(root, '111111111111111111', '200000000000000003', 600);
    channel(root, '999999999999999999', '300000000000000001', 1); // another shard's server
    fs.mkdirSync(path.join(root, '111111111111111111', 'not-a-channel'), { recursive: true });
    const built: string[][] = [];
    const recall = { prebuild: (input: { channelDirs: string[] }) => void built.push(input.channelDirs) };
    expect(await warmUpRecall({ root, recall, guildIds: ['111111111111111111'] })).toEqual([recent, middle, old]);
    expect(built).toEqual([recent, middle, old].map((r) => [channelPaths(root, r).channelDir]));
    expect(await warmUpRecall({ root, recall, guildIds: ['111111111111111111'], max: 2 })).toEqual([recent, middle]);
    expect(await warmUpRecall({ root, recall, guildIds: ['123456789012345678'] })).toEqual([]);
  });

  it('leaves the index built, so the first recall there reads no memory file', async () => {
    const root = path.join(tmp.dir, 'channels');
    const ref = channel(root, '111111111111111111', '200000000000000002', 10);
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    await warmUpRecall({ root, recall, guildIds: ['111111111111111111'] });
    const memory = channelPaths(root, ref).memory;
    const reads: string[] = [];
    const readFileSync = fs.readFileSync;
    const spy = jest.spyOn(fs, 'readFileSync').mockImplementation(((file: fs.PathOrFileDescriptor, o?: unknown) => {
      reads.push(String(file));
      return readFileSync(file, o as BufferEncoding);
    }) as typeof fs.readFileSync);
    try {
      const r = await recall.recall({
        channelDirs: [channelPaths(root, ref).channelDir],
        workspaceDir: path.join(root, 'workspace'),
        query: 'how do we deploy releases?',
      });
      expect(r.items.map((i) => i.text)).toEqual([expect.stringContaining('blue-green releases')]);
    } finally {
      spy.mockRestore();
    }
    expect(reads).not.toContain(memory);
  });
});
