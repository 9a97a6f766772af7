import type http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Starting and stopping the read-only HTTP surfaces (the dashboard, `minutes mcp --http`): one way
 * to listen and say where, and one way to stop that does not wait on a browser's keep-alive socket.
 */

/** Listens on `host:port` (0: any free port); resolves with the origin it is reachable at (`http://[::1]:8787`). */
export function listenOn(server: http.Server, port: number, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const a = server.address() as AddressInfo;
      const h = a.family === 'IPv6' ? `[${a.address}]` : a.address;
      resolve(`http://${h}:${a.port}`);
    });
  });
}

/** Stops listening and drops open connections (an idle keep-alive would hold close() open). */
export function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
