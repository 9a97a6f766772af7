import escapeHtml from 'escape-html';
import MarkdownIt from 'markdown-it';

/**
 * Memory text is written by people and a model: untrusted. Markdown is rendered with raw HTML off
 * and markdown-it's own link validation (no javascript:, vbscript:, file: or non-image data:);
 * links open with rel=noopener and no referrer.
 */
export function createMarkdown(): (src: string) => string {
  const md = new MarkdownIt({ html: false, linkify: true, typographer: false });
  const defaultLink = md.renderer.rules.link_open ?? ((t, i, o, _e, self) => self.renderToken(t, i, o));
  md.renderer.rules.link_open = (tokens, idx, opts, env, self) => {
    tokens[idx]!.attrSet('rel', 'noopener noreferrer nofollow');
    return defaultLink(tokens, idx, opts, env, self);
  };
  return (src) => md.render(src);
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
pre{white-space:pre-wrap;background:#f6f6f6;padding:.6em}section{margin-bottom:1.5em}`;

export function page(title: string, body: string, token?: string): string {
  const q = token ? `?token=${encodeURIComponent(token)}` : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)} — Minutes</title>` +
    `<meta name="referrer" content="no-referrer"><style>${CSS}</style></head><body>` +
    `<header><a href="/${q}">Minutes</a><form action="/search" method="get" style="display:inline">` +
    `<input name="q" placeholder="search all channels" aria-label="search">${token ? `<input type="hidden" name="token" value="${esc(token)}">` : ''}</form></header>` +
    `<main><h1>${esc(title)}</h1>${body}</main></body></html>`
  );
}
