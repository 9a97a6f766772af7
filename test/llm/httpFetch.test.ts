import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHttpFetch } from '../../src/llm/httpFetch';

/**
 * The model clients' fetch (undici's request under fetch's surface) against a real local server:
 * what the SDKs and errors.ts rely on from fetch still holds.
 */
describe('the model clients’ fetch', () => {
  let server: http.Server;
  let base: string;
  const client = createHttpFetch();
  const seen: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string }[] = [];

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body });
        if (req.url === '/json') {
          res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'r-1', 'set-cookie': ['a=1', 'b=2'] });
          res.end(JSON.stringify({ echo: body }));
        } else if (req.url === '/moved') {
          res.writeHead(307, { location: '/json' }).end();
        } else if (req.url === '/empty') {
          res.writeHead(204).end();
        } else if (req.url === '/events') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: first\n\n');
          // The second event waits for the client to have read the first: a body that is buffered
          // whole before it is returned would never see it.
          server.once('go-on', () => res.end('data: second\n\n'));
        } else if (req.url === '/cut') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
          res.write('{"partial": ');
          setTimeout(() => res.socket?.destroy(), 20);
        } else if (req.url === '/slow') {
          setTimeout(() => res.writeHead(200).end('late'), 5_000).unref();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await client.close();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, headers and body it is given and returns status, headers and body', async () => {
    const headers = new Headers({ 'content-type': 'application/json', 'X-Api-Key': 'k-1' });
    const res = await client.fetch(`${base}/json`, { method: 'post', headers, body: '{"q":1}' });
    expect(res.status).toBe(200);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('r-1');
    expect(res.headers.get('set-cookie')).toBe('a=1, b=2');
    expect(await res.json()).toEqual({ echo: '{"q":1}' });
    const got = seen[seen.length - 1];
    expect(got.method).toBe('POST');
    expect(got.headers['x-api-key']).toBe('k-1');
  });

  it('follows a redirect, keeping the body of a 307', async () => {
    const res = await client.fetch(`${base}/moved`, { method: 'POST', body: 'again' });
    expect(await res.json()).toEqual({ echo: 'again' });
  });

  it('answers a 204 with no body', async () => {
    const res = await client.fetch(`${base}/empty`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('streams a body as it arrives (server-sent events)', async () => {
    const res = await client.fetch(`${base}/events`);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: first\n\n');
    server.emit('go-on');
    let rest = '';
    for (let r = await reader.read(); !r.done; r = await reader.read()) rest += decoder.decode(r.value);
    expect(rest).toBe('data: second\n\n');
  });

  it('a body cut short errors as fetch does: TypeError("terminated"), the socket error as its cause', async () => {
    const res = await client.fetch(`${base}/cut`);
    const err = (await res.text().then(
      () => undefined,
      (e: unknown) => e,
    )) as { name?: string; message?: string; cause?: { code?: string } };
    expect(err?.name).toBe('TypeError');
    expect(err?.message).toBe('terminated');
    expect(err?.cause?.code).toMatch(/^UND_ERR_SOCKET$|^ECONNRESET$/);
  });

  it('nothing listening: TypeError("fetch failed") with ECONNREFUSED as its cause', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = (await client.fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e)) as { name?: string; message?: string; cause?: { code?: string } };
    expect(err?.name).toBe('TypeError');
    expect(err?.message).toBe('fetch failed');
    expect(err?.cause?.code).toBe('ECONNREFUSED');
  });

  it("an aborted signal rejects with the signal's reason, before and during the request", async () => {
    const reason = new Error('the caller gave up');
    const before = new AbortController();
    before.abort(reason);
    await expect(client.fetch(`${base}/json`, { signal: before.signal })).rejects.toBe(reason);
    const during = new AbortController();
    const pending = client.fetch(`${base}/slow`, { signal: during.signal });
    setTimeout(() => during.abort(reason), 50);
    await expect(pending).rejects.toBe(reason);
  });
});
