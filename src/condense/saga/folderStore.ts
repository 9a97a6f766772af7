import path from 'node:path';
import { ChannelStore, StoreOptions } from '../../memory/store';
import { folderLayout } from '../../memory/layout';

/**
 * A store over one channel folder of any name (`minutes condense --channel-dir DIR`): every ref
 * resolves to DIR with the usual layout inside it. The layout is the bot's own (channelLayout), so
 * it cannot drift from the bot's; one folder means every conversation of this store is that folder.
 */
export class FolderStore extends ChannelStore {
  constructor(dir: string, opts: Omit<StoreOptions, 'root' | 'layout'> = {}) {
    const folder = path.resolve(dir);
    super({ ...opts, root: path.dirname(folder), layout: () => folderLayout(folder) });
  }
}
