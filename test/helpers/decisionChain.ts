import fs from 'node:fs';
import path from 'node:path';

/**
 * A channel folder whose decisions replace one another, as the Secretary leaves it: the orders
 * database went MySQL (2025-01-10) → SQLite (2025-02-01) → Postgres 16 (2025-03-05), each replacing
 * the one before on its own day, beside a decision on deploys that still stands and a discussion
 * without a conclusion. Open action items and an open question for the brief; no CONTEXT.md (the
 * agent side reads context.json). Used by `minutes decisions` and `minutes mcp`'s tests.
 */
export const CHAIN = {
  mysql: 'd-aaaa000001',
  sqlite: 'd-bbbb000002',
  postgres: 'd-cccc000003',
  deploys: 'd-dddd000004',
};

function decision(id: string, topic: string, text: string, date: string, extra: Record<string, string> = {}) {
  return { id, kind: 'decision', topic, text, date, file: `${date}-${id}.md`, ledgerKey: `${id.slice(2)}${'0'.repeat(54)}`, ...extra };
}

export function writeDecisionChain(dir: string): void {
  const data = {
    version: 1,
    currentState: { text: 'Orders run on Postgres 16; the migration is under way', date: '2025-03-05' },
    decisions: [
      decision(CHAIN.mysql, 'Orders database', 'the orders service stores its data in MySQL 8', '2025-01-10', {
        supersededBy: CHAIN.sqlite,
        supersededDate: '2025-02-01',
      }),
      decision(CHAIN.deploys, 'Deploy days', 'deploys happen on Tuesdays and Thursdays only, never on Fridays', '2025-01-20'),
      decision(CHAIN.sqlite, 'Orders database', 'the orders service stores its data in SQLite', '2025-02-01', {
        supersededBy: CHAIN.postgres,
        supersededDate: '2025-03-05',
      }),
      decision(CHAIN.postgres, 'Orders database', 'the orders service stores its data in Postgres 16, with nightly backups', '2025-03-05'),
      { ...decision('d-eeee000005', 'Lunch', 'none', '2025-03-06'), kind: 'none' },
    ],
    constraints: [
      { text: 'reports read only MySQL replicas', date: '2025-01-10', decisionId: CHAIN.mysql },
      { text: 'order writes stay under 50 ms at p99', date: '2025-03-05', decisionId: CHAIN.postgres },
    ],
    actions: [
      {
        id: 'a-000001',
        text: 'write the Postgres migration plan',
        owner: 'bo',
        due: '2025-03-20',
        decisionId: CHAIN.postgres,
        opened: '2025-03-05',
        status: 'open',
      },
      { id: 'a-000002', text: 'copy the SQLite file nightly', decisionId: CHAIN.sqlite, opened: '2025-02-01', status: 'dropped', closed: '2025-03-05' },
    ],
    questions: [
      { id: 'q-000001', text: 'which region hosts the Postgres primary?', askedBy: 'ana', decisionId: CHAIN.postgres, opened: '2025-03-05', status: 'open' },
    ],
  };
  fs.mkdirSync(path.join(dir, '.minutes'), { recursive: true });
  fs.writeFileSync(path.join(dir, '.minutes', 'context.json'), JSON.stringify(data, null, 2));
}
