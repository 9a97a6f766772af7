import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';

/**
 * `minutes mcp` as a coding agent meets it: the compiled `bin/minutes.js mcp` started as a child
 * process and driven over stdio by the SDK's own client, on a generated data root (the dashboard's:
 * a named channel with a supersession chain and a private thread, a console channel; plus the
 * example channel and decisions in context.json). A private thread is served only with
 * `--include-private`: most cases here pass it. Every answer is checked for what it says, bad
 * arguments must come back as tool errors from a server that keeps running, and the data root must
 * be byte for byte (and mtime for mtime) what it was.
 */
const BIN = path.join(__dirname, '..', '..', 'bin', 'minutes.js');
const EXAMPLE = path.join(__dirname, '..', '..', 'examples', 'local', 'orders-team');

/** Every entry's path, type, size, mode and mtime, each file's bytes and each link's target: what "unchanged" means. */
function hashTree(root: string): string {
  const h = crypto.createHash('sha256');
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      const st = fs.lstatSync(p);
      const type = e.isSymbolicLink() ? 'l' : e.isDirectory() ? 'd' : 'f';
      h.update(`${path.relative(root, p)}|${type}|${st.size}|${st.mode}|${st.mtimeMs}\n`);
      if (type === 'd') walk(p);
      else h.update(type === 'l' ? fs.readlinkSync(p) : fs.readFileSync(p));
    }
  };
  walk(root);
  return h.digest('hex');
}

interface Session {
  client: Client;
  transport: StdioClientTransport;
  stderr(): string;
}

