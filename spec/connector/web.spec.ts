import {
  createConnector,
  createWebConnector,
  PASS_COOKIE,
  PASS_PARAMETER,
  signPass,
  VISITOR_COOKIE,
  type ConnectorOptions,
  type Pass,
} from '@waiting-room/connector';
import { verifyEnter } from '@waiting-room/connector/core/enter';

const SECRET = 'a-secret-shared-by-the-site-and-the-room-01';
const WAITING_ROOM = 'https://queue.example';
const VISITOR = 'the-browser-id-0123456789';
const T0 = 1_800_000_000_000;
/** The revocation feed is never reached here: its report when it cannot be read has its own test (revocations.spec.ts). */
const log = (): void => undefined;

/** A pass of room `shop` for VISITOR, valid for five minutes from T0 unless `change` says otherwise. */
const passOf = (change: Partial<Pass> = {}, secret = SECRET) =>
  signPass({ room: 'shop', visitor: VISITOR, session: 'session-1', issuedAt: T0 / 1000, expiresAt: T0 / 1000 + 300, ...change }, secret);

describe('the connector for any runtime with Request', () => {
  let now = T0;
  const connector = createWebConnector({ waitingRoom: `${WAITING_ROOM}/`, room: 'shop', secret: SECRET, protect: ['/checkout'], now: () => now, log });
  const asked = (path: string, cookies: Record<string, string> = {}, headers: Record<string, string> = {}) =>
    new Request(`https://shop.example${path}`, {
      headers: {
        cookie: Object.entries(cookies)
          .map(([name, value]) => `${name}=${value}`)
          .join('; '),
        ...headers,
      },
    });

  beforeEach(() => {
    now = T0;
  });

  test.each(['/', '/checkouts', '/about/checkout'])('lets %s through: not under a protected prefix', async (path) => {
    expect(await connector.handle(asked(path))).toBeUndefined();
  });

  test.each(['/checkout', '/Checkout/pay', '/checkout;jsessionid=1', '/%63heckout'])('sends a visitor of %s without a pass to wait', async (path) => {
    const answer = (await connector.handle(asked(path)))!;
    expect(answer.status).toBe(303);
    const enter = new URL(answer.headers.get('location')!);
    expect(enter.origin + enter.pathname).toBe(`${WAITING_ROOM}/queue/enter/shop`);
    expect(enter.searchParams.get('target')).toBe(`https://shop.example${path}`);
    const visitor = enter.searchParams.get('visitor')!;
    expect(visitor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(answer.headers.getSetCookie()).toEqual([`${VISITOR_COOKIE}=${visitor}; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure`]);
  });

  test('keeps the browser id it already gave', async () => {
    const answer = (await connector.handle(asked('/checkout', { [VISITOR_COOKIE]: VISITOR })))!;
    expect(new URL(answer.headers.get('location')!).searchParams.get('visitor')).toBe(VISITOR);
    expect(answer.headers.getSetCookie()).toEqual([]);
  });

  test("turns a pass handed back into a cookie lasting the pass's life, and takes it off the address", async () => {
    const pass = await passOf();
    now = T0 + 60_000;
    const answer = (await connector.handle(asked(`/checkout?item=1&${PASS_PARAMETER}=${pass}`, { [VISITOR_COOKIE]: VISITOR })))!;
    expect(answer.status).toBe(303);
    expect(answer.headers.get('location')).toBe('https://shop.example/checkout?item=1');
    expect(answer.headers.getSetCookie()).toEqual([`${PASS_COOKIE}=${pass}; Path=/; Max-Age=240; HttpOnly; SameSite=Lax; Secure`]);
  });

  test('lets an admitted visitor through and says whose pass it is', async () => {
    const request = asked('/checkout', { [VISITOR_COOKIE]: VISITOR, [PASS_COOKIE]: await passOf() });
    expect(await connector.handle(request)).toBeUndefined();
    expect(await connector.verifyPass(request)).toMatchObject({ room: 'shop', visitor: VISITOR, session: 'session-1' });
  });

  test.each([
    ['expired', () => passOf({ expiresAt: T0 / 1000 })],
    ["another room's", () => passOf({ room: 'tickets' })],
    ["another browser's", () => passOf({ visitor: 'another-browser-id-000000' })],
    ['signed with another secret', () => passOf({}, `${SECRET}-other`)],
  ])('sends a visitor with a pass %s to wait', async (_case, pass) => {
    const request = asked('/checkout', { [VISITOR_COOKIE]: VISITOR, [PASS_COOKIE]: await pass() });
    expect((await connector.handle(request))?.status).toBe(303);
    expect(await connector.verifyPass(request)).toBeUndefined();
  });

  test('stops admitting when the pass expires, though it was verified before', async () => {
    const request = () => asked('/checkout', { [VISITOR_COOKIE]: VISITOR, [PASS_COOKIE]: pass });
    const pass = await passOf();
    expect(await connector.handle(request())).toBeUndefined();
    now = T0 + 300_000;
    expect((await connector.handle(request()))?.status).toBe(303);
  });

  test('answers an API client with a held answer naming where to wait', async () => {
    const answer = (await connector.handle(asked('/checkout/pay', {}, { accept: 'application/json' })))!;
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('10');
    const body = (await answer.json()) as { error: string; waitingRoom: string };
    expect(body.error).toBe('waiting_room');
    expect(body.waitingRoom.startsWith(`${WAITING_ROOM}/queue/enter/shop?target=`)).toBe(true);
    const fetched = await connector.handle(asked('/checkout', {}, { 'sec-fetch-mode': 'cors' }));
    expect(fetched?.status).toBe(503);
  });

  test.each([
    [{ waitingRoom: 'queue.example' }, 'not an absolute http(s) address'],
    [{ waitingRoom: 'ftp://queue.example' }, 'not an http(s) address'],
    [{ room: 'Shop!' }, 'not a room name'],
    [{ secret: 'short' }, 'at least 32 characters'],
    [{ protect: ['checkout'] }, 'must be a path starting with /'],
    [{ protect: 'checkout' }, 'must be a path starting with /'],
    [{ protect: [] }, 'protect: a path or a non-empty list of paths'],
    [{ protect: 42 }, 'protect: a path or a non-empty list of paths'],
    [{ protect: ['/a%2Fb'] }, 'is not a path the server routes'],
    [{ room: undefined }, 'room: missing'],
    [{ room: 7 }, 'room: 7 is not a room name'],
  ])('refuses to start with %o', (change, message) => {
    expect(() => createConnector({ waitingRoom: WAITING_ROOM, room: 'shop', secret: SECRET, ...change } as unknown as ConnectorOptions)).toThrow(message);
  });

  test('takes one path as protect', async () => {
    const one = createWebConnector({ waitingRoom: WAITING_ROOM, room: 'shop', secret: SECRET, protect: '/checkout', now: () => now, log });
    expect((await one.handle(asked('/checkout/pay')))?.status).toBe(303);
    expect(await one.handle(asked('/about'))).toBeUndefined();
  });

  test('signs the enter address with the shared secret: room, visitor, the address asked for and the time', async () => {
    const answer = (await connector.handle(asked('/checkout?item=1', { [VISITOR_COOKIE]: VISITOR })))!;
    const enter = new URL(answer.headers.get('location')!).searchParams;
    const claim = { room: 'shop', visitor: VISITOR, target: 'https://shop.example/checkout?item=1', at: Number(enter.get('at')) };
    expect(claim.at).toBe(T0 / 1000);
    expect(await verifyEnter(claim, enter.get('sig')!, SECRET, T0)).toBe(true);
    expect(await verifyEnter({ ...claim, visitor: 'another-browser-id-000000' }, enter.get('sig')!, SECRET, T0)).toBe(false);
    expect(await verifyEnter(claim, enter.get('sig')!, `${SECRET}-other`, T0)).toBe(false);
  });

  test.each(['bad', 'has space', 'x'.repeat(65), ''])('replaces a malformed visitor cookie %j with a fresh id', async (planted) => {
    const answer = (await connector.handle(asked('/checkout', { [VISITOR_COOKIE]: planted })))!;
    const visitor = new URL(answer.headers.get('location')!).searchParams.get('visitor')!;
    expect(visitor).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(answer.headers.getSetCookie()).toEqual([`${VISITOR_COOKIE}=${visitor}; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax; Secure`]);
  });
});
