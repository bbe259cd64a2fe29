/**
 * The visitor cookie: the connector's name for a browser, which a pass is given to. Only an id
 * of the shape the waiting room takes (`/queue/enter`'s `visitor`) is kept: any other value (a
 * cookie planted by another page of the domain, a truncated one) would send the browser to a
 * `400 bad_visitor` on every visit while it lasts, so it is replaced with a fresh id.
 */
export const VISITOR_ID = /^[A-Za-z0-9_-]{16,64}$/;

/** The browser's visitor id: the one its cookie carries when well formed, else a fresh one. */
export interface Visitor {
  readonly id: string;
  /** True when the id is new: the door sets the cookie (replacing a malformed one). */
  readonly fresh: boolean;
}

export function visitorOf(cookie: string | undefined): Visitor {
  if (cookie !== undefined && VISITOR_ID.test(cookie)) return { id: cookie, fresh: false };
  return { id: newVisitorId(), fresh: true };
}

/** 128 random bits, base64url. */
export function newVisitorId(): string {
  return base64url(crypto.getRandomValues(new Uint8Array(16)));
}

export function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}