interface Answer {
  isError: boolean;
  text: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

function decision(id: string, topic: string, text: string, date: string, file: string, extra: Record<string, string> = {}) {
  return { id, kind: 'decision', topic, text, date, file, ledgerKey: `${id.slice(2)}${'0'.repeat(60)}`, ...extra };
}

function action(id: string, text: string, decisionId: string, file: string, opened: string, status: string, extra: Record<string, string> = {}) {
  return { id, text, decisionId, file, opened, status, ...extra };
}

/** The decisions behind the generated channel's condensations, and the private thread's own. */
function writeContextData(root: string, o: ReturnType<typeof generateDataRoot>): void {
  const ch = path.join(root, o.guild, o.channel);
  const backend = {
    version: 1,
    currentState: { text: 'Orders run on Postgres 16', date: '2025-03-05' },
    decisions: [
      decision('d-aaa1', 'Database choice', 'use MySQL for the orders service', '2025-01-10', '2025-01-10-database.md', {
        supersededBy: 'd-bbb2',
        supersededDate: '2025-02-01',
      }),
      decision('d-bbb2', 'Database revisited', 'use SQLite for the orders service', '2025-02-01', '2025-02-01-database-again.md', {
        supersededBy: 'd-ccc3',
        supersededDate: '2025-03-05',
      }),
      decision('d-ccc3', 'Postgres for orders', 'use Postgres 16 for the orders service, with nightly backups', '2025-03-05', '2025-03-05-postgres.md'),
      { ...decision('d-none', 'Lunch', 'none', '2025-03-06', '2025-03-06-lunch.md'), kind: 'none' },
    ],
    constraints: [
      { text: 'only MySQL read replicas for reports', date: '2025-01-10', decisionId: 'd-aaa1' },
      { text: 'order writes stay under 50 ms at p99', date: '2025-03-05', decisionId: 'd-ccc3' },
    ],
    actions: [
      action('a-333333', 'copy the SQLite file nightly', 'd-bbb2', '2025-02-01-database-again.md', '2025-02-01', 'dropped', {
        closed: '2025-03-05',
        closedBy: 'its decision was replaced by d-ccc3',
      }),
      action('a-222222', 'write the migration plan', 'd-ccc3', '2025-03-05-postgres.md', '2025-03-05', 'done', {
        owner: 'bo',
        closed: '2025-03-08',
        closedBy: 'bo',
      }),
      action('a-111111', 'set up nightly backups', 'd-ccc3', '2025-03-05-postgres.md', '2025-03-06', 'open', { owner: 'ana', due: '2025-03-20' }),
    ],
  };
  fs.mkdirSync(path.join(ch, '.minutes'), { recursive: true });
  fs.writeFileSync(path.join(ch, '.minutes', 'context.json'), JSON.stringify(backend, null, 2));
  const thread = {
    version: 1,
    decisions: [decision('d-priv', 'Zanzibar acquisition', 'acquire Zanzibar Widgets quietly', '2025-03-07', '2025-03-07-acquisition.md')],
    constraints: [],
    actions: [action('a-priv01', 'draft the Zanzibar offer', 'd-priv', '2025-03-07-acquisition.md', '2025-03-07', 'open')],
  };
  const th = path.join(ch, 'threads', o.thread, '.minutes');
  fs.mkdirSync(th, { recursive: true });
  fs.writeFileSync(path.join(th, 'context.json'), JSON.stringify(thread));
  // As the bot renders it: a hash line (an internal marker) under the title.
  fs.writeFileSync(
    path.join(ch, 'CONTEXT.md'),
    '# Channel Context\n<!-- minutes:context-hash 0123456789ab — rendered from .minutes/context.json -->\n\n## Key Decisions\n\n1. [2025-03-05] **Postgres for orders:** use Postgres 16 for the orders service\n',
  );
}

describe('minutes mcp (a child process driven by the SDK client over stdio)', () => {
  const tmp = makeTmpDir('minutes-mcp-');
  const root = path.join(tmp.dir, 'root');
  const o = generateDataRoot(root);
  writeContextData(root, o);
  fs.cpSync(EXAMPLE, path.join(root, 'local', 'orders-team'), { recursive: true });
  // A context.json that does not parse: refused in one line, never set aside (that would be a write).
  fs.mkdirSync(path.join(root, 'local', 'sandbox', '.minutes'), { recursive: true });
  fs.writeFileSync(path.join(root, 'local', 'sandbox', '.minutes', 'context.json'), '{"version": 1,');
  // What the listing must never reach: a folder whose name is not an id, and a link out of the root.
  const outside = path.join(tmp.dir, 'outside');
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'MEMORY.md'), '- [m-out001] the outside password is swordfish [from: eve, 2025-01-01]\n');
  fs.mkdirSync(path.join(root, o.guild, 'not-a-channel'));
  fs.writeFileSync(path.join(root, o.guild, 'not-a-channel', 'MEMORY.md'), '- [m-bad001] swordfish [from: eve, 2025-01-01]\n');
  fs.symlinkSync(outside, path.join(root, o.guild, '400000000000000004'));
  // Two context packages, made as an operator would: one from the channel, one from its private thread.
  const pack = (name: string, dir: string, query: string, extra: string[] = []) =>
    execFileSync(
      process.execPath,
      [BIN, 'pack', 'create', name, '--channel-dir', path.join(root, dir), '--query', query, '--data-dir', root, '--semantic', 'off', ...extra],
      {
        cwd: tmp.dir,
        env: { PATH: process.env.PATH ?? '', HOME: tmp.dir },
        stdio: 'pipe',
      },
    );
  pack('orders-db', `${o.guild}/${o.channel}`, 'Postgres orders');
  pack('zanzibar', `${o.guild}/${o.channel}/threads/${o.thread}`, 'Zanzibar', ['--include-private']);
  const before = hashTree(root);
  const sessions: Session[] = [];

