import type { MeaningExplanation, RecallExplanation, Silence, WordExplanation } from './explanation';
import { COMMON_DIRECTIONS } from './commonPart';

/**
 * An explanation (explanation.ts) as a person reads it: `minutes recall --explain` prints it, and
 * `/recall explain:true` answers with it. Plain text, one fact a line; similarities in the embedder's
 * own units (standard deviations above the mean cosine of unrelated texts), signed.
 */
export function renderExplanation(e: RecallExplanation): string {
  const out: string[] = [headline(e), '', 'Words (evidence 0–1 each; a line has the sum of the words it shares):'];
  if (!e.words.length) out.push('  (none: the message has no word recall scores)');
  for (const w of e.words) {
    if (w.lines === 0) {
      out.push(`  ${said(w)}: no line uses it`);
      continue;
    }
    const notes = [w.common ? 'common in the language: counts part of it' : '', w.rare ? 'rare in the language: may open the gate alone' : ''].filter(Boolean);
    out.push(`  ${said(w)}: ${w.lines} line${w.lines === 1 ? '' : 's'}, evidence ${f2(w.evidence)}${notes.length ? ` (${notes.join('; ')})` : ''}`);
  }
  const g = e.gate;
  const rare = g.rareWord ? `, or ${f2(g.rareWordMin)} with the rare word "${g.rareWord}"` : '';
  out.push(`Evidence gate: the best line has ${f2(g.best)}, words open recall at ${f2(g.gateMin)}${rare}: ${g.open ? 'open' : 'closed'}.`);
  if (e.meaning) out.push(...meaningLines(e.meaning));
  else
    out.push(
      e.semantic === 'off' ? 'Meaning: off (words only).' : 'Meaning: not used (no vector for the message in time, or the model unavailable): words only.',
    );
  if (e.items.length) {
    const written = new Map(e.words.map((w) => [w.word, w.written]));
    out.push('', 'Lines injected:');
    e.items.forEach((it, i) => {
      const text = it.text.replace(/\s+/g, ' ').trim();
      const why =
        it.by === 'words'
          ? `by words: ${it.words.map((w) => written.get(w) ?? w).join(', ')} (evidence ${f2(it.evidence)})`
          : `by meaning alone (no word shared at ${f2(e.gate.evidenceMin)} evidence)`;
      const m = it.meaning === undefined ? '' : ` · meaning ${signed(it.meaning)}`;
      out.push(`  ${i + 1}. ${it.file}: ${text.length > 80 ? `${text.slice(0, 79)}…` : text}`, `     ${why}${m}`);
    });
  }
  return out.join('\n');
}

/** The word as the message wrote it, and as recall matches it when that differs. */
function said(w: WordExplanation): string {
  return w.written === w.word ? w.word : `${w.written} (${w.word})`;
}

function headline(e: RecallExplanation): string {
  if (!e.silence) {
    const how =
      e.opened === 'words'
        ? `words opened it (the best line's evidence ${f2(e.gate.best)} ≥ ${f2(e.gate.gateMin)})`
        : e.opened === 'rare-word'
          ? `one rare word opened it ("${e.gate.rareWord}": the best line's evidence ${f2(e.gate.best)} ≥ ${f2(e.gate.rareWordMin)})`
          : `meaning opened it (the best line ${signed(e.meaning?.best ?? NaN)} clears the floor, the channel's chat bar and the null)`;
    return `Recall injected ${e.items.length} line${e.items.length === 1 ? '' : 's'}: ${how}.`;
  }
  return `Recall stayed silent: ${silenceText(e.silence, e)}.`;
}

