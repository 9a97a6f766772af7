import { applyMemoryOps } from '../../src/memory/memoryOps';

const now = new Date('2026-11-28T12:00:00Z');
const add = (text: string, msg: string) => ({ op: 'add' as const, text, source: `al, msg ${msg}`, explicit: true });

describe('a "remember that" applied once per message', () => {
  it('the same request from the same message, run again after a crash, finds the entry it made', () => {
    const first = applyMemoryOps('', [add('burst fact 8 is kiwi-8', '1001')], { now, tombstones: [] });
    expect(first.applied).toHaveLength(1);
    const again = applyMemoryOps(first.text, [add('burst fact 8 is kiwi-8', '1001')], { now, tombstones: [] });
    expect(again.text).toBe(first.text);
    expect(again.applied).toEqual([{ op: add('burst fact 8 is kiwi-8', '1001'), id: first.applied[0].id, earlier: true }]);
  });

  it('finds it when a person reworded the entry since, and tells two requests of one message apart', () => {
    const first = applyMemoryOps('', [add('the VPN is required for staging', '7')], { now, tombstones: [] });
    const edited = first.text.replace('the VPN is required for staging', 'the VPN (wireguard) is needed on staging');
    const again = applyMemoryOps(edited, [add('the VPN is required for staging', '7')], { now, tombstones: [] });
    expect(again.text).toBe(edited);
    expect(again.applied[0]).toMatchObject({ earlier: true, id: first.applied[0].id });

    const two = applyMemoryOps('', [add('backups run at 02:00', '8'), add('restores are tested monthly', '8')], { now, tombstones: [] });
    const rerun = applyMemoryOps(two.text, [add('backups run at 02:00', '8'), add('restores are tested monthly', '8')], { now, tombstones: [] });
    expect(rerun.text).toBe(two.text);
    expect(rerun.applied.map((a) => a.id)).toEqual(two.applied.map((a) => a.id));
  });

  it('the same words from another message are judged as before (already in memory), not as this message', () => {
    const first = applyMemoryOps('', [add('burst fact 8 is kiwi-8', '1001')], { now, tombstones: [] });
    const other = applyMemoryOps(first.text, [add('burst fact 8 is kiwi-8', '1002')], { now, tombstones: [] });
    expect(other.applied).toEqual([]);
    expect(other.skipped[0].why).toBe('already in MEMORY.md');
  });
});
