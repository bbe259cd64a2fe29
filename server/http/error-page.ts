import { escapeHtml } from './html';
import type { MessageKey } from '../../locales';
import type { ServedLanguage } from './languages';

/**
 * The page a person sees when their browser meets an error: the status, one sentence that says
 * what happened in their language, and a way back. The machine code and message stay in the
 * JSON that API clients get (see `errors.ts`). The texts are the catalogue's `error.*` messages
 * (locales/): `error.title.<status>` and `error.explain.<code>`, one for every status and code
 * listed here (the catalogue test makes sure of it).
 */

/** The error codes a person may meet in a browser, each explained in one sentence. */
export const EXPLAINED_CODES = [
  'bad_request_target',
  'bad_request',
  'malformed_json',
  'payload_too_large',
  'unsupported_media_type',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'headers_too_large',
  'uri_too_long',
  'csrf_mismatch',
  'session_expired',
  'bad_name',
  'bad_uuid',
  'unknown_uuid',
  'not_your_place',
  'get_replay',
  'replay_target_mismatch',
  'method_mismatch',
  'not_released',
  'already_replayed',
  'unauthorized',
  'store_unavailable',
  'shutting_down',
  'internal_error',
  'origin_unreachable',
  'origin_timeout',
  'sale_closed',
  'too_many_places',
  'cross_site_request',
  'target_not_allowed',
  'pass_refused',
  'unsigned_enter',
  'held_bodies_full',
  'held_bodies_per_address',
] as const;
export type ExplainedCode = (typeof EXPLAINED_CODES)[number];

/** The statuses with a title of their own; any other shows the generic one. */
export const TITLED_STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 414, 415, 419, 429, 431, 500, 502, 503, 504] as const;
type TitledStatus = (typeof TITLED_STATUSES)[number];

const STYLE = `
  :root { color-scheme: light dark; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 36rem; margin: 15vh auto 2rem; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
  .status { color: #595f6b; margin: 0 0 .25rem; font-weight: 600; }
  a { color: #1d4ed8; }
  a:focus-visible { outline: 3px solid currentColor; outline-offset: 2px; }
  @media (prefers-color-scheme: dark) { body { background: #16181c; color: #eef0f3; } .status { color: #a9b0bc; } a { color: #8fb0ff; } }
  nav { margin-top: 1.5rem; display: flex; gap: 1.5rem; flex-wrap: wrap; }
`;

/** The page's inline styles, which its policy names by hash (`http/security-headers.ts`). */
export const ERROR_PAGE_STYLES: readonly string[] = [STYLE];

function isTitled(status: number): status is TitledStatus {
  return (TITLED_STATUSES as readonly number[]).includes(status);
}

function isExplained(code: string): code is ExplainedCode {
  return (EXPLAINED_CODES as readonly string[]).includes(code);
}

/**
 * A "continue on another device" link that moved nothing (`routes/handoff.ts`), and the old page
 * of a place that moved: told with the catalogue's `handoff.*` texts.
 */
const HANDOFF_EXPLAINED: Readonly<Record<string, MessageKey>> = {
  handoff_used: 'handoff.refused.used',
  handoff_expired: 'handoff.refused.expired',
  handoff_unknown: 'handoff.refused.unknown',
  handoff_gone: 'handoff.refused.gone',
  place_moved: 'handoff.moved.why',
};

/** The sentence that tells a person what `code` (answered with `status`) means for them. */
export function explanation(status: number, code: string, language: ServedLanguage): string {
  const handoff = HANDOFF_EXPLAINED[code];
  if (handoff) return language.t(handoff);
  return language.t(`error.explain.${isExplained(code) ? code : status >= 500 ? 'server' : 'client'}`);
}

/**
 * The whole error page, every text escaped, in `language`. `back` is the same-site page the
 * visitor came from (see `sameSiteReferrer`); without one, only the way to the home page shows.
 * A plain link rather than `javascript:history.back()`: it works under a strict CSP and without
 * JavaScript. `retryInSeconds`: the page loads itself again after that long (a GET the store could not
 * answer yet), so that a visitor who arrives while Redis is away gets in line once it is back.
 */
export function renderErrorPage(status: number, code: string, language: ServedLanguage, back?: string, retryInSeconds?: number): string {
  const { t } = language;
  const title =
    code === 'place_moved'
      ? t('handoff.moved.heading')
      : code in HANDOFF_EXPLAINED
        ? t('handoff.refused.title')
        : t(`error.title.${isTitled(status) ? status : 'other'}`);
  const statusText = t('error.status', { status: String(status) });
  return `<!doctype html>
<html lang="${escapeHtml(language.locale)}" dir="${language.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
${retryInSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${Math.max(1, Math.round(retryInSeconds))}">\n`}<title>${escapeHtml(title)} · ${escapeHtml(statusText)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="status">${escapeHtml(statusText)}</p>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(explanation(status, code, language))}</p>
<nav>${back === undefined ? '' : `<a href="${escapeHtml(back)}">${escapeHtml(t('error.back'))}</a> `}<a href="/">${escapeHtml(t('error.home'))}</a></nav>
</main>
</body>
</html>
`;
}

/**
 * The path of the page the visitor came from, when the Referer names this very host: a link
 * back to another site, or to a malformed address, is never offered. The path starts with a
 * single slash: `//evil.example/x` (or `/\\evil.example`, which URL parsing reads the same) in
 * a link would be a protocol-relative address of another site.
 */
export function sameSiteReferrer(referer: string | undefined, host: string | undefined): string | undefined {
  if (!referer || !host) return undefined;
  try {
    const url = new URL(referer);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host !== host.toLowerCase()) return undefined;
    return `/${url.pathname.replace(/^[/\\]+/, '')}${url.search}`;
  } catch {
    return undefined;
  }
}
