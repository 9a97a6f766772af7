// @ts-check
'use strict';
/**
 * A generated data root for the dashboard's tests and benchmark (plain CommonJS so bench/ can use
 * it without a build): one server with a named channel holding a supersession chain, planted
 * script/javascript: payloads in MEMORY.md and a condensation, a private thread whose decision must
 * never show in the parent, and a console channel. `condensations`/`entries` scale it up.
 */
const fs = require('node:fs');
const path = require('node:path');

const GUILD = '100000000000000001';
const CHANNEL = '200000000000000002';
const THREAD = '300000000000000003';
const XSS = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2"> [click](javascript:window.__pwned=3)';

function cond(dir, file, fm, body) {
  const lines = ['---'];
  for (const [k, v] of Object.entries(fm)) {
    if (v === undefined) continue;
    lines.push(Array.isArray(v) ? `${k}:\n${v.map((x) => `  - '${x}'`).join('\n')}` : `${k}: '${String(v).replace(/'/g, "''")}'`);
    if (Array.isArray(v) && v.length === 0) lines[lines.length - 1] = `${k}: []`;
  }
  lines.push('---', body, '');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, file), lines.join('\n'));
}

/**
 * @param {string} root
 * @param {{ condensations?: number, entries?: number }} [o]
 */
function generateDataRoot(root, o = {}) {
  const ch = path.join(root, GUILD, CHANNEL);
  const cdir = path.join(ch, 'condensations');
  fs.mkdirSync(path.join(root, GUILD, '.minutes'), { recursive: true });
  fs.writeFileSync(
    path.join(root, GUILD, '.minutes', 'names.json'),
    JSON.stringify({ guild: 'Acme', channels: { [CHANNEL]: 'backend', [THREAD]: 'secret-plans' } }),
  );
  const base = {
    guild: 'Acme',
    channel: 'backend',
    channel_ref: `${GUILD}/${CHANNEL}`,
    participants: ['ana', 'bo'],
    first_message_id: '1',
    last_message_id: '2',
    message_count: 12,
    trigger: 'explicit',
  };
  cond(
    cdir,
    '2025-01-10-database.md',
    {
      ...base,
      date: '2025-01-10',
      topic: 'Database choice',
      decision_id: 'd-aaa1',
      supersedes: [],
      superseded_by: '2025-02-01-database-again.md',
      post_url: 'https://discord.com/channels/1/2/3',
    },
    '**Decision:** use MySQL for the orders service.',
  );
  cond(
    cdir,
    '2025-02-01-database-again.md',
    {
      ...base,
      date: '2025-02-01',
      topic: 'Database revisited',
      decision_id: 'd-bbb2',
      supersedes: ['d-aaa1'],
      supersedes_files: ['2025-01-10-database.md'],
      superseded_by: '2025-03-05-postgres.md',
    },
    '**Decision:** use SQLite for the orders service.',
  );
  cond(
    cdir,
    '2025-03-05-postgres.md',
    {
      ...base,
      date: '2025-03-05',
      topic: 'Postgres for orders',
      decision_id: 'd-ccc3',
      supersedes: ['d-bbb2'],
      supersedes_files: ['2025-02-01-database-again.md'],
    },
    '**Decision:** use Postgres 16 for the orders service, with nightly backups.',
  );
  cond(
    cdir,
    '2025-03-09-planted.md',
    { ...base, date: '2025-03-09', topic: 'Planted payload', decision_id: 'd-ddd4', supersedes: [], post_url: 'javascript:window.__pwned=4' },
    `**Decision:** nothing. ${XSS}\n\n<a href="javascript:window.__pwned=5">raw link</a>`,
  );
  const n = o.condensations ?? 0;
  for (let i = 0; i < n; i++) {
    const d = new Date(Date.UTC(2023, 0, 1) + i * 86400000).toISOString().slice(0, 10);
    cond(
      cdir,
      `${d}-topic-${i}.md`,
      { ...base, date: d, topic: `Topic number ${i}`, decision_id: `d-gen${i}`, supersedes: i > 0 && i % 10 === 0 ? [`d-gen${i - 1}`] : [] },
      `**Decision:** generated decision ${i} about the widget ${i % 37} rollout.\n\n**Context:** words ${i}.`,
    );
  }
  const mem = [
    '# Memory',
    '',
    '- [m-aaaa01] The orders service uses Postgres 16 [from: ana, 2025-03-05]',
    '- ~~[m-aaaa02] The orders service uses MySQL~~ → [m-aaaa01] (2025-03-05) [from: bo, 2025-01-10]',
    `- [m-aaaa03] planted ${XSS} [from: eve, 2025-03-09]`,
  ];
  for (let i = 0; i < (o.entries ?? 0); i++)
    mem.push(`- [m-g${String(i).padStart(6, '0')}] generated fact ${i} about widget ${i % 53} and team ${i % 11} [from: bot, 2025-01-01]`);
  fs.writeFileSync(path.join(ch, 'MEMORY.md'), mem.join('\n') + '\n');
  fs.writeFileSync(
    path.join(ch, 'CONTEXT.md'),
    `# Context\n\n## Current state\nOrders on Postgres.\n\n## Key decisions\n- Postgres 16 for orders\n- ~~SQLite for orders~~\n\n${XSS}\n`,
  );
  fs.writeFileSync(path.join(ch, 'HISTORY.md'), '# History\n\n- 2025-03-05 moved orders to Postgres\n');
  // A private thread: durable memory in its own folder.
  const th = path.join(ch, 'threads', THREAD);
  cond(
    path.join(th, 'condensations'),
    '2025-03-07-acquisition.md',
    { ...base, date: '2025-03-07', topic: 'Zanzibar acquisition', decision_id: 'd-priv', supersedes: [], thread: 'secret-plans', thread_id: THREAD },
    '**Decision:** acquire Zanzibar Widgets quietly.',
  );
  fs.writeFileSync(path.join(th, 'MEMORY.md'), '- [m-priv01] Zanzibar acquisition is planned [from: ana, 2025-03-07]\n');
  const loc = path.join(root, 'local', 'sandbox');
  fs.mkdirSync(loc, { recursive: true });
  fs.writeFileSync(path.join(loc, 'MEMORY.md'), '- [m-loc001] the sandbox has a kettle [from: me, 2025-01-01]\n');
  if (o.knowledge) writeKnowledge(ch, o.now ?? Date.now());
  return { guild: GUILD, channel: CHANNEL, thread: THREAD, channelKey: `${GUILD}/${CHANNEL}`, threadKey: `${GUILD}/${CHANNEL}/${THREAD}` };
}

