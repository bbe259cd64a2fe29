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
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return false;
  if (origin === 'null') return true;
  try {
    return new URL(origin).host.toLowerCase() !== String(request.headers.host ?? '').toLowerCase();
  } catch {
    return true;
  }
}
