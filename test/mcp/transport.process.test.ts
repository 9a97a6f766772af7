import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { generateDataRoot } from '../helpers/dashboardData';
import { makeTmpDir } from '../helpers/tmp';

/**
 * `minutes mcp` fed what a broken or hostile client sends, line by line over its real stdin (issue
 * 40): malformed JSON, a JSON value that is no JSON-RPC message, a request whose params do not fit
 * its method, a 20 MB line. Each gets one JSON-RPC error answer of one line, and the server keeps
 * serving: the next request is answered and the process is still running.
 */
const BIN = path.join(__dirname, '..', '..', 'bin', 'minutes.js');

interface Reply {
  id?: number | string | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

describe('minutes mcp over stdio: what it answers to a broken or hostile client', () => {
  const tmp = makeTmpDir('minutes-mcp-wire-');
  const root = path.join(tmp.dir, 'root');
  generateDataRoot(root);
  let child: ChildProcessWithoutNullStreams;
  let stderr = '';
  let exit: number | null | undefined;
  const replies: Reply[] = [];
  let waiting: (() => void) | undefined;

  const send = (line: string): void => void child.stdin.write(`${line}\n`);
  const request = (id: number, method: string, params?: unknown): void =>
    send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
  async function next(): Promise<Reply> {
    const deadline = Date.now() + 15_000;
    while (!replies.length) {
      if (Date.now() > deadline) throw new Error(`no reply within 15 s; stderr: ${stderr}`);
      await new Promise<void>((r) => {
        waiting = r;
        setTimeout(r, 200);
      });
    }
    return replies.shift()!;
  }

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'mcp', '--data-dir', root, '--semantic', 'off'], {
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir },
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        replies.push(JSON.parse(out.slice(0, nl)) as Reply);
        out = out.slice(nl + 1);
      }
      waiting?.();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('exit', (code) => (exit = code));
    request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'wire-test', version: '1.0.0' } });
    expect((await next()).result).toMatchObject({ serverInfo: { name: 'minutes' } });
    send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  });

  afterAll(async () => {
    if (exit === undefined) {
      child.stdin.end();
      await new Promise((r) => child.once('exit', r));
    }
    tmp.cleanup();
  });

  /** Still serving: a real request after the bad one is answered, and the process runs. */
  async function stillServing(id: number): Promise<void> {
    request(id, 'tools/list');
    const r = await next();
    expect(r.id).toBe(id);
    expect((r.result as { tools: unknown[] }).tools.length).toBeGreaterThan(0);
    expect(exit).toBeUndefined();
  }

  function oneLine(r: Reply, code: number, id: number | string | null, message: RegExp): void {
    expect(r).toEqual({ jsonrpc: '2.0', id, error: { code, message: expect.stringMatching(message) } });
    expect(r.error!.message).not.toContain('\n');
    expect(r.error!.message.length).toBeLessThan(300);
  }

  it('malformed JSON: -32700 (parse error), and it keeps serving', async () => {
    send('{"jsonrpc": "2.0", "id": 7, "method": "tools/list"');
    oneLine(await next(), -32700, null, /^parse error: the line is not valid JSON/);
    send('not json at all');
    oneLine(await next(), -32700, null, /^parse error/);
    await stillServing(10);
  });

  it('JSON that is not a JSON-RPC message: -32600 (invalid request), with its id when it has one', async () => {
    send('[1, 2, 3]');
    oneLine(await next(), -32600, null, /^invalid request: not a JSON-RPC 2\.0 message/);
    send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 42 }));
    oneLine(await next(), -32600, 8, /^invalid request/);
    await stillServing(11);
  });

  it('"arguments": null and other params that do not fit the method: -32602 (invalid params) in one line', async () => {
    request(12, 'tools/call', { name: 'list_channels', arguments: null });
    oneLine(await next(), -32602, 12, /^invalid params for tools\/call: params\.arguments: .*record.*null/);
    request(13, 'tools/call', { arguments: {} });
    oneLine(await next(), -32602, 13, /^invalid params for tools\/call: params\.name: /);
    request(14, 'resources/read', null);
    oneLine(await next(), -32602, 14, /^invalid params for resources\/read/);
    await stillServing(15);
    // A method it does not know is still the server's own answer.
    request(16, 'no/such/method');
    expect((await next()).error).toMatchObject({ code: -32601 });
  });

  it('a 20 MB request line is refused with an error naming the limit, and it keeps serving', async () => {
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 17,
      method: 'tools/call',
      params: { name: 'search', arguments: { query: 'x'.repeat(20 * 1024 * 1024) } },
    });
    await new Promise<void>((resolve) => child.stdin.write(`${huge}\n`, () => resolve()));
    oneLine(await next(), -32600, 17, /^request refused: its line is over 1 MB \(1048576 bytes\)/);
    // Only one answer for it, however many chunks it came in.
    await stillServing(18);
    expect(replies).toEqual([]);
    // And a line without an id it can read: answered with a null id.
    send(`[${'1,'.repeat(600_000)}1]`);
    oneLine(await next(), -32600, null, /^request refused: its line is over 1 MB/);
    await stillServing(19);
    expect(stderr).toMatch(/minutes mcp: refused a request line over 1 MB/);
  });
});
