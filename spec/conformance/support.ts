import { PASS_COOKIE, signPass, VISITOR_COOKIE } from '@waiting-room/connector';
import type { DoorCase } from './table';

/** The pass secret every connector under test shares with its (absent) waiting room. */
export const SECRET = 'the-conformance-tables-pass-secret-0123';
/** A waiting room that is never called: a connector decides alone. */
export const WAITING_ROOM = 'http://127.0.0.1:9';
/**
 * Where a connector here reports its revocation feed, which it cannot read (the waiting room is
 * never reached): nowhere. That report has its own test (spec/connector/revocations.spec.ts).
 */
export const FEED_UNREAD = (): void => undefined;
/** The browser of a case with a pass: its visitor cookie. */
export const VISITOR = 'ConformanceVisitor0000001';

/** The cookies a case's pass adds to its Cookie header (connectors): the visitor id and the pass. */
export async function passCookies(test: DoorCase, room: string, now = Date.now()): Promise<string | undefined> {
  const at = Math.floor(now / 1000);
  const pass = (change: { visitor?: string; issuedAt?: number; expiresAt?: number } = {}, secret = SECRET) =>
    signPass({ room, visitor: VISITOR, session: 'conformance-session', issuedAt: at, expiresAt: at + 300, ...change }, secret);
  let token: string;
  switch (test.pass) {
    case 'none':
      return undefined;
    case 'valid':
      token = await pass();
      break;
    case 'forged':
      token = await pass({}, `${SECRET}-not-it`);
      break;
    case 'other-visitor':
      token = await pass({ visitor: 'AnotherBrowsersVisitorId' });
      break;
    case 'expired':
      token = await pass({ issuedAt: at - 600, expiresAt: at - 300 });
      break;
    case 'revoked':
      throw new Error(`case "${test.name}": a revoked pass needs the door's revoke, which this runner does not have.`);
  }
  return `${VISITOR_COOKIE}=${VISITOR}; ${PASS_COOKIE}=${token}`;
}

/** The case's headers, its Cookie header joined with `cookies` when there are some. */
export function withCookies(headers: Readonly<Record<string, string>>, cookies: string | undefined): Record<string, string> {
  if (cookies === undefined) return { ...headers };
  return { ...headers, cookie: headers.cookie ? `${headers.cookie}; ${cookies}` : cookies };
}

/** What a connector's answer was: a door's outcome, or what else it was. */
export interface Observed {
  /** The site's handler ran. */
  readonly ran: boolean;
  readonly status: number;
  readonly location?: string | null;
  readonly contentType?: string | null;
  readonly json?: unknown;
}

/** The outcome a connector's answer shows (a redirect to the waiting room, held JSON, a 4xx, or the site). */
export function connectorOutcome(observed: Observed): string {
  if (observed.ran) return observed.status < 400 ? 'site' : `the site ran, then ${observed.status}`;
  if (observed.status === 303 && observed.location?.startsWith(`${WAITING_ROOM}/queue/enter/`)) return 'wait-browser';
  if (observed.status === 503 && observed.contentType?.startsWith('application/json') && (observed.json as { error?: string })?.error === 'waiting_room')
    return 'wait-api';
  if (observed.status >= 400 && observed.status < 500) return 'refused';
  return `unexpected: ${observed.status} ${observed.location ?? ''}`;
}

/** The visitor id a Set-Cookie of the answer gives, when one does. */
export function visitorSet(setCookies: readonly string[]): string | undefined {
  const prefix = `${VISITOR_COOKIE}=`;
  return setCookies
    .find((value) => value.startsWith(prefix))
    ?.slice(prefix.length)
    .split(';')[0];
}

/** Checks what the case says of the visitor cookie: replaced with a fresh, well-formed id, or kept. */
export function expectVisitorCookie(test: DoorCase, setCookies: readonly string[]): void {
  if (test.visitorCookie === undefined) return;
  const set = visitorSet(setCookies);
  if (test.visitorCookie === 'kept') expect({ case: test.name, set }).toEqual({ case: test.name, set: undefined });
  else expect({ case: test.name, set }).toEqual({ case: test.name, set: expect.stringMatching(/^[A-Za-z0-9_-]{16,64}$/) });
}

/** The runtime cannot build a Request of the case (a URL with credentials, or none at all): it refuses it, and no door code runs. */
export class UnbuildableRequest extends Error {}

/** A fetch Request as a runtime would give it for the case: its URL built from the request line (origin or absolute form). */
export function fetchRequestOf(test: DoorCase, cookies: string | undefined): Request {
  const url = test.target.startsWith('/') ? `http://shop.example${test.target}` : test.target;
  const headers = withCookies(test.headers, cookies);
  // The runtime puts the host in the URL: it is no header of fetch's Request.
  delete headers.host;
  try {
    return new Request(url, { method: test.method, headers, ...(test.body !== undefined && { body: test.body }) });
  } catch (error) {
    throw new UnbuildableRequest(`case "${test.name}": ${(error as Error).message}`);
  }
}

/** A Set-Cookie header as a list, however the raw answer's parser joined it. */
export function setCookiesOf(headers: Readonly<Record<string, string>>): string[] {
  const value = headers['set-cookie'];
  return value === undefined ? [] : [value];
}

/**
 * Runs a case at a door that takes fetch's Request (`handle` answers a Response, or nothing to
 * let the site run): the outcome, and the Set-Cookie values of its answer. A case the runtime
 * cannot build a Request of is refused by the runtime itself.
 */
export async function runFetchDoor(
  test: DoorCase,
  room: string,
  handle: (request: Request) => Promise<Response | undefined>,
): Promise<{ outcome: string; setCookies: string[] }> {
  let request: Request;
  try {
    request = fetchRequestOf(test, await passCookies(test, room));
  } catch (error) {
    if (error instanceof UnbuildableRequest) return { outcome: 'refused', setCookies: [] };
    throw error;
  }
  const answer = await handle(request);
  const text = answer ? await answer.text() : '';
  const outcome = connectorOutcome({
    ran: answer === undefined,
    status: answer?.status ?? 200,
    location: answer?.headers.get('location'),
    contentType: answer?.headers.get('content-type'),
    json: text.startsWith('{') ? JSON.parse(text) : undefined,
  });
  return { outcome, setCookies: answer?.headers.getSetCookie() ?? [] };
}
