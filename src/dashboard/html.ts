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

const CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#222}header{background:#2c3e50;color:#fff;padding:.6em 1em}
header a{color:#fff;margin-right:1em}main{padding:1em 1.5em;max-width:1100px}table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:left}
.flag{color:#b03a2e}.muted{color:#777}del{color:#999}.score{font-family:monospace;color:#555}.chain li{margin:.2em 0}
pre{white-space:pre-wrap;background:#f6f6f6;padding:.6em}section{margin-bottom:1.5em}.nowrap{white-space:nowrap}`;

/** A whole page. A token, when one is in use, rides in its cookie: never in a link or a form. */
export function page(title: string, body: string): string {
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} — Minutes</title>` +
    `<meta name="referrer" content="no-referrer"><style>${CSS}</style></head><body>` +
    `<header><a href="/">Minutes</a><form action="/search" method="get" style="display:inline">` +
    `<input name="q" placeholder="search all channels" aria-label="search"></form></header>` +
    `<main><h1>${esc(title)}</h1>${body}</main></body></html>`
  );
}
