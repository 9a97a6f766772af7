import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { runCli } from '../helpers/cli';
import { generateDataRoot } from '../helpers/dashboardData';
import { CHAIN, writeDecisionChain } from '../helpers/decisionChain';
import { makeTmpDir } from '../helpers/tmp';

/**
 * `minutes mcp --http HOST:PORT` (issue 43 §4): the same server over Streamable HTTP at /mcp, the
 * compiled bin driven by the SDK's own StreamableHTTPClientTransport. The dashboard's token rules:
 * with MINUTES_MCP_TOKEN every request needs `Authorization: Bearer <token>` (401 otherwise); an
 * address other machines reach refuses to start without one; without a token only loopback names
 * are answered; a web page of another site is refused either way.
 */
const BIN = path.join(__dirname, '..', '..', 'bin', 'minutes.js');
const TOKEN = 'a'.repeat(16) + '0123456789abcdef0123';

interface Running {
  child: ChildProcess;
  url: string;
  stderr(): string;
}

describe('minutes mcp --http (Streamable HTTP, a child process driven by the SDK client)', () => {
  const tmp = makeTmpDir('minutes-mcp-http-');
  const root = path.join(tmp.dir, 'root');
  generateDataRoot(root);
  writeDecisionChain(path.join(root, 'local', 'orders'));
  const running: Running[] = [];
  const clients: Client[] = [];

  async function start(env: Record<string, string>, address = '127.0.0.1:0'): Promise<Running> {
    const child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', root, '--semantic', 'off', '--http', address], {
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString('utf8')));
    const deadline = Date.now() + 15_000;
    let m: RegExpExecArray | null = null;
    while (!(m = /over HTTP at (http:\/\/\S+)/.exec(err))) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`no start line; stderr: ${err}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const r = { child, url: m[1]!.replace(/,$/, ''), stderr: () => err };
    running.push(r);
    return r;
  }

  async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
    const client = new Client({ name: 'minutes-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
    clients.push(client);
    return client;
  }

  /** A raw POST, to see exactly what a client without the SDK gets. */
  function post(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    return new Promise((resolve, reject) => {
      const req = http.request(
        url,
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
        (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString('utf8')));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    for (const r of running) r.child.kill('SIGTERM');
    tmp.cleanup();
  });

  it('with a token: the SDK client lists and calls tools, reads the brief, and check_plan answers structured content', async () => {
    const s = await start({ MINUTES_MCP_TOKEN: TOKEN });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    expect(s.stderr()).toMatch(
      /minutes mcp: serving 3 channel\(s\) of .* over HTTP at http:\/\/127\.0\.0\.1:\d+\/mcp \(token required\), read-only \(recall meaning: off\)\n/,
    );
    const client = await connect(s.url, { authorization: `Bearer ${TOKEN}` });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('check_plan');
    const at = (await client.callTool({ name: 'list_decisions', arguments: { channel: 'local/orders', as_of: '2025-02-15' } })) as CallToolResult;
    expect((at.structuredContent as { in_force: Array<{ id: string }> }).in_force.map((d) => d.id)).toEqual([CHAIN.sqlite, CHAIN.deploys]);
    const plan = (await client.callTool({
      name: 'check_plan',
      arguments: { channel: 'local/orders', text: 'Move the orders service back to MySQL 8 and drop Postgres.' },
    })) as CallToolResult;
    expect(plan.structuredContent).toMatchObject({ conflicts: [expect.objectContaining({ id: CHAIN.postgres, verified: false })] });
    const brief = await client.getPrompt({ name: 'brief', arguments: { channel: 'local/orders' } });
    expect(JSON.stringify(brief.messages)).toContain(CHAIN.postgres);
  });

  it('with a token: 401 without it, with a wrong one, or with it anywhere but the Authorization header', async () => {
    const s = running[0] ?? (await start({ MINUTES_MCP_TOKEN: TOKEN }));
    const tries: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${TOKEN.slice(0, -1)}x` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: TOKEN },
      { 'x-minutes-token': TOKEN },
    ];
    for (const headers of tries) {
      const r = await post(s.url, headers);
      expect({ headers, status: r.status }).toEqual({ headers, status: 401 });
      expect(r.headers['www-authenticate']).toBe('Bearer');
      expect(r.body).not.toContain('list_decisions');
    }
    await expect(connect(s.url)).rejects.toThrow(/401|token is required/);
    const ok = await post(s.url, { authorization: `Bearer ${TOKEN}` });
    expect(ok.status).toBe(200);
  });

  it('without a token on loopback: served to loopback names only, never to a page of another site', async () => {
    const s = await start({});
    expect(s.stderr()).not.toContain('token required');
    const client = await connect(s.url);
    expect((await client.listTools()).tools.length).toBe(7);
    // A page whose name was rebound to 127.0.0.1 (DNS rebinding) sends its own name as Host.
    expect((await post(s.url, { host: 'evil.example:80' })).status).toBe(421);
    expect((await post(s.url, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(s.url, { origin: 'http://localhost:3000' })).status).toBe(200);
    expect((await post(s.url.replace(/\/mcp$/, '/other'), {})).status).toBe(404);
  });

  it.each([
    [
      'an address other machines reach, without a token',
      {},
      '0.0.0.0:0',
      /^minutes mcp: --http 0\.0\.0\.0 is reachable from other machines: set MINUTES_MCP_TOKEN/,
    ],
    ['a token too short to resist guessing', { MINUTES_MCP_TOKEN: 'secret' }, '127.0.0.1:0', /^minutes mcp: MINUTES_MCP_TOKEN is 6 characters, too short/],
    ['an address that is not HOST:PORT', {}, '8788', /^minutes mcp: --http takes HOST:PORT \(e\.g\. 127\.0\.0\.1:8788\), not "8788"/],
  ])('refuses to start with %s, in one line, exit 2', async (_what, env, address, want) => {
    const r = await runCli(['mcp', '--data-dir', root, '--semantic', 'off', '--http', address], { env, cwd: tmp.dir });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(want);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
