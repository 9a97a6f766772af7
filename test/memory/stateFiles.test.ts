import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { noteNames } from '../../src/bot/intake/names';
import { namesFile } from '../../src/memory/layout';
import { loadConversation } from '../../src/chat/conversation';
import { auditChannel, formatAudit } from '../../src/condense/audit/audit';
import { ensureFirstRun } from '../../src/condense/saga/firstRun';
import { mutateLedger, readLedger } from '../../src/condense/saga/ledgerFile';
import { createLogger, silentLogger } from '../../src/log/logger';
import type { ChannelRef } from '../../src/memory/paths';
import { ChannelStore } from '../../src/memory/store';
import { MalformedStateError } from '../../src/memory/storeErrors';
import { makeTmpDir } from '../helpers/tmp';

/**
 * State files are read through their zod schemas: JSON of the wrong shape is treated like text
 * that is not JSON at all (refused when the file is rewritten from what is read, set aside
 * otherwise), and what the schema does not know is kept through a rewrite.
 */
const GUILD = '111111111111111111';
const ref: ChannelRef = { kind: 'discord', guildId: GUILD, channelId: '222222222222222222' };
const NOW = new Date('2026-11-21T12:00:00Z');
let tmp: ReturnType<typeof makeTmpDir>;
let lines: string[];
let store: ChannelStore;

beforeEach(() => {
  tmp = makeTmpDir('minutes-state-');
  lines = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  store = new ChannelStore({ root: tmp.dir, clock: () => NOW, logger: createLogger({ format: 'json', destination }) });
});
afterEach(() => tmp.cleanup());

const json = (v: unknown) => JSON.stringify(v, null, 2) + '\n';

function entry(key: string, extra: Record<string, unknown> = {}) {
  return {
    key,
    status: 'done',
    trigger: 'explicit',
    conversation: { label: 'general', channelName: 'general' },
    facts: { date: '2026-11-20', channelName: 'general', participants: ['al'], firstMessageId: '1', lastMessageId: '2', messageCount: 2 },
    decisionId: `d-${key}`,
    steps: { posted: 'skipped', history: 'done' },
    attempts: 1,
    createdAt: '2026-11-20T10:00:00.000Z',
    updatedAt: '2026-11-20T10:00:00.000Z',
    ...extra,
  };
}

describe('a state file of the wrong shape', () => {
  it('is refused when strict (the ledger): one line naming the file and the field, and the file is left as it is', async () => {
    const p = await store.ensureChannel(ref);
    const file = p.ledger;
    const text = json({ version: 1, entries: 'every condensation so far' });
    fs.writeFileSync(file, text);
    const err = await readLedger(store, ref).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MalformedStateError);
    const msg = (err as Error).message;
    expect(msg.startsWith(`${path.relative(tmp.dir, file)} does not have the expected shape (entries: `)).toBe(true);
    expect(msg).toMatch(/\(entries: .*expected record.*\); fix or remove it$/);
    expect(msg.split('\n')).toHaveLength(1);
    // Nothing is rewritten from an empty stand-in, and nothing is set aside.
    await expect(mutateLedger(store, ref, (l) => (l.firstRunAt = NOW.toISOString()))).rejects.toThrow(MalformedStateError);
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.existsSync(`${file}.unreadable`)).toBe(false);
  });

  it('names the field deep inside it: an entry without its facts date', async () => {
    const p = await store.ensureChannel(ref);
    const broken = entry('k1');
    delete (broken.facts as Partial<typeof broken.facts>).date;
    fs.writeFileSync(p.ledger, json({ version: 1, entries: { k1: broken } }));
    await expect(readLedger(store, ref)).rejects.toThrow(/ledger\.json does not have the expected shape \(entries\.k1\.facts\.date: .*\); fix or remove it$/);
  });

  it('context.json of the wrong shape is reported by the audit, and CONTEXT.md is not re-rendered from it', async () => {
    const p = await store.ensureChannel(ref);
    const decision = { id: 'd-1', kind: 'maybe', topic: 'db', text: 'Postgres', date: '2026-11-20', ledgerKey: 'k1' };
    fs.writeFileSync(p.contextData, json({ version: 1, decisions: [decision], constraints: [] }));
    const before = fs.readFileSync(p.context, 'utf8');
    const report = await auditChannel({ store, ref, fix: true, now: NOW });
    expect(formatAudit(report)).toEqual([
      expect.stringMatching(/context\.json does not have the expected shape \(decisions\[0\]\.kind: .*\); fix or remove it/),
    ]);
    expect(fs.readFileSync(p.context, 'utf8')).toBe(before);
  });

  it('is set aside when not strict (the conversation): kept as .unreadable, a warning, and the caller starts afresh', async () => {
    const p = await store.ensureChannel(ref);
    const file = path.join(p.stateDir, 'conversation.json');
    const text = json({ version: 1, turns: 'the only copy of this turn', compactedTurns: 0 });
    fs.writeFileSync(file, text);
    expect(await loadConversation(store, ref)).toEqual({ version: 1, turns: [], compactedTurns: 0 });
    expect(fs.readFileSync(`${file}.unreadable`, 'utf8')).toBe(text);
    const warning = lines.map((l) => JSON.parse(l)).find((l) => l.keptAs);
    expect(warning).toMatchObject({ file: path.relative(tmp.dir, file), keptAs: `${path.relative(tmp.dir, file)}.unreadable` });
    expect(warning.problem).toMatch(/turns: /);
    expect(warning.msg).toMatch(/does not have the expected shape; starting it afresh \(its old text is kept beside it\)/);
  });

  it("a server's names file of the wrong shape is started afresh by the bot; its old text stays beside it", async () => {
    const file = namesFile(tmp.dir, GUILD);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = json({ version: 1, guild: 'Acme', channels: 'general' });
    fs.writeFileSync(file, text);
    await noteNames(store, { guildId: GUILD, guild: 'Acme', channels: [{ id: '2', name: 'general' }] }, silentLogger());
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, guild: 'Acme', channels: { 2: 'general' } });
    expect(fs.readFileSync(`${file}.unreadable`, 'utf8')).toBe(text);
  });
});

describe('what a schema does not know', () => {
  it('survives a read-modify-write of the ledger, in its place: only the changed field differs', async () => {
    const p = await store.ensureChannel(ref);
    const file = p.ledger;
    // Keys in an order of their own, and keys from a newer version at every level.
    const ledger = {
      entries: { k1: { fromNewerVersion: { reviewers: ['bea'] }, ...entry('k1'), steps: { history: 'done', posted: 'skipped', archived: 'done' } } },
      version: 1,
      channelTopic: 'kept',
    };
    fs.writeFileSync(file, json(ledger));
    await ensureFirstRun(store, ref, NOW);
    expect(fs.readFileSync(file, 'utf8')).toBe(json({ ...ledger, firstRunAt: NOW.toISOString() }));
  });

  it("survives the bot's rewrite of a server's names file", async () => {
    const file = namesFile(tmp.dir, GUILD);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, json({ version: 1, guild: 'Acme', channels: { 2: 'general' }, icon: 'acme.png' }));
    await noteNames(store, { guildId: GUILD, channels: [{ id: '3', name: 'backend' }] }, silentLogger());
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, guild: 'Acme', channels: { 2: 'general', 3: 'backend' }, icon: 'acme.png' });
    expect(fs.existsSync(`${file}.unreadable`)).toBe(false);
  });
});
