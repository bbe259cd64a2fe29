import type { FastifyRequest } from 'fastify';

/**
 * True when the request was sent by a page of another site: its browser says so
 * (`Sec-Fetch-Site: cross-site`), or, from a browser too old to say, its `Origin` is not the
 * host it was sent to (`Origin: null` included: sandboxed frames, some redirects). A replay of
 * such a request must not carry the visitor's cookies: the page that replays it is ours,
 * same-site, and would otherwise launder a cross-site request into a same-site one, past the
 * origin's SameSite cookies and its Origin checks.
 */
export function isCrossSite(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string') return site.toLowerCase() === 'cross-site';
  return hasForeignOrigin(request);
}

/**
 * True when the request may replace the one a visitor's place holds, which would then be replayed
 * with their cookies: one from the site's own origin (`Sec-Fetch-Site: same-origin`), one the
 * visitor made themselves (`none`: typed, a bookmark), or one with no fetch metadata and no
 * foreign `Origin` (a program, an old browser's GET). A sibling subdomain's page (`same-site`) is
 * sent the visitor's SameSite cookie, yet it is another origin: it must not choose what they replay.
 */
export function mayReplaceHeld(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (typeof site === 'string' && site.toLowerCase() !== 'same-origin' && site.toLowerCase() !== 'none') return false;
  return !hasForeignOrigin(request);
}

/** An `Origin` header that is not the host the request was sent to (`null` included). */
function hasForeignOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host.toLowerCase() !== String(request.headers.host ?? '').toLowerCase();
  } catch {
    return true;
  }
}

/**
 * True when the browser may have kept the visitor's session cookie (SameSite=Lax) from this
 * request: a cross-site one other than a top-level GET navigation, the one kind it sends that
 * cookie with. Such a request cannot show whose it is, so it must not start a session: the
 * cookie would replace the visitor's own, their place and their held request with it.
 */
export function mayLackSession(request: FastifyRequest): boolean {
  if (!isCrossSite(request)) return false;
  const mode = request.headers['sec-fetch-mode'];
  const destination = request.headers['sec-fetch-dest'];
  const navigation = mode === 'navigate' && destination === 'document';
  return !(navigation && (request.method === 'GET' || request.method === 'HEAD'));
}
