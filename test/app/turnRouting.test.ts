import path from 'node:path';
import { ownerOf, ownerOfDir, turnWorkerCount } from '../../src/app/turnRouting';
import { channelPaths } from '../../src/memory/layout';
import type { ChannelRef } from '../../src/memory/paths';

describe('which turn worker owns a conversation', () => {
  const root = path.join(path.sep, 'data', 'channels');
  const channel = (channelId: string): ChannelRef => ({ kind: 'discord', guildId: '100', channelId });

  it('a channel and its threads (private ones too) have one owner, the same for the folder its memory is written in', () => {
    for (let i = 0; i < 200; i++) {
      const id = String(1_200_000_000_000_000_000n + BigInt(i) * 4_194_304n);
      const owner = ownerOf(channel(id), 3);
      expect(ownerOf({ kind: 'discord', guildId: '100', channelId: id, threadId: '9' + id }, 3)).toBe(owner);
      expect(ownerOf({ kind: 'discord', guildId: '100', channelId: id, threadId: '8' + id, privateThread: true }, 3)).toBe(owner);
      expect(ownerOfDir(root, channelPaths(root, channel(id)).convDir, 3)).toBe(owner);
      const thread = channelPaths(root, { kind: 'discord', guildId: '100', channelId: id, threadId: '9' + id }).convDir;
      expect(ownerOfDir(root, thread, 3)).toBe(owner);
    }
  });

  it('console channels too; the workspace and folders outside the data root are nobody’s', () => {
    const local: ChannelRef = { kind: 'local', name: 'demo' };
    expect(ownerOfDir(root, channelPaths(root, local).convDir, 4)).toBe(ownerOf(local, 4));
    expect(ownerOfDir(root, path.join(root, 'workspace'), 4)).toBeUndefined();
    expect(ownerOfDir(root, path.join(root, '..', 'elsewhere', 'x'), 4)).toBeUndefined();
    expect(ownerOfDir(root, root, 4)).toBeUndefined();
  });

  it('spreads snowflake ids (consecutive, as Discord makes them) evenly over the workers', () => {
    const counts = [0, 0];
    // Snowflakes made in the same millisecond differ only in their low bits: a sequence of them.
    for (let i = 0; i < 2000; i++) counts[ownerOf(channel(String(1_300_000_000_000_000_000n + BigInt(i))), 2)]++;
    expect(Math.min(...counts)).toBeGreaterThan(900);
    expect(counts[0] + counts[1]).toBe(2000);
  });

  it('one worker owns everything', () => {
    expect(ownerOf(channel('123'), 1)).toBe(0);
    expect(ownerOfDir(root, path.join(root, '100', '123'), 1)).toBe(0);
  });

  it('"auto" is two workers from two cores up, one on a single core or with the packaged sentence model; a number is taken as it is', () => {
    expect(turnWorkerCount('auto', 1, 'off')).toBe(1);
    expect(turnWorkerCount('auto', 2, 'off')).toBe(2);
    expect(turnWorkerCount('auto', 16, 'api')).toBe(2);
    expect(turnWorkerCount('auto', 16, 'local')).toBe(1);
    expect(turnWorkerCount(3, 1, 'local')).toBe(3);
  });
});
