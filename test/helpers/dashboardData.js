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
  return { guild: GUILD, channel: CHANNEL, thread: THREAD, channelKey: `${GUILD}/${CHANNEL}`, threadKey: `${GUILD}/${CHANNEL}/${THREAD}` };
}

module.exports = { generateDataRoot, GUILD, CHANNEL, THREAD };
