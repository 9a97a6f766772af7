import fs from 'node:fs';
import path from 'node:path';
import { ChannelStore } from '../../src/memory/store';
import type { ChannelTx } from '../../src/memory/channelTx';
import { StoreError } from '../../src/memory/storeErrors';
import type { ChannelRef } from '../../src/memory/paths';
import { makeTmpDir } from '../helpers/tmp';

/**
 * Writes that need a channel's lock come only from `exclusive`, as the methods of the section's
 * ChannelTx: the store has no such writer of its own to call, and a tx kept past its section refuses.
 */

const ref: ChannelRef = { kind: 'discord', guildId: '111111111111111111', channelId: '222222222222222222' };
let tmp: ReturnType<typeof makeTmpDir>;
let store: ChannelStore;
beforeEach(() => {
  tmp = makeTmpDir();
  store = new ChannelStore({ root: tmp.dir, clock: () => new Date('2026-11-21T12:00:00Z') });
});
afterEach(() => tmp.cleanup());

describe('ChannelStore.exclusive hands out the locked writers', () => {
  it('the store has no method named *Locked (the writers that need the lock are the tx)', () => {
    const publicNames = Object.getOwnPropertyNames(ChannelStore.prototype).filter((n) => /Locked$/.test(n));
    expect(publicNames).toEqual([]);
  });

  it("a section's tx writes the section's channel: a memory file, a state file with a backup, a playbook", async () => {
    const p = await store.ensureChannel(ref);
    fs.mkdirSync(path.dirname(p.contextData), { recursive: true });
    fs.writeFileSync(p.contextData, '{"old":true}\n');
    const out = await store.exclusive(p, async (tx) => {
      expect(tx.p).toBe(p);
      const r = await tx.update('HISTORY.md', (cur) => `${cur}\nline\n`);
      await tx.writeState(p.contextData, { next: 1 });
      await tx.updatePlaybook('deploy', () => '# Deploy\n\n1. ship\n');
      return r.changed;
    });
    expect(out).toBe(true);
    expect(fs.readFileSync(p.history, 'utf8')).toMatch(/\nline\n$/);
    expect(JSON.parse(fs.readFileSync(p.contextData, 'utf8'))).toEqual({ next: 1 });
    expect(fs.readdirSync(p.backups).some((f) => f.includes('context'))).toBe(true);
    expect(fs.readFileSync(path.join(p.playbooks, 'deploy.md'), 'utf8')).toContain('1. ship');
  });

  it('a tx used after its section ended refuses and writes nothing, for each of its writers', async () => {
    const p = await store.ensureChannel(ref);
    const before = fs.readFileSync(p.history, 'utf8');
    let kept: ChannelTx | undefined;
    await store.exclusive(p, async (tx) => {
      kept = tx;
    });
    const tx = kept as ChannelTx;
    await expect(tx.update('HISTORY.md', (cur) => `${cur}late\n`)).rejects.toThrow(StoreError);
    await expect(tx.update('HISTORY.md', (cur) => `${cur}late\n`)).rejects.toThrow(/after its exclusive section ended; await every write inside/);
    await expect(tx.writeState(p.contextData, { late: true })).rejects.toThrow(StoreError);
    await expect(tx.updatePlaybook('late', () => 'late\n')).rejects.toThrow(StoreError);
    expect(fs.readFileSync(p.history, 'utf8')).toBe(before);
    expect(fs.existsSync(p.contextData)).toBe(false);
    expect(fs.existsSync(path.join(p.playbooks, 'late.md'))).toBe(false);
  });

  it('a section that failed closes its tx too', async () => {
    const p = await store.ensureChannel(ref);
    let kept: ChannelTx | undefined;
    await expect(
      store.exclusive(p, async (tx) => {
        kept = tx;
        throw new Error('step failed');
      }),
    ).rejects.toThrow('step failed');
    await expect((kept as ChannelTx).update('MEMORY.md', (cur) => `${cur}x\n`)).rejects.toThrow(/exclusive section ended/);
  });

  it('a tx holds the lock: another writer of the channel waits until the section ends', async () => {
    const p = await store.ensureChannel(ref);
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const section = store.exclusive(p, async (tx) => {
      await tx.update('HISTORY.md', (cur) => `${cur}first\n`);
      order.push('section wrote');
      await gate;
      order.push('section ends');
    });
    const other = store.update(ref, 'HISTORY.md', (cur) => `${cur}second\n`).then(() => order.push('other wrote'));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await Promise.all([section, other]);
    expect(order).toEqual(['section wrote', 'section ends', 'other wrote']);
    expect(fs.readFileSync(p.history, 'utf8')).toMatch(/first\nsecond\n$/);
  });
});
