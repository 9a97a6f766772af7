// @ts-check
'use strict';
/**
 * The lifetime benchmark's table (bench/lifetime.js): one column per checkpoint, then each per-call
 * figure at the last checkpoint over its value at one month (the goal: within 10 %).
 */

/** @param {any[]} results @param {unknown[]} failures */
function report(results, failures) {
  const f0 = (x) => Math.round(x).toLocaleString('en-US');
  const kb = (x) => `${(x / 1024).toFixed(1)} KB`;
  const cols = results.map((r) => r.checkpoint);
  const line = (name, fn) => console.log(`| ${name} | ${results.map(fn).join(' | ')} |`);
  console.log(`\n| | ${cols.join(' | ')} |`);
  console.log(`|---|${cols.map(() => '---:').join('|')}|`);
  line('chat messages so far', (r) => f0(r.chatMessages));
  line('condensations so far', (r) => f0(r.condensed));
  line('input tokens per chat call (whole compaction cycles)', (r) => `${f0(r.chatInputTokens)} (${r.chatCycles})`);
  line('bytes per chat request', (r) => f0(r.chatBytes));
  line(
    '  of which system prompt / recall / conversation (chars)',
    (r) => `${f0(r.chatSystemChars)} / ${f0(r.chatRecallChars)} / ${f0(r.chatConversationChars)}`,
  );
  line('bytes per consolidation request', (r) => f0(r.consolidationBytes));
  line('bytes per condensation request', (r) => f0(r.condensationBytes));
  line('  of which decisions / constraints listed (chars)', (r) => `${f0(r.condensationDecisionChars)} / ${f0(r.condensationConstraintChars)}`);
  line('probe: chat system prompt / recall block (chars)', (r) => `${f0(r.probe.chatSystemChars)} / ${f0(r.probe.chatRecallChars)}`);
  line('probe: bytes of the same condensation request', (r) => f0(r.probe.condensationBytes));
  line('bytes per SESSION.md request', (r) => f0(r.sessionBytes));
  line('bytes per compaction request', (r) => f0(r.compactionBytes));
  line('MEMORY.md', (r) => kb(r.files.memory));
  line('HISTORY.md + archive', (r) => kb(r.files.history));
  line('CONTEXT.md', (r) => kb(r.files.context));
  line('CONTEXT.archive.md', (r) => kb(r.files.contextArchive));
  line('condensations/', (r) => kb(r.files.condensations));
  line('.minutes/', (r) => kb(r.files.state));
  line('recall p50 / p95 ms', (r) => `${r.recallMs.p50.toFixed(2)} / ${r.recallMs.p95.toFixed(2)}`);
  line('recall after a memory write p50 ms', (r) => r.recallMs.afterWriteP50.toFixed(1));
  line('RSS / heap MB', (r) => `${r.rssMB.toFixed(0)} / ${r.heapMB.toFixed(0)}`);
  line('MEMORY.md entries ever / current', (r) => `${r.memory.entriesEver} / ${r.memory.current}`);
  line('entries lost (not forgotten)', (r) => String(r.memory.lost));
  line('forgotten / still there', (r) => `${r.memory.forgotten} / ${r.memory.forgottenStillThere}`);
  line('subjects with 2+ current entries', (r) => String(r.memory.subjectsWithTwoCurrentEntries));
  line('decisions total / current', (r) => `${r.decisions.total} / ${r.decisions.current}`);
  line('topics with 2+ current decisions', (r) => String(r.decisions.topicsWithTwoCurrent));
  line('wall time so far (s)', (r) => String(r.wallSeconds));
  const month = results.find((r) => r.day === 30);
  const last = results[results.length - 1];
  if (month && last !== month) {
    console.log(`\nlast checkpoint ÷ 1 month (goal: within 10 %):`);
    for (const k of ['chatInputTokens', 'consolidationBytes', 'condensationBytes', 'sessionBytes', 'compactionBytes']) {
      console.log(`  ${k}: ${(last[k] / month[k]).toFixed(3)}`);
    }
    for (const k of ['chatSystemChars', 'chatRecallChars', 'condensationBytes']) console.log(`  probe ${k}: ${(last.probe[k] / month.probe[k]).toFixed(3)}`);
    console.log(`  recall p50: ${(last.recallMs.p50 / month.recallMs.p50).toFixed(2)}`);
  }
  if (failures.length) console.log(`\ncondensations that did not finish: ${JSON.stringify(failures.slice(0, 5))}`);
}

/** Per day: chat calls and their mean input tokens and conversation size, for a picture of the year. */
/** @param {{ task: string; day: number; tokens: number; parts?: { conversation?: number; system?: number } }[]} calls */
function daily(calls) {
  const days = new Map();
  for (const c of calls) {
    if (c.task !== 'chat') continue;
    const d = days.get(c.day) ?? { day: c.day, chatCalls: 0, tokens: 0, conversationChars: 0, systemChars: 0 };
    d.chatCalls++;
    d.tokens += c.tokens;
    d.conversationChars += c.parts?.conversation ?? 0;
    d.systemChars += c.parts?.system ?? 0;
    days.set(c.day, d);
  }
  return [...days.values()].map((d) => ({
    day: d.day,
    chatCalls: d.chatCalls,
    meanTokens: Math.round(d.tokens / d.chatCalls),
    meanConversationChars: Math.round(d.conversationChars / d.chatCalls),
    meanSystemChars: Math.round(d.systemChars / d.chatCalls),
  }));
}

module.exports = { report, daily };