/**
 * The #backend channel's context.json as the Secretary keeps it (decisions with their status,
 * action items, an open question, a playbook) and a log whose replies recorded what recall did, in
 * the days before `now`: what the dashboard's cards, channel page and recall health draw.
 */
function writeKnowledge(ch, now) {
  const day = (n) => new Date(now - n * 86400000).toISOString().slice(0, 10);
  const iso = (n, h = 10) => new Date(now - n * 86400000 + h * 3600000).toISOString();
  const decision = (id, topic, text, date, file, more = {}) => ({ id, kind: 'decision', topic, text, date, file, ledgerKey: `${id}-key`, ...more });
  const data = {
    version: 1,
    currentState: { text: 'Orders run on Postgres 16; the migration is finishing', date: '2025-03-05' },
    decisions: [
      decision('d-aaa1', 'Database choice', 'use MySQL for the orders service', '2025-01-10', '2025-01-10-database.md', {
        supersededBy: 'd-bbb2',
        supersededDate: '2025-02-01',
        status: 'superseded',
      }),
      decision('d-bbb2', 'Database revisited', 'use SQLite for the orders service', '2025-02-01', '2025-02-01-database-again.md', {
        supersededBy: 'd-ccc3',
        supersededDate: '2025-03-05',
        status: 'superseded',
      }),
      decision('d-ccc3', 'Postgres for orders', 'use Postgres 16 for the orders service, with nightly backups', '2025-03-05', '2025-03-05-postgres.md', {
        status: 'ratified',
        ratifiedBy: [{ id: '300000000000000001', name: 'ana', at: '2025-03-06T09:00:00.000Z' }],
        ratifiedAt: '2025-03-06T09:00:00.000Z',
      }),
      decision('d-ddd4', 'Planted payload', 'nothing', '2025-03-09', '2025-03-09-planted.md', {
        status: 'disputed',
        disputedBy: { id: '300000000000000002', name: 'bo', at: '2025-03-10T09:00:00.000Z' },
      }),
    ],
    constraints: [{ text: 'order writes stay under 50 ms at p99', date: '2025-01-10', decisionId: 'd-ccc3' }],
    actions: [
      {
        id: 'a-111111',
        text: 'set up nightly backups of the orders database',
        owner: 'bo',
        due: '2025-03-12',
        decisionId: 'd-ccc3',
        file: '2025-03-05-postgres.md',
        opened: '2025-03-05',
        status: 'open',
      },
      {
        id: 'a-222222',
        text: 'move the reporting jobs to Postgres',
        owner: 'ana',
        due: day(-14),
        decisionId: 'd-ccc3',
        file: '2025-03-05-postgres.md',
        opened: '2025-03-05',
        status: 'open',
      },
      {
        id: 'a-333333',
        text: 'retire the MySQL replica',
        owner: 'ana',
        decisionId: 'd-ccc3',
        file: '2025-03-05-postgres.md',
        opened: '2025-03-05',
        status: 'done',
        closed: '2025-03-08',
        closedBy: 'ana',
      },
    ],
    questions: [
      {
        id: 'q-444444',
        text: 'who owns the Postgres upgrades?',
        askedBy: 'bo',
        decisionId: 'd-ccc3',
        file: '2025-03-05-postgres.md',
        opened: '2025-03-05',
        status: 'open',
      },
    ],
    playbooks: [
      {
        slug: 'restore-orders',
        name: 'Restore the orders database',
        versions: [
          {
            steps: ['stop the writers', 'restore the nightly dump', 'start the writers'],
            date: '2025-03-05',
            decisionId: 'd-ccc3',
            file: '2025-03-05-postgres.md',
          },
        ],
      },
    ],
  };
  fs.mkdirSync(path.join(ch, '.minutes'), { recursive: true });
  fs.writeFileSync(path.join(ch, '.minutes', 'context.json'), JSON.stringify(data, null, 2) + '\n');
  const log = [];
  for (let i = 0; i < 12; i++) {
    const id = `4000000000000000${String(i).padStart(2, '0')}`;
    const injected = i % 3 !== 2;
    log.push({
      type: 'message',
      id,
      author: { id: '300000000000000001', name: 'ana' },
      at: iso(12 - i, 9),
      content: injected ? `which database do orders use? (${i})` : `thanks, that's all (${i})`,
    });
    log.push({
      type: 'reply',
      id: `5${id.slice(1)}`,
      inReplyTo: [id],
      at: iso(12 - i, 9.01),
      recall: injected ? { lines: [{ file: 'MEMORY.md', id: 'm-aaaa01' }] } : { silence: 'closer-to-chat' },
    });
  }
  fs.writeFileSync(path.join(ch, 'log.jsonl'), log.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

module.exports = { generateDataRoot, GUILD, CHANNEL, THREAD };
