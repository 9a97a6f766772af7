import type { ChannelPaths } from './layout';
import { StoreError } from './storeErrors';

export type MemoryFileName = 'CONTEXT.md' | 'CONTEXT.archive.md' | 'MEMORY.md' | 'SESSION.md' | 'HISTORY.md' | 'HISTORY.archive.md';

export interface UpdateOptions {
  /** Lets a rewrite shrink the file by more than half (an explicit forget). */
  allowShrink?: boolean;
  /** Create the file from its template when missing (the default for the four memory files). */
  template?: boolean;
}

/**
 * The writers that need the channel's queue and lock, handed only to the task of `exclusive`:
 * holding one is holding the lock, so a write that needs it cannot be called outside. Each writes
 * the files of the channel the section was opened for (`p`). Used after the section ended, a writer
 * refuses (the lock is gone) instead of writing unlocked.
 */
export interface ChannelTx {
  readonly p: ChannelPaths;
  /** `ChannelStore.update` of one of this channel's memory files; several make one multi-file step. */
  update(name: MemoryFileName, change: (current: string) => string, opts?: UpdateOptions): Promise<{ changed: boolean; text: string }>;
  /**
   * Rewrites a `.minutes/` state file that is read back to build on (ledger, context) after keeping
   * its previous version among the channel's backups, as the markdown files get: a bad rewrite of
   * either can be undone by hand.
   */
  writeState(file: string, value: unknown): Promise<void>;
  /** A playbook file (`playbooks/<slug>.md`), rewritten as a memory file is (playbookFiles.ts). */
  updatePlaybook(slug: string, change: (current: string | null) => string): Promise<void>;
}

/** A section's writers and the end of the section (the store calls it once the task settled). */
export interface ChannelSection {
  tx: ChannelTx;
  close: () => void;
}

/**
 * The ChannelTx of one exclusive section: `writers` are the store's unguarded ones for the
 * section's channel; each refuses once the section is closed, so a write left running past its
 * task (not awaited) fails rather than race the next holder of the lock. `where` names the channel's
 * folder in the refusal (computed only then: a section is opened for every locked write).
 */
export function channelSection(p: ChannelPaths, where: () => string, writers: Omit<ChannelTx, 'p'>): ChannelSection {
  let open = true;
  const held = () => {
    if (!open) throw new StoreError(`a write to ${where()} came after its exclusive section ended; await every write inside the task given to exclusive`);
  };
  return {
    tx: {
      p,
      update: async (name, change, opts) => {
        held();
        return writers.update(name, change, opts);
      },
      writeState: async (file, value) => {
        held();
        return writers.writeState(file, value);
      },
      updatePlaybook: async (slug, change) => {
        held();
        return writers.updatePlaybook(slug, change);
      },
    },
    close: () => {
      open = false;
    },
  };
}
