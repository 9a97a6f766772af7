import fs from 'node:fs';
import path from 'node:path';
import { silentLogger } from '../../src/log/logger';
import { buildRecallService } from '../../src/recall/service';
import { type ChannelRef } from '../../src/memory/paths';
import { channelPaths } from '../../src/memory/layout';
import { memorySlice, SLICE } from '../../src/upkeep/memorySlice';
import { makeTmpDir } from '../helpers/tmp';

const SERVICES = ['atlas', 'borealis', 'cobalt', 'delta', 'ember', 'fjord', 'granite', 'harbor', 'iris', 'juniper'];
const PROPS = ['request timeout', 'replica count', 'job queue', 'log retention', 'deploy window'];

/**
 * A MEMORY.md of 150 entries: every service × property stated three times with different values
 * over the year (supersessions missed in the past). Returns the channel's paths.
 */
function writeRestatedMemory(dir: string): ReturnType<typeof channelPaths> {
  const ref: ChannelRef = { kind: 'local', name: 'ops' };
  const p = channelPaths(dir, ref);
  fs.mkdirSync(path.dirname(p.memory), { recursive: true });
  const lines = ['# Channel Memory', ''];
  let n = 0;
  for (let round = 0; round < 3; round++) {
    for (const s of SERVICES) {
      for (const prop of PROPS) {
        const day = new Date(Date.UTC(2026, 0, 1) + (n * 86_400_000) / 2).toISOString().slice(0, 10);
        lines.push(`- [m-${(n++).toString(36).padStart(5, '0')}] The ${s} ${prop} is ${round * 5 + 2} units, as decided in the channel. [from: #ops, ${day}]`);
      }
    }
  }
  fs.writeFileSync(p.memory, lines.join('\n') + '\n');
  return p;
}

describe('the memory slice consolidation shows', () => {
  let tmp: ReturnType<typeof makeTmpDir>;
  beforeEach(() => {
    tmp = makeTmpDir();
  });
  afterEach(() => tmp.cleanup());

  it('holds every statement of the subject a message changes in a batch of 45 messages, each touching memory', async () => {
    const p = writeRestatedMemory(tmp.dir);
    // 44 messages that each mention a service and a property (so each has lines to claim), then the
    // one that changes the juniper log retention: 45 messages for 40 places.
    const batch = Array.from({ length: 44 }, (_, i) => `bo: is the ${SERVICES[i % 9]} ${PROPS[i % PROPS.length]} still fine after the ${i}th check?`);
    batch.push("al: Let's set the juniper log retention to 40 units from now on.");
    const slice = await memorySlice({
      memory: fs.readFileSync(p.memory, 'utf8'),
      queries: batch,
      paths: p,
      root: tmp.dir,
      now: new Date('2026-11-20T11:00:00Z'),
    });
    // Bounded by the batch (3 lines a message, at most 120), not by memory.
    expect(slice.entries.length).toBeLessThanOrEqual(SLICE.recalledMax + SLICE.newest);
    expect(slice.entries.filter((l) => l.text.startsWith('The juniper log retention is'))).toHaveLength(3);
  });

  it('holds every current statement of the subject a message changes, even in a batch about many subjects', async () => {
    // One message now changes the atlas timeout.
    const p = writeRestatedMemory(tmp.dir);
    const batch = [
      ...SERVICES.slice(1).map((s, i) => `[2026-11-20 10:0${i} UTC] bo: the ${s} dashboards look fine, ${PROPS[i % PROPS.length]} unchanged`),
      "[2026-11-20 10:30 UTC] al: Let's set the atlas request timeout to 40 units from now on.",
    ];
    const recall = buildRecallService({ semantic: { mode: 'off', cacheDir: '' }, logger: silentLogger() });
    const slice = await memorySlice({
      memory: fs.readFileSync(p.memory, 'utf8'),
      queries: batch,
      recall,
      paths: p,
      root: tmp.dir,
      now: new Date('2026-11-20T11:00:00Z'),
    });
    await recall.close();
    expect(slice.total).toBe(150);
    expect(slice.entries.length).toBeLessThanOrEqual(SLICE.recalled + SLICE.newest);
    // Every statement of the atlas timeout is shown, so the model can supersede each of them.
    const atlas = slice.entries.filter((l) => l.text.startsWith('The atlas request timeout is'));
    expect(atlas).toHaveLength(3);
  });
});
