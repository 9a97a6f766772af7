import net from 'node:net';
import { discordFindings } from '../../src/bot/discord/doctor';

describe('doctor against a Discord REST URL that never answers', () => {
  let server: net.Server;
  const sockets = new Set<net.Socket>();
  let url: string;
  beforeEach(async () => {
    // Accepts connections and never answers, like a dead proxy.
    server = net.createServer((s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/api`;
  });
  afterEach(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('gives up after its own short timeout and says which URL did not answer', async () => {
    const t0 = Date.now();
    const found = await discordFindings({
      token: 'MTk4NjIyNDgzNDcxOTI1MjQ4.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs',
      apiUrl: url,
      discord: { channels: [], alwaysOnChannels: [] } as never,
      restTimeoutMs: 500,
    });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(found).toHaveLength(1);
    expect(found[0].ok).toBe(false);
    expect(found[0].detail).toContain(url);
    expect(found[0].detail).toMatch(/did not answer within 0\.5 s/);
    expect(found[0].detail).not.toMatch(/aborted/i);
  }, 10_000);
});