/** One clause per gate, with the figures that closed it. */
export function silenceText(s: Silence, e: RecallExplanation): string {
  const m = e.meaning;
  const g = e.gate;
  const words = `words did not open it (the best line's evidence ${f2(g.best)} < ${f2(g.gateMin)})`;
  switch (s) {
    case 'empty-channel':
      return 'the channel has no memory lines yet';
    case 'empty-message':
      return 'the message is empty (or the budget is 0)';
    case 'no-words':
      return 'the message has no word recall scores (only small words or punctuation)';
    case 'words-below-gate':
      return `${words}, and meaning was ${e.semantic === 'off' ? 'off' : 'not available in time'}`;
    case 'no-content-word':
      return `${words}, and meaning may not open it alone: the message has no word that names something`;
    case 'meaning-unscaled':
      return `${words}, and meaning may not open it alone yet: the sentence model's scale (its null lines) is still being embedded`;
    case 'meaning-below-floor':
      return m && m.best === -Infinity
        ? `${words}, and no line of the channel has a vector yet`
        : `${words}, and meaning is below its floor (the best line ${signed(m?.best ?? NaN)} < ${signed(m?.floor ?? NaN)})`;
    case 'closer-to-chat':
      return `${words}, and the message is closer to everyday chat (${signed(m?.chat ?? NaN)}) than to the channel (its best line ${signed(m?.best ?? NaN)}; needs ≥ ${signed((m?.chat ?? NaN) + (m?.chatMargin ?? NaN))})`;
    case 'closer-to-tech':
      return `${words}, and the message is closer to a generic technical message than to the channel (by ${f2(m?.techGap ?? NaN)} on what sets texts apart; meaning opens at ${f2(-(m?.techMargin ?? NaN))} or less)`;
    case 'below-chat-bar':
      return `${words}, and meaning is below this channel's chat bar (the best line ${signed(m?.best ?? NaN)}; needs ≥ bar ${signed(m?.chatBar ?? NaN)} + ${f2(m?.chatBarMargin ?? NaN)})`;
    case 'chat-veto':
      return `words opened it, and were withdrawn: the message is ${f2((m?.chat ?? NaN) - (m?.best ?? NaN))} closer to everyday chat than to any line (withdrawn at ${f2(m?.chatVeto ?? NaN)})`;
    case 'tech-veto':
      return `words opened it, and were withdrawn: the message is ${f2((m?.tech ?? NaN) - (m?.best ?? NaN))} closer to a generic technical message than to any line (withdrawn at ${f2(m?.techVeto ?? NaN)})`;
    case 'rare-word-tech':
      return `one rare word opened it ("${e.gate.rareWord ?? '?'}"), and was withdrawn: the message is closer to a generic technical message than to the channel (by ${f2(m?.techGap ?? NaN)} on what sets texts apart; a rare word alone needs ${f2(-(m?.techMargin ?? NaN))} or less, as meaning alone does)`;
    case 'nothing-fits':
      return 'every line that qualified is already in the prompt (CONTEXT.md) or over the budget';
  }
}

function meaningLines(m: MeaningExplanation): string[] {
  const best = m.best === -Infinity ? 'no line has a vector yet' : `best line ${signed(m.best)}`;
  const bar = m.chatBar === undefined ? 'not known yet' : signed(m.chatBar);
  const mark = (ok: boolean) => (ok ? 'yes' : 'no');
  return [
    `Meaning (standard deviations above the mean cosine of unrelated texts: ${f3(m.mean)}, sd ${f3(m.sd)}):`,
    `  ${best} · everyday chat ${signed(m.chat)} · generic technical ${signed(m.tech)} · this channel's chat bar ${bar}`,
    `  meaning alone opens recall with: a content word (${mark(m.content)}) · best ≥ floor ${signed(m.floor)} (${mark(m.best >= m.floor)}) · best − chat ≥ ${signed(m.chatMargin)} (${mark(m.best - m.chat >= m.chatMargin)}) · closer to generic technical than to the channel by ≤ ${f2(-m.techMargin)} (${mark(-m.techGap >= m.techMargin)}) · best ≥ chat bar + ${f2(m.chatBarMargin)} (${m.chatBar === undefined ? '?' : mark(m.best >= m.chatBar + m.chatBarMargin)})`,
    `  (meaning's technical comparison is made on what sets texts apart: the null's mean and ${COMMON_DIRECTIONS} strongest directions taken away; this message is closer to generic technical by ${f2(m.techGap)})`,
    `  words are withdrawn at chat − best ≥ ${f2(m.chatVeto)} or technical − best ≥ ${f2(m.techVeto)}; meaning adds a line at ≥ ${signed(m.admit)}`,
  ];
}

function f2(x: number): string {
  return x.toFixed(2);
}

function f3(x: number): string {
  return x.toFixed(3);
}

function signed(x: number): string {
  return `${x >= 0 ? '+' : ''}${x.toFixed(2)}`;
}
