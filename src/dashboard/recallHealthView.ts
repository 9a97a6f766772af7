import type { RecalledLine } from '../chat/replyRecall';
import type { Silence } from '../recall/explanation';
import type { RecallHealth, RecentReply, WindowFigures } from './recallHealth';
import { esc } from './html';

/**
 * The channel page's "Recall health" section (recallHealth.ts's figures): escaped text and tables
 * only, so it lives within the page's CSP (no script, no outside image).
 */

/** Each gate in a few words; its name (as `minutes recall --explain` prints it) follows in grey. */
const SILENCE_WORDS: Record<Silence, string> = {
  'empty-channel': 'the channel had no memory lines yet',
  'empty-message': 'an empty message',
  'no-words': 'no word recall scores',
  'words-below-gate': 'words too weak, and meaning not used',
  'no-content-word': 'words too weak, and no word that names something for meaning to go on',
  'meaning-unscaled': "words too weak, and the sentence model's scale not known yet",
  'meaning-below-floor': 'words too weak, and meaning below its floor',
  'closer-to-chat': 'closer to everyday chat than to the channel',
  'closer-to-tech': 'closer to a generic technical question than to the channel',
  'below-chat-bar': 'not above what everyday chat scores against this channel',
  'chat-veto': 'words withdrawn: far closer to everyday chat than to any line',
  'tech-veto': 'words withdrawn: far closer to a generic technical question than to any line',
  'rare-word-tech': 'one rare word withdrawn: closer to a generic technical question than to the channel',
  'nothing-fits': 'every line that qualified was already in CONTEXT.md or over the budget',
};

export interface RecallHealthViewOptions {
  /** A MEMORY.md entry's text as the file holds it now; undefined when it is gone (forgotten, edited away). */
  entry(line: RecalledLine): string | undefined;
  /** How much of the log's end was read, for the note when it was cut. */
  windowBytes: number;
}

export function recallHealthSection(h: RecallHealth, o: RecallHealthViewOptions): string {
  const intro =
    '<p class="muted">From this conversation\'s log.jsonl: each reply records the lines recall injected, or the gate that kept it silent ' +
    '(<code>minutes recall --explain</code> shows the figures behind a gate). Replies logged before Minutes recorded this count as unknown.</p>';
  const cut = h.cut
    ? `<p class="flag">The log is longer than the part read (its last ${esc(mb(o.windowBytes))}): these figures start at ${esc(h.since ?? 'the first whole line read')}.</p>`
    : '';
  const rows = h.windows
    .map(
      (w) =>
        `<tr><td>last ${w.days} days</td><td>${w.replies}</td><td>${share(w.injected, w.replies)}</td><td>${share(w.abstained, w.replies)}</td><td>${share(w.unknown, w.replies)}</td></tr>`,
    )
    .join('');
  const windows = `<table><thead><tr><th>window</th><th>replies</th><th>injected</th><th>abstained</th><th>unknown</th></tr></thead><tbody>${rows}</tbody></table>`;
  const longest = h.windows.at(-1)?.days ?? 30;
  const top = h.top.length
    ? `<table><thead><tr><th>times</th><th>file</th><th>line</th></tr></thead><tbody>${h.top
        .map((l) => `<tr><td>${l.count}</td><td class="nowrap">${esc(l.file)}</td><td>${lineText(l, o)}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p class="muted">none</p>';
  const recent = h.recent.length
    ? `<table class="stack"><thead><tr><th>when</th><th>message</th><th>recall</th><th>why</th></tr></thead><tbody>${h.recent.map((r) => recentRow(r, o)).join('')}</tbody></table>`
    : '<p class="muted">no reply in the part of the log read</p>';
  return (
    `<section id="recall-health"><h2>Recall health</h2>${intro}${cut}${windows}` +
    `<h3>Lines injected most often (last ${longest} days)</h3>${top}` +
    `<h3>Last ${h.recent.length || ''} replies</h3>${recent}</section>`
  );
}

function recentRow(r: RecentReply, o: RecallHealthViewOptions): string {
  const msgs = r.messages.length
    ? r.messages
        .map((m) =>
          m.deleted
            ? '<span class="muted">(deleted)</span>'
            : m.missing
              ? '<span class="muted">(before the part of the log read)</span>'
              : `${m.author ? `<span class="muted">${esc(m.author)}:</span> ` : ''}${esc(m.text)}`,
        )
        .join('<br>')
    : '<span class="muted">—</span>';
  let got: string;
  let why: string;
  if (r.outcome === 'injected') {
    got = `${r.lines.length} line${r.lines.length === 1 ? '' : 's'}:<br>${r.lines.map((l) => `<span class="muted">${esc(l.file)}</span> ${lineText(l, o)}`).join('<br>')}`;
    why = '<span class="muted">words or meaning opened it</span>';
  } else if (r.outcome === 'abstained') {
    got = 'nothing';
    why = r.silence ? gateText(r.silence) : '<span class="muted">no gate recorded (recall failed: see the bot\'s log)</span>';
  } else {
    got = '<span class="muted">unknown</span>';
    why = '<span class="muted">logged before replies recorded recall</span>';
  }
  return `<tr><td class="nowrap muted">${esc(r.at)}</td><td class="text">${msgs}</td><td class="text">${got}</td><td class="text">${why}</td></tr>`;
}

/** A MEMORY.md entry by its id, as the file holds it now; any other line as recorded. */
function lineText(l: RecalledLine, o: RecallHealthViewOptions): string {
  if (!l.id) return esc(l.text ?? '');
  const now = o.entry(l);
  return now === undefined ? `<span class="muted">${esc(l.id)} (no longer in ${esc(l.file)})</span>` : `<span class="muted">${esc(l.id)}</span> ${esc(now)}`;
}

function gateText(gate: string): string {
  const words = Object.prototype.hasOwnProperty.call(SILENCE_WORDS, gate) ? SILENCE_WORDS[gate as Silence] : undefined;
  return words ? `${esc(words)} <span class="muted">(${esc(gate)})</span>` : esc(gate);
}

function share(n: number, of: number): string {
  return of ? `${n} (${Math.round((100 * n) / of)}%)` : '0';
}

function mb(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round(bytes / (1024 * 1024))} MB` : `${Math.round(bytes / 1024)} KB`;
}

/**
 * The home card's small picture of recall health: one bar split into injected, abstained and
 * unknown over the window, its figures said in words beside it (and to a screen reader).
 */
export function healthBar(w: WindowFigures | null): string {
  if (!w || !w.replies) return '<p class="health meta">Recall: no reply in the last 30 days.</p>';
  const W = 120;
  let x = 0;
  const parts = (['injected', 'abstained', 'unknown'] as const).map((k) => {
    const width = (W * w[k]) / w.replies;
    const r = width > 0 ? `<rect class="h-${k}" x="${x.toFixed(1)}" y="0" width="${width.toFixed(1)}" height="12"/>` : '';
    x += width;
    return r;
  });
  const words = `Recall, last ${w.days} days: ${w.replies} repl${w.replies === 1 ? 'y' : 'ies'}, injected ${share(w.injected, w.replies)}, abstained ${share(w.abstained, w.replies)}${w.unknown ? `, unknown ${share(w.unknown, w.replies)}` : ''}`;
  return `<p class="health"><svg aria-hidden="true" focusable="false" width="${W}" height="12" viewBox="0 0 ${W} 12">${parts.join('')}</svg><span class="meta">${esc(words)}</span></p>`;
}
