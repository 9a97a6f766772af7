import crypto from 'node:crypto';
import http from 'node:http';
import { closeServer, listenOn } from '../shared/httpServer';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isLoopback } from '../dashboard/server';
import type { Logger } from '../log/logger';

/**
 * `minutes mcp --http HOST:PORT`: the same server over the SDK's Streamable HTTP transport, at
 * `/mcp`, stateless (each POST gets a fresh server over the shared catalog and recall, answered as
 * plain JSON; no session to keep or leak). The dashboard's token rules: a token, when set, is
 * required on every request as `Authorization: Bearer …` (compared in constant time; 401 without
 * it); the CLI refuses an address other machines reach without one. Without a token only loopback
 * names are answered (421 otherwise: a page that rebinds its own name to 127.0.0.1 must not read
 * memory), and a browser's cross-site request (an Origin that is not loopback) is refused in any case.
 */
export interface McpHttpOptions {
  host: string;
  port: number;
  token?: string;
  /** A server for one request: tools, resources and prompts over the shared catalog. */
  serverFor(): McpServer;
  logger: Logger;
}

export const MCP_PATH = '/mcp';

export function bearerOk(header: string | undefined, token: string): boolean {
  const m = /^Bearer\s+(.+)$/i.exec(header ?? '');
  if (!m) return false;
  // Hashing first makes both sides one length, so the compare takes the same time for any guess.
  const digest = (s: string) => crypto.createHash('sha256').update(s).digest();
  return crypto.timingSafeEqual(digest(m[1]!.trim()), digest(token));
}

function hostName(header: string | undefined): string {
  return (header ?? '')
    .replace(/:\d+$/, '')
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
}

function originAllowed(origin: string | undefined): boolean {
  if (origin === undefined) return true;
  try {
    return isLoopback(hostName(new URL(origin).host));
  } catch {
    return false;
  }
}

function refuse(res: http.ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  // A JSON-RPC error body, as the SDK's transport answers its own refusals.
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

export function createMcpHttp(o: McpHttpOptions): { server: http.Server; listen(): Promise<string>; close(): Promise<void> } {
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://mcp.invalid');
      if (url.pathname !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
      if (!originAllowed(req.headers.origin)) return refuse(res, 403, 'a request from a web page of another site is refused');
      if (o.token) {
        if (!bearerOk(req.headers.authorization, o.token))
          return refuse(res, 401, 'a token is required: send Authorization: Bearer <MINUTES_MCP_TOKEN>', { 'www-authenticate': 'Bearer' });
      } else if (!isLoopback(hostName(req.headers.host))) {
        return refuse(res, 421, 'use http://127.0.0.1 or http://localhost');
      }
      // Stateless: no stream for server-sent notifications, nothing to delete.
      if (req.method !== 'POST') return refuse(res, 405, 'method not allowed: POST JSON-RPC messages', { allow: 'POST' });
      const mcp = o.serverFor();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      res.on('close', () => {
        void transport.close().catch((err) => o.logger.warn({ err }, 'could not close an MCP request'));
        void mcp.close().catch((err) => o.logger.warn({ err }, 'could not close an MCP request'));
      });
      await mcp.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((err: Error) => {
      o.logger.error({ err }, 'mcp: an HTTP request failed');
      if (!res.headersSent) refuse(res, 500, 'internal error');
      else res.end();
    });
  });
  return {
    server,
    listen: async () => `${await listenOn(server, o.port, o.host)}${MCP_PATH}`,
    close: () => closeServer(server),
  };
}