  async function connect(extra: string[] = []): Promise<Session> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', root, '--semantic', 'off', ...extra],
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir },
      stderr: 'pipe',
    });
    let err = '';
    transport.stderr?.on('data', (d) => (err += String(d)));
    const client = new Client({ name: 'minutes-test', version: '1.0.0' });
    await client.connect(transport);
    const s = { client, transport, stderr: () => err };
    sessions.push(s);
    return s;
  }

  async function call(s: Session, name: string, args: Record<string, unknown> = {}): Promise<Answer> {
    const r = (await s.client.callTool({ name, arguments: args })) as CallToolResult;
    const first = r.content[0];
    const text = first && first.type === 'text' ? first.text : '';
    return { isError: r.isError === true, text, json: () => JSON.parse(text) };
  }

  let s: Session;
  beforeAll(async () => {
    s = await connect(['--include-private']);
  });
  afterAll(async () => {
    for (const x of sessions) await x.client.close().catch(() => undefined);
    tmp.cleanup();
  });

  it('lists its tools, each with a description and the JSON schema of its arguments', async () => {
    const { tools } = await s.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['list_channels', 'get_context', 'search', 'list_decisions', 'list_action_items', 'get_package', 'check_plan']);
    const props = Object.fromEntries(tools.map((t) => [t.name, Object.keys(t.inputSchema.properties ?? {}).sort()]));
    expect(props).toEqual({
      list_channels: [],
      get_context: ['channel'],
      search: ['channel', 'limit', 'query'],
      list_decisions: ['as_of', 'channel', 'include_superseded'],
      list_action_items: ['channel', 'open_only'],
      get_package: ['name', 'server'],
      check_plan: ['channel', 'text'],
    });
    const search = tools.find((t) => t.name === 'search')!;
    expect(search.inputSchema.required).toEqual(['query']);
    expect((search.inputSchema.properties as Record<string, { type?: string }>).limit!.type).toBe('integer');
    for (const t of tools) {
      expect(t.description!.length).toBeGreaterThan(60);
      expect(t.annotations?.readOnlyHint).toBe(true);
    }
    // stderr is another pipe: its line may arrive after the answers on stdout.
    for (let i = 0; i < 100 && !s.stderr(); i++) await new Promise((r) => setTimeout(r, 50));
    expect(s.stderr()).toMatch(/^minutes mcp: serving 4 channel\(s\) of .* over stdio, read-only \(recall meaning: off\)\n$/);
  });

  it('without --include-private: a private thread is not listed, searched or read, nor its package shown, and stderr says so', async () => {
    const closed = await connect();
    const keys = (await call(closed, 'list_channels')).json().channels.map((c: { key: string }) => c.key);
    expect(keys).toEqual([o.channelKey, 'local/orders-team', 'local/sandbox']);
    for (const [tool, args] of [
      ['get_context', { channel: o.threadKey }],
      ['get_context', { channel: 'secret-plans' }],
      ['list_decisions', { channel: o.threadKey }],
      ['list_action_items', { channel: o.threadKey }],
      ['search', { channel: o.threadKey, query: 'Zanzibar' }],
    ] as const) {
      const a = await call(closed, tool, args);
      expect({ tool, isError: a.isError }).toEqual({ tool, isError: true });
      expect(a.text).toMatch(/^no channel /);
    }
    const all = (await call(closed, 'search', { query: 'Zanzibar acquisition Widgets quietly', limit: 50 })).json();
    expect(all.channels_searched).toEqual([o.channelKey, 'local/orders-team', 'local/sandbox']);
    expect(JSON.stringify(all.hits)).not.toMatch(/Zanzibar|Widgets/);
    expect((await call(closed, 'get_package', { name: 'zanzibar' })).text).toBe('no package "zanzibar" this server shows: the packages are orders-db');
    expect((await closed.client.listResources()).resources.map((x) => x.uri)).not.toContain(`minutes://${o.threadKey}/CONTEXT.md`);
    // Naming the thread in --channels is not the opt-in: the flag is.
    const named = await connect(['--channels', `${o.threadKey},local/orders-team`]);
    expect((await call(named, 'list_channels')).json().channels.map((c: { key: string }) => c.key)).toEqual(['local/orders-team']);
    expect((await call(named, 'search', { query: 'Zanzibar' })).json().hits).toEqual([]);
    for (const x of [closed, named]) {
      for (let i = 0; i < 100 && !/serving/.test(x.stderr()); i++) await new Promise((r) => setTimeout(r, 50));
      expect(x.stderr()).toContain('minutes mcp: 1 private thread(s) left out: add --include-private to serve them\n');
    }
  });

  it('list_channels: servers, channels and private threads by name and key, and nothing the listing must not reach', async () => {
    const a = await call(s, 'list_channels');
    expect(a.isError).toBe(false);
    const channels = a.json().channels as Array<Record<string, string>>;
    expect(channels.map((c) => c.key)).toEqual([o.channelKey, o.threadKey, 'local/orders-team', 'local/sandbox']);
    expect(channels[0]).toEqual({
      key: o.channelKey,
      kind: 'channel',
      label: 'Acme › #backend',
      server_id: o.guild,
      server_name: 'Acme',
      channel_name: 'backend',
    });
    expect(channels[1]).toMatchObject({ kind: 'private thread', thread_id: o.thread, thread_name: 'secret-plans', parent: o.channelKey });
    expect(channels[1]!.label).toBe('Acme › #backend › private thread secret-plans');
    expect(a.text).not.toMatch(/400000000000000004|not-a-channel|swordfish/);
  });

  it('get_context: CONTEXT.md as the bot shows it, without internal markers; a private thread shows none of its parent', async () => {
    const backend = await call(s, 'get_context', { channel: o.channelKey });
    expect(backend.isError).toBe(false);
    expect(backend.text).toBe('# Channel Context\n\n## Key Decisions\n\n1. [2025-03-05] **Postgres for orders:** use Postgres 16 for the orders service\n');
    // By its unique name too, and the example channel exactly as committed, its hash line gone.
    const example = await call(s, 'get_context', { channel: '#orders-team' });
    const lines = fs.readFileSync(path.join(EXAMPLE, 'CONTEXT.md'), 'utf8').split('\n');
    expect(lines[1]).toMatch(/^<!-- minutes:context-hash /);
    expect(example.text).toBe(lines.filter((_, i) => i !== 1).join('\n'));
    expect(example.text).toContain('~~[2026-11-02] Orders database: the orders service stores its data in MySQL 8 on db-1~~ → Replaced by');
    const thread = await call(s, 'get_context', { channel: o.threadKey });
    expect(thread.isError).toBe(false);
    expect(thread.text).toMatch(/is a private thread: it has no CONTEXT\.md of its own .*get_context 100000000000000001\/200000000000000002\.$/);
    expect(thread.text).not.toContain('Postgres');
    const none = await call(s, 'get_context', { channel: 'local/sandbox' });
    expect(none.text).toBe("local/sandbox has no CONTEXT.md yet: it is written after the channel's first condensation.");
  });

  it('list_decisions: those in force with date, condensation and what they replaced; replaced ones on request', async () => {
    const inForce = (await call(s, 'list_decisions', { channel: o.channelKey })).json();
    expect(inForce.current_state).toEqual({ text: 'Orders run on Postgres 16', date: '2025-03-05' });
    expect(inForce.in_force).toEqual([
      {
        id: 'd-ccc3',
        topic: 'Postgres for orders',
        decision: 'use Postgres 16 for the orders service, with nightly backups',
        date: '2025-03-05',
        status: 'proposed',
        condensation: 'condensations/2025-03-05-postgres.md',
        replaces: [{ id: 'd-bbb2', topic: 'Database revisited', decision: 'use SQLite for the orders service', date: '2025-02-01' }],
      },
    ]);
    expect(inForce.superseded).toBeUndefined();
    // The replaced decision's constraint lapsed with it.
    expect(inForce.constraints).toEqual([{ text: 'order writes stay under 50 ms at p99', since: '2025-03-05', decision_id: 'd-ccc3' }]);
    const all = (await call(s, 'list_decisions', { channel: 'backend', include_superseded: true })).json();
    expect(all.superseded.map((d: { id: string; replaced_by: { id: string }; replaced_on: string }) => [d.id, d.replaced_by.id, d.replaced_on])).toEqual([
      ['d-bbb2', 'd-ccc3', '2025-03-05'],
      ['d-aaa1', 'd-bbb2', '2025-02-01'],
    ]);
    // The pinned post of a condensation, from its frontmatter.
    expect(all.superseded[1].post_url).toBe('https://discord.com/channels/1/2/3');
    expect(JSON.stringify(all)).not.toMatch(/Zanzibar|Lunch/);
    const thread = (await call(s, 'list_decisions', { channel: o.threadKey })).json();
    expect(thread.in_force.map((d: { decision: string }) => d.decision)).toEqual(['acquire Zanzibar Widgets quietly']);
    const fresh = (await call(s, 'list_decisions', { channel: 'local/orders-team' })).json();
    expect(fresh.in_force.map((d: { id: string }) => d.id)).toEqual(['d-1162ecb6fa', 'd-63f1d017d3']);
  });

  it('list_action_items: open ones by default, every one with open_only false, each with its decision', async () => {
    const open = (await call(s, 'list_action_items', { channel: o.channelKey })).json();
    expect(open.counts).toEqual({ open: 1, done: 1, dropped: 1 });
    expect(open.action_items).toEqual([
      {
        id: 'a-111111',
        text: 'set up nightly backups',
        owner: 'ana',
        due: '2025-03-20',
        status: 'open',
        opened: '2025-03-06',
        decision: { id: 'd-ccc3', topic: 'Postgres for orders', decision: 'use Postgres 16 for the orders service, with nightly backups', date: '2025-03-05' },
        condensation: 'condensations/2025-03-05-postgres.md',
      },
    ]);
    const all = (await call(s, 'list_action_items', { channel: o.channelKey, open_only: false })).json();
    expect(all.action_items.map((i: { id: string; status: string }) => `${i.id} ${i.status}`)).toEqual(['a-111111 open', 'a-222222 done', 'a-333333 dropped']);
    expect(all.action_items[2].closed_by).toBe('its decision was replaced by d-ccc3');
    expect(JSON.stringify(all)).not.toContain('Zanzibar');
  });

  it("search: recall's search in one channel or all, each hit with its source and provenance; a private thread's lines only under its key", async () => {
    const one = (await call(s, 'search', { channel: o.channelKey, query: 'orders Postgres' })).json();
    expect(one.channels_searched).toEqual([o.channelKey]);
    const mem = one.hits.find((h: { source: string }) => h.source === 'MEMORY.md');
    expect(mem).toMatchObject({
      channel: o.channelKey,
      found_in: o.channelKey,
      kind: 'memory',
      text: '- [m-aaaa01] The orders service uses Postgres 16 [from: ana, 2025-03-05]',
      provenance: { entry_id: 'm-aaaa01', from: 'ana', date: '2025-03-05' },
    });
    const cond = one.hits.find((h: { kind: string }) => h.kind === 'condensation');
    expect(cond.provenance).toEqual({ condensation: 'condensations/2025-03-05-postgres.md', date: '2025-03-05' });
    expect(one.hits.every((h: { score: number }) => h.score > 0)).toBe(true);
    expect(JSON.stringify(one)).not.toContain('Zanzibar');
    expect((await call(s, 'search', { channel: o.channelKey, query: 'Zanzibar acquisition' })).json().hits).toEqual([]);
    // Every channel: the thread's lines come back under the thread's key only.
    const all = (await call(s, 'search', { query: 'Zanzibar acquisition', limit: 50 })).json();
    expect(all.channels_searched).toEqual([o.channelKey, o.threadKey, 'local/orders-team', 'local/sandbox']);
    expect(all.hits.length).toBeGreaterThan(0);
    expect(all.hits.every((h: { channel: string; found_in: string }) => h.channel === o.threadKey && h.found_in === o.threadKey)).toBe(true);
    const kettle = (await call(s, 'search', { query: 'kettle', limit: 1 })).json();
    expect(kettle.hits).toEqual([expect.objectContaining({ channel: 'local/sandbox', text: '- [m-loc001] the sandbox has a kettle [from: me, 2025-01-01]' })]);
    // Nothing outside the listing is searched: the linked folder and the misnamed one hold the word.
    expect((await call(s, 'search', { query: 'swordfish password' })).json().hits).toEqual([]);
  });

  it("get_package: a package's items with their provenance and recipe; an unknown name lists the names there are", async () => {
    const p = (await call(s, 'get_package', { name: 'orders-db' })).json();
    expect(p).toMatchObject({ name: 'orders-db', server: o.guild, source: { channel: `${o.guild}/${o.channel}`, privateThread: false } });
    expect(p.recipes).toEqual([{ recipe: 1, query: 'Postgres orders' }]);
    expect(p.items.length).toBeGreaterThan(0);
    expect(p.items.every((it: { channel: string; recipe: number }) => it.channel === `${o.guild}/${o.channel}` && it.recipe === 1)).toBe(true);
    expect(p.items.map((it: { text: string }) => it.text).join('\n')).toMatch(/Postgres/);
    expect(p.items.map((it: { text: string }) => it.text).join('\n')).not.toMatch(/Zanzibar/);
    const z = (await call(s, 'get_package', { name: 'zanzibar' })).json();
    expect(z.source).toEqual({ channel: `${o.guild}/${o.channel}/threads/${o.thread}`, privateThread: true });
    expect(z.items.map((it: { text: string }) => it.text).join('\n')).toMatch(/Zanzibar/);
    const none = await call(s, 'get_package', { name: 'nope' });
    expect(none.isError).toBe(true);
    expect(none.text).toBe('no package "nope" this server shows: the packages are orders-db, zanzibar');
    expect((await call(s, 'get_package', { name: 'orders-db', server: '999' })).text).toMatch(/^no server "999"/);
    const bad = await call(s, 'get_package', { name: '../../etc/passwd' });
    expect(bad.isError).toBe(true);
    expect(bad.text.split('\n')).toHaveLength(1);
  });

  it("resources: each channel's CONTEXT.md, without markers; none for a private thread, nothing by a path", async () => {
    const { resources } = await s.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([`minutes://${o.channelKey}/CONTEXT.md`, 'minutes://local/orders-team/CONTEXT.md']);
    const read = await s.client.readResource({ uri: `minutes://${o.channelKey}/CONTEXT.md` });
    expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: expect.stringContaining('Postgres 16 for the orders service') });
    expect(JSON.stringify(read)).not.toContain('minutes:context-hash');
    for (const uri of [
      `minutes://${o.threadKey}/CONTEXT.md`,
      `minutes://${o.channelKey}/../../../outside/CONTEXT.md`,
      'minutes://local/%2e%2e/root/CONTEXT.md',
    ]) {
      await expect(s.client.readResource({ uri })).rejects.toThrow(/no CONTEXT\.md at/);
    }
  });

  it('bad arguments get a tool error saying what to do, and the server keeps answering', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ['get_context', { channel: '../outside' }, /no channel "\.\.\/outside": call list_channels/],
      ['get_context', { channel: `${o.channelKey}/../../..` }, /no channel/],
      ['get_context', {}, /Invalid arguments for tool get_context/],
      ['list_decisions', { channel: 42 }, /expected string/],
      [
        'list_decisions',
        { channel: 'local/sandbox' },
        /^the decisions of local\/sandbox cannot be read: its \.minutes\/context\.json is not valid JSON .*; fix or remove it$/,
      ],
      ['search', { query: '   ' }, /query is blank/],
      ['search', { query: 'x', limit: 0 }, /Invalid arguments for tool search/],
      ['search', { query: 'orders', channel: 'nope' }, /no channel "nope"/],
      ['list_action_items', { channel: o.channelKey, open_only: 'yes' }, /expected boolean/],
    ];
    for (const [name, args, want] of cases) {
      const a = await call(s, name, args);
      expect({ name, args, isError: a.isError }).toEqual({ name, args, isError: true });
      expect(a.text).toMatch(want);
      expect(a.text.split('\n')).toHaveLength(1);
    }
    expect((await call(s, 'list_channels')).isError).toBe(false);
  });

  it('--channels: a client sees only those keys; a private thread shown alone does not bring its parent', async () => {
    const r = await connect(['--channels', `${o.threadKey},local/orders-team`, '--include-private']);
    const keys = (await call(r, 'list_channels')).json().channels.map((c: { key: string }) => c.key);
    expect(keys).toEqual([o.threadKey, 'local/orders-team']);
    expect((await call(r, 'get_context', { channel: o.channelKey })).text).toMatch(/^no channel .* among those this server shows/);
    expect((await call(r, 'get_context', { channel: '#backend' })).isError).toBe(true);
    // Its parent is not named to a client that may not see it.
    expect((await call(r, 'get_context', { channel: o.threadKey })).text).toMatch(/is a private thread: .* with this key\)\.$/);
    // Searched alone, the thread's own files only: the parent's Postgres lines are not visible.
    const hits = (await call(r, 'search', { query: 'orders Postgres MySQL', limit: 50 })).json().hits as Array<{ found_in: string; text: string }>;
    expect(hits.length).toBeGreaterThan(0);
    expect(hits.every((h) => h.found_in === 'local/orders-team' || h.found_in === o.threadKey)).toBe(true);
    const zanzibar = (await call(r, 'search', { query: 'Zanzibar' })).json().hits as Array<{ found_in: string; source: string }>;
    expect(zanzibar.map((h) => `${h.found_in} ${h.source}`)).toContain(`${o.threadKey} MEMORY.md`);
    expect((await r.client.listResources()).resources.map((x) => x.uri)).toEqual(['minutes://local/orders-team/CONTEXT.md']);
    // Packages follow the same rule: the thread's own is there, the channel's is not.
    expect((await call(r, 'get_package', { name: 'zanzibar' })).json().name).toBe('zanzibar');
    expect((await call(r, 'get_package', { name: 'orders-db' })).text).toBe('no package "orders-db" this server shows: the packages are zanzibar');
    // Shown the channel alone, its private thread's package is as absent as one that does not exist.
    const parent = await connect(['--channels', o.channelKey, '--include-private']);
    expect((await call(parent, 'get_package', { name: 'zanzibar' })).text).toBe('no package "zanzibar" this server shows: the packages are orders-db');
  });

  it('leaves the data root byte for byte unchanged, and exits when the client closes', async () => {
    for (const x of sessions) {
      const pid = x.transport.pid!;
      const t0 = Date.now();
      await x.client.close();
      // The end of its stdin stops it: the client's SIGTERM would come only after 2 s.
      expect(Date.now() - t0).toBeLessThan(1_500);
      expect(() => process.kill(pid, 0)).toThrow();
    }
    expect(hashTree(root)).toBe(before);
    expect(fs.existsSync(path.join(root, 'local', 'sandbox', '.minutes', 'context.json.unreadable'))).toBe(false);
  });
});
