import fs from 'node:fs';
import path from 'node:path';
import { listChannelRefs } from '../../src/condense/audit/audit';
import { listConversations } from '../../src/memory/dataRootIndex';
import { refFromDir } from '../../src/packages/refs';
import { makeTmpDir } from '../helpers/tmp';

/**
 * "Is this folder a private thread's" is one rule (memory/privateThreads.ts) that the audit, the
 * dashboard and `minutes mcp` (listConversations), and packages (refFromDir) all ask: any of the thread's own
 * durable records marks it private, so a person deleting one file never turns the rest public, and
 * a public thread's folder (its working state only) is never taken for one.
 */
const G = '111111111111111111';
const C = '222222222222222222';
const T = '333333333333333333';

const OWN_RECORDS: [string, string][] = [
  ['MEMORY.md', '# Channel Memory\n'],
  ['HISTORY.md', '# Channel History\n'],
  ['HISTORY.archive.md', '# Channel History (archive)\n'],
  ['condensations/2025-03-07-zanzibar.md', '---\ntopic: Zanzibar\n---\nbody\n'],
  ['playbooks/ship.md', '# Ship\n'],
  ['.minutes/ledger.json', '{"version":1,"entries":{}}'],
  ['.minutes/context.json', '{"version":1,"decisions":[],"constraints":[]}'],
];

describe('which thread folders are private threads', () => {
  const tmp = makeTmpDir();
  afterAll(() => tmp.cleanup());
  let n = 0;

  function rootWithThread(files: [string, string][]): { root: string; threadDir: string } {
    const root = path.join(tmp.dir, `root${n++}`);
    const threadDir = path.join(root, G, C, 'threads', T);
    fs.mkdirSync(threadDir, { recursive: true });
    for (const [f, text] of files) {
      fs.mkdirSync(path.dirname(path.join(threadDir, f)), { recursive: true });
      fs.writeFileSync(path.join(threadDir, f), text);
    }
    return { root, threadDir };
  }

  async function seenAsPrivate(root: string, threadDir: string) {
    return {
      audit: (await listChannelRefs(root)).some((r) => r.kind === 'discord' && r.threadId === T && r.privateThread === true),
      listing: (await listConversations(root, { includePrivate: true })).some((u) => u.threadId === T),
      packages: (await refFromDir(root, threadDir)).kind === 'discord' && (await refFromDir(root, threadDir)).privateThread === true,
    };
  }

  it.each(OWN_RECORDS)('a thread keeping only its own %s is private for every surface', async (file, text) => {
    const { root, threadDir } = rootWithThread([[file, text]]);
    expect(await seenAsPrivate(root, threadDir)).toEqual({ audit: true, listing: true, packages: true });
    // Listed outside the thread only when the operator opted in.
    expect((await listConversations(root)).map((u) => u.key)).toEqual([`${G}/${C}`]);
  });

  it("a public thread's folder (its working state only) is private for none", async () => {
    const { root, threadDir } = rootWithThread([
      ['SESSION.md', '# Session\n'],
      ['log.jsonl', '{"type":"message"}\n'],
      ['.minutes/conversation.json', '{}'],
      ['.minutes/packages.json', '{}'],
    ]);
    expect(await seenAsPrivate(root, threadDir)).toEqual({ audit: false, listing: false, packages: false });
  });
});
