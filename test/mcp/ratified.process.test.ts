import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ContextData } from '../../src/condense/knowledge/contextData';
import { confirmDecision, DecisionChange, reopenDecision } from '../../src/condense/knowledge/ratify';
import { CHAIN, writeDecisionChain } from '../helpers/decisionChain';
import { makeTmpDir } from '../helpers/tmp';

/**
 * What members said of a decision, as a coding agent reads it (issue 43 §1): the compiled bin's
 * `minutes mcp` over stdio, driven by the SDK's own client (which checks every answer against the
 * tool's output schema). Postgres was confirmed by a member, the deploy rule reopened by another,
 * MySQL and SQLite replaced: list_decisions gives each one's status, who ratified or reopened it,
 * and as it stood on a day before the clicks.
 */
const BIN = path.join(__dirname, '..', '..', 'bin', 'minutes.js');
const ORDERS = 'local/orders';

describe('minutes mcp: list_decisions says which decisions were ratified, and by whom', () => {
  const tmp = makeTmpDir('minutes-mcp-ratified-');
  const root = path.join(tmp.dir, 'root');
  const dir = path.join(root, 'local', 'orders');
  let client: Client;

  beforeAll(async () => {
    fs.mkdirSync(dir, { recursive: true });
    writeDecisionChain(dir);
    // The clicks, as the buttons carry them out (ratifyFiles.ts applies the same operations under the lock).
    const file = path.join(dir, '.minutes', 'context.json');
    let data = ContextData.parse(JSON.parse(fs.readFileSync(file, 'utf8')));
    const done = (r: DecisionChange) => {
      if (!r.ok) throw new Error(r.why);
      data = r.data;
    };
    done(confirmDecision(data, CHAIN.postgres, { id: '111111111111111111', name: 'Ana Lopez' }, new Date('2025-03-07T10:00:00Z')));
    done(reopenDecision(data, CHAIN.deploys, { id: '222222222222222222', name: 'Ben' }, new Date('2025-03-08T09:00:00Z')));
    fs.writeFileSync(file, JSON.stringify(data, null, 2));

    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', '--data-dir', root, '--semantic', 'off'],
      cwd: tmp.dir,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.dir },
      stderr: 'pipe',
    });
    client = new Client({ name: 'minutes-test', version: '1.0.0' });
    await client.connect(transport);
  });

  afterAll(async () => {
    await client?.close();
    tmp.cleanup();
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async function decisions(args: Record<string, unknown>): Promise<any> {
    const r = (await client.callTool({ name: 'list_decisions', arguments: { channel: ORDERS, ...args } })) as CallToolResult;
    expect(r.isError).toBeFalsy();
    return r.structuredContent;
  }

  it('gives status, ratified_by (display name) and ratified_by_id; proposed and disputed decisions are in force', async () => {
    const now = await decisions({ include_superseded: true });
    expect(now.in_force).toEqual([
      expect.objectContaining({
        id: CHAIN.postgres,
        status: 'ratified',
        ratified_by: 'Ana Lopez',
        ratified_by_id: '111111111111111111',
        ratified_on: '2025-03-07',
        confirmations: [{ id: '111111111111111111', name: 'Ana Lopez', at: '2025-03-07T10:00:00.000Z' }],
      }),
      expect.objectContaining({ id: CHAIN.deploys, status: 'disputed', disputed_by: 'Ben', disputed_by_id: '222222222222222222', disputed_on: '2025-03-08' }),
    ]);
    expect(now.in_force[1].ratified_by).toBeUndefined();
    expect(now.superseded.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
      [CHAIN.sqlite, 'superseded'],
      [CHAIN.mysql, 'superseded'],
    ]);
  });

  it('as_of a day before the clicks: both proposed, nobody named', async () => {
    const then = await decisions({ as_of: '2025-03-06' });
    expect(then.in_force.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
      [CHAIN.postgres, 'proposed'],
      [CHAIN.deploys, 'proposed'],
    ]);
    expect(JSON.stringify(then)).not.toMatch(/Ana|Ben|ratified_by|disputed_by/);
    const day = await decisions({ as_of: '2025-03-07' });
    expect(day.in_force.map((d: { status: string }) => d.status)).toEqual(['ratified', 'proposed']);
  });

  it("declares the fields in list_decisions' output schema", async () => {
    const { tools } = await client.listTools();
    const schema = JSON.stringify(tools.find((t) => t.name === 'list_decisions')?.outputSchema);
    for (const field of ['ratified_by', 'ratified_by_id', 'disputed_by', 'confirmations']) expect(schema).toContain(`"${field}"`);
  });
});
