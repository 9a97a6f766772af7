import path from 'node:path';
import { ChannelStore, StoreOptions } from '../memory/store';
import { ChannelPaths, channelPaths, ChannelRef } from '../memory/paths';

/**
 * A store over one channel folder of any name (`minutes condense --channel-dir DIR`): every ref
 * resolves to DIR with the usual layout inside it. The layout comes from channelPaths itself
 * (computed for a stand-in folder and moved onto DIR), so it cannot drift from the bot's.
 */
export class FolderStore extends ChannelStore {
  private readonly dir: string;

  constructor(dir: string, opts: Omit<StoreOptions, 'root'> = {}) {
    super({ ...opts, root: path.dirname(path.resolve(dir)) });
    this.dir = path.resolve(dir);
  }

  override paths(ref: ChannelRef): ChannelPaths {
    const standInRoot = path.join(this.root, '.minutes-folder-store');
    const standIn = path.join(standInRoot, 'local', 'channel');
    const cp = channelPaths(standInRoot, { kind: 'local', name: 'channel' });
    void ref; // one folder: every conversation of this store is that folder
    const out = {} as Record<string, string>;
    for (const [k, v] of Object.entries(cp)) out[k] = v === standIn || v.startsWith(standIn + path.sep) ? this.dir + v.slice(standIn.length) : v;
    return out as unknown as ChannelPaths;
  }
}
