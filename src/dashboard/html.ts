import escapeHtml from 'escape-html';
import MarkdownIt from 'markdown-it';
import { stripInternalMarkers } from '../shared/markers';

/** Where a link inside a memory file goes on the dashboard; null: shown as text, not a link. */
export type LinkTarget = (href: string) => string | null;

export interface Markdown {
  (src: string, o?: { links?: LinkTarget }): string;
  /** The text a reader sees, without markup: for snippets. */
  text(src: string): string;
  /** The same, keeping a line per paragraph, list item or line break: for a multi-line block. */
  lines(src: string): string;
}

/** A scheme (https:, mailto:) or a fragment: the link means the same on the dashboard. */
const ABSOLUTE = /^(?:[a-z][a-z0-9+.-]*:|#)/i;

/**
 * Memory text is written by people and a model: untrusted. Markdown is rendered with raw HTML off
 * and markdown-it's own link validation (no javascript:, vbscript:, file: or non-image data:);
 * links open with rel=noopener and no referrer. A line break is a line break, as on Discord (a
 * condensation's fields are one per line). Minutes' own markers are never shown. A relative link
 * (CONTEXT.md's "(condensation)" links are relative to the channel folder) would open a 404 under
 * the dashboard's URLs: `links` maps it to its page, or it is shown as text.
 */
export function createMarkdown(): Markdown {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: true });
  const defaultLink = md.renderer.rules.link_open ?? ((t, i, o, _e, self) => self.renderToken(t, i, o));
  const defaultClose = md.renderer.rules.link_close ?? ((t, i, o, _e, self) => self.renderToken(t, i, o));
  md.renderer.rules.link_open = (tokens, idx, opts, env: RenderEnv, self) => {
    const t = tokens[idx]!;
    const href = t.attrGet('href') ?? '';
    if (!ABSOLUTE.test(href)) {
      const to = env.links?.(href) ?? null;
      // Links do not nest in markdown: the next link_close is this one's.
      env.dropped = to === null;
      if (to === null) return '';
      t.attrSet('href', to);
    }
    t.attrSet('rel', 'noopener noreferrer nofollow');
    return defaultLink(tokens, idx, opts, env, self);
  };
  md.renderer.rules.link_close = (tokens, idx, opts, env: RenderEnv, self) => {
    if (env.dropped) {
      env.dropped = false;
      return '';
    }
    return defaultClose(tokens, idx, opts, env, self);
  };
  const render = (src: string, o: { links?: LinkTarget } = {}): string => md.render(stripInternalMarkers(src), { links: o.links } satisfies RenderEnv);
  const plain = (src: string): string =>
    render(src)
      .replace(/<br>|<\/(?:p|li|h\d|tr|blockquote|pre)>/g, '\n')
      .replace(/<[^>]*>/g, '')
      .replace(/&(lt|gt|quot|amp|#39);/g, (_m, e: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&', '#39': "'" })[e] ?? '');
  render.text = (src: string): string => plain(src).replace(/\s+/g, ' ').trim();
  render.lines = (src: string): string =>
    plain(src)
      .split('\n')
      .map((l) => l.replace(/\s+/g, ' ').trim())
      .filter(Boolean)
      .join('\n');
  return render;
}

interface RenderEnv {
  links?: LinkTarget;
  dropped?: boolean;
}

export const esc = (s: unknown): string => escapeHtml(String(s ?? ''));

/** Only http(s) links to outside (Discord message links) are ever put in an href from data. */
export function safeHref(u: string | undefined): string | null {
  if (!u) return null;
  try {
    const p = new URL(u);
    return p.protocol === 'https:' || p.protocol === 'http:' ? p.href : null;
  } catch {
    return null;
  }
}

/**
 * One stylesheet, inline (the CSP allows no outside asset). Colours are variables for a light and
 * a dark scheme chosen by the reader's system; every text colour keeps at least 4.5:1 against its
 * background (WCAG 2.2 AA; axe checks it in test/dashboard/accessibility.test.ts). Long text wraps
 * anywhere rather than widening the page, so a 375 px phone never scrolls sideways. Whatever the
 * keyboard focuses shows an outline at 3:1 or more against what surrounds it: a lighter one on the
 * dark header; the skip link's inside its own header-coloured box (it is drawn over the header's
 * search box); a date field's while its calendar button, inside the field, has focus. Print drops
 * the header and every form, whatever display their own rule gives them.
 */
const CSS = `:root{color-scheme:light dark;--bg:#fff;--fg:#1d1f23;--muted:#545963;--line:#d5d8de;--card:#f6f7f9;--link:#0a4fbf;--head:#1f3147;--headfg:#fff;
--ok:#17703a;--warn:#8a4b00;--bad:#a3261a;--old:#5f6570;--focus:#c25100;--badge:#eef0f3}
@media (prefers-color-scheme:dark){:root{--bg:#15171b;--fg:#e7e9ec;--muted:#a9afb9;--line:#3a3f48;--card:#1e2127;--link:#8ab4f8;--head:#0d1b2a;--headfg:#e7e9ec;
--ok:#6fd08f;--warn:#f0b35a;--bad:#ff9b8f;--old:#a9afb9;--focus:#ffb86b;--badge:#2a2e36}}
*{box-sizing:border-box}body{font:16px/1.5 system-ui,sans-serif;margin:0;color:var(--fg);background:var(--bg);overflow-wrap:anywhere}
a{color:var(--link)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,input[type=date]:focus-within{outline:3px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:var(--head);color:var(--headfg);padding:.4em .8em}.skip:focus{left:.5em;z-index:1}.skip:focus-visible{outline-offset:-6px}
header,.skip{--focus:#ffb86b}
header{background:var(--head);color:var(--headfg);padding:.5em 1em;display:flex;flex-wrap:wrap;gap:.5em 1.2em;align-items:center}
header a{color:var(--headfg);font-weight:600}header button{color:var(--fg)}header form{display:flex;gap:.4em;flex:1 1 14em;max-width:28em}header input{flex:1;min-width:0}
main{padding:1em;max-width:1100px;margin:0 auto}h1{font-size:1.6em;margin:.3em 0}h2{font-size:1.25em;margin:1.2em 0 .4em}h3{font-size:1.05em;margin:.9em 0 .3em}
input,select,button{font:inherit;color:inherit;background:var(--bg);border:1px solid var(--muted);border-radius:4px;padding:.25em .5em;min-height:2em}
button{background:var(--badge);cursor:pointer}
table{border-collapse:collapse;width:100%}td,th{padding:.3em .5em;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
.flag{color:var(--bad)}.muted{color:var(--muted)}del{color:var(--old)}.score{font-family:ui-monospace,monospace;overflow-wrap:normal}.nowrap{white-space:nowrap}
pre,code{white-space:pre-wrap;background:var(--card)}pre{padding:.6em}section{margin-bottom:1.5em}.plain{list-style:none;padding:0}.list>li{margin:.35em 0}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,21em),1fr));gap:1em;padding:0;list-style:none}
.card{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.8em 1em}.card h2{margin:0 0 .2em}.card h3{font-size:1em}
.card ul{padding-left:1.1em;margin:.2em 0}.counts{display:flex;flex-wrap:wrap;gap:.3em .9em;margin:.5em 0}
.badge{display:inline-block;border-radius:999px;padding:0 .55em;font-size:.85em;font-weight:600;background:var(--badge);border:1px solid currentColor}
.s-ratified{color:var(--ok)}.s-proposed{color:var(--fg)}.s-disputed{color:var(--warn)}.s-superseded,.s-none{color:var(--old)}.overdue{color:var(--bad)}
.tl-ratified{fill:var(--ok)}.tl-proposed{fill:var(--bg);stroke:var(--fg);stroke-width:2}.tl-disputed{fill:var(--warn)}.tl-superseded{fill:var(--old)}
.tl-none{fill:none;stroke:var(--old);stroke-width:1.5}.tl-axis{stroke:var(--muted)}.tl-arrow{fill:none;stroke:var(--bad);stroke-width:1.5}.tl-head{fill:var(--bad)}
.tl-date{fill:var(--muted);font-size:15px}.timeline{margin:0}.timeline>svg{width:100%;height:auto;max-width:760px;display:block}
.legend{display:flex;flex-wrap:wrap;gap:.2em 1em;list-style:none;padding:0;margin:.3em 0;font-size:.9em}.legend svg{vertical-align:middle}
.asof{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.5em 0}.note{border-left:4px solid var(--warn);padding:.3em .8em;background:var(--card)}
.health{display:flex;align-items:center;gap:.5em;flex-wrap:wrap}.health svg{flex:none}.h-injected{fill:var(--ok)}.h-abstained{fill:var(--muted)}.h-unknown{fill:var(--line)}
.meta{font-size:.9em;color:var(--muted)}.filter{display:flex;flex-wrap:wrap;gap:.4em;align-items:center;margin:.5em 0}
@media (max-width:40em){.nowrap{white-space:normal}td,th{padding:.25em .3em}table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
table.stack tr{display:block;border-bottom:1px solid var(--line);padding:.4em 0}table.stack td{display:inline;border:0;padding:0 .5em 0 0}table.stack td[data-label]::before{content:attr(data-label) ": ";color:var(--muted)}table.stack td.text{display:block}table.stack td.score{white-space:nowrap}}
@media print{header,.skip,form{display:none!important}body{background:#fff;color:#000}a{color:#000;text-decoration:none}main{max-width:none;padding:0}
.card,section>ul>li,tr{break-inside:avoid}.card{border-color:#999}}`;

/** A whole page. A token, when one is in use, rides in its cookie: never in a link or a form. */
export function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<title>${esc(title)} — Minutes</title><meta name="referrer" content="no-referrer"><meta name="color-scheme" content="light dark"><style>${CSS}</style></head><body>` +
    `<a class="skip" href="#main">Skip to content</a>` +
    `<header><a href="/">Minutes</a><form action="/search" method="get" role="search">` +
    `<input name="q" placeholder="search all channels" aria-label="search"><button>Search</button></form></header>` +
    `<main id="main"><h1>${esc(title)}</h1>${body}</main></body></html>`
  );
}
