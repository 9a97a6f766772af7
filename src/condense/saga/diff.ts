/**
 * A small unified-style line diff for `minutes condense` dry runs (files are small: an LCS table
 * is fine). Three lines of context, `@@ -a,b +c,d @@` hunk headers.
 */
export function unifiedDiff(oldText: string | null, newText: string, label: string, context = 3): string {
  if (oldText === newText) return '';
  const a = oldText === null || oldText === '' ? [] : oldText.replace(/\n$/, '').split('\n');
  const b = newText.replace(/\n$/, '').split('\n');
  const n = a.length;
  const m = b.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  type Op = { t: ' ' | '-' | '+'; s: string; ai: number; bi: number };
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ t: ' ', s: a[i], ai: i++, bi: j++ });
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      ops.push({ t: '+', s: b[j], ai: i, bi: j++ });
    } else {
      ops.push({ t: '-', s: a[i], ai: i++, bi: j });
    }
  }
  const out = [`--- ${oldText === null ? '/dev/null' : `a/${label}`}`, `+++ b/${label}`];
  let k = 0;
  while (k < ops.length) {
    if (ops[k].t === ' ') {
      k++;
      continue;
    }
    const start = Math.max(0, k - context);
    let end = k;
    // Extend the hunk while changes are within 2*context of each other.
    for (let x = k; x < ops.length; x++) {
      if (ops[x].t !== ' ') end = x;
      else if (x - end > 2 * context) break;
    }
    const stop = Math.min(ops.length, end + context + 1);
    const hunk = ops.slice(start, stop);
    const aLen = hunk.filter((o) => o.t !== '+').length;
    const bLen = hunk.filter((o) => o.t !== '-').length;
    out.push(`@@ -${aLen ? hunk[0].ai + 1 : hunk[0].ai},${aLen} +${bLen ? hunk[0].bi + 1 : hunk[0].bi},${bLen} @@`);
    for (const o of hunk) out.push(`${o.t}${o.s}`);
    k = stop;
  }
  return out.join('\n') + '\n';
}
