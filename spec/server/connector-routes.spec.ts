import { signPass, verifyPass } from '@waiting-room/connector';
import { signEnter } from '@waiting-room/connector/core/enter';
import { ConfigError, loadConfig } from '../../server/process/config';
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

const SECRET = 'a-pass-secret-for-the-route-tests-0123456';
const SITE = 'https://shop.example';
const VISITOR = 'AbCdEfGhIjKlMnOpQrStUv';

const enter = (server: WaitingRoomServer, query: Record<string, string>, room = 'default') =>
  fetch(`${server.url}/queue/enter/${room}?${new URLSearchParams(query)}`, { redirect: 'manual' });

/** `query` with the connector's signature (room, visitor, target, time), made `ageSeconds` ago with `secret`. */
const signed = async (query: { target: string; visitor: string }, options: { room?: string; ageSeconds?: number; secret?: string } = {}) => {
  const at = Math.floor(Date.now() / 1000) - (options.ageSeconds ?? 0);
  const sig = await signEnter({ room: options.room ?? 'default', ...query, at }, options.secret ?? SECRET);
  return { ...query, at: String(at), sig };
};

const revoke = (server: WaitingRoomServer, body: string) =>
  fetch(`${server.url}/queue/passes/revoke`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe("the connectors' routes", () => {
  let server: WaitingRoomServer | undefined;
  let origin: TestOrigin | undefined;

  beforeAll(async () => {
    await ensureWaitingPageBuilt();
  });

  afterEach(async () => {
    await server?.close();
    await origin?.close();
    server = origin = undefined;
  });

  test('answer 404 while no PASS_SECRET is set', async () => {
    server = await startWaitingRoom();
    const entered = await enter(server, { target: `${SITE}/checkout`, visitor: VISITOR });
    expect(entered.status).toBe(404);
    expect(await entered.json()).toMatchObject({ error: { code: 'no_connector' } });
    expect((await revoke(server, '{"pass": "x.y.z"}')).status).toBe(404);
  });

  test.each([
    ['another site', { target: 'https://elsewhere.example/checkout', visitor: VISITOR }, 'target_not_allowed'],
    ['a script address', { target: 'javascript:alert(1)', visitor: VISITOR }, 'target_not_allowed'],
    // A blob: address has the origin of the site that made it, yet names no page of it.
    ['a blob: address of the site', { target: `blob:${SITE}/0c1d2e3f-0000-4000-8000-000000000000`, visitor: VISITOR }, 'target_not_allowed'],
    ["the site's host with credentials", { target: 'https://user:secret@shop.example/checkout', visitor: VISITOR }, 'target_not_allowed'],
    ['a path alone', { target: '/checkout', visitor: VISITOR }, 'target_not_allowed'],
    ['a visitor id too short', { target: `${SITE}/checkout`, visitor: 'short' }, 'bad_visitor'],
    ['no target', { visitor: VISITOR }, 'bad_target'],
  ])('refuse %s with a 400 and no place taken', async (_case, query, error) => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE });
    const entered = await enter(server, query);
    expect(entered.status).toBe(400);
    expect(((await entered.json()) as { error: { code: string } }).error.code).toBe(error);
    expect((await server.stats()).waiting).toBe(0);
  });

  test('apply a priority code the visitor brings in the enter address, once the visitor has a place', async () => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await server.fill(1);
    const uuidOf = async (answer: Response) => /"uuid":"([0-9a-f-]{36})"/.exec(await answer.text())?.[1];
    const query = (n: number) => signed({ target: `${SITE}/checkout?item=${n}`, visitor: `${VISITOR}${n}` });
    const first = await uuidOf(await enter(server, await query(1)));
    const issued = await fetch(`${server.url}/admin/codes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: '{"count": 1}',
    });
    const [code] = ((await issued.json()) as { codes: string[] }).codes;
    // The code is not signed: the visitor adds it to the address the connector signed.
    const second = await uuidOf(await enter(server, { ...(await query(2)), code }));
    const third = await uuidOf(await enter(server, { ...(await query(3)), code }));
    expect(await server.stats()).toMatchObject({ waiting: 3, codes: { issued: 1, used: 1 } });
    expect(await server.release(3)).toEqual([second, first, third]);
  });

  test('send an admitted visitor back to the target, hash-free, with a pass given to the named visitor', async () => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE });
    const entered = await enter(server, await signed({ target: `${SITE}/checkout?item=2#pay`, visitor: VISITOR }));
    expect(entered.status).toBe(303);
    expect(entered.headers.get('referrer-policy')).toBe('no-referrer');
    const back = new URL(entered.headers.get('location')!);
    expect(back.origin + back.pathname + back.hash).toBe(`${SITE}/checkout`);
    expect(back.searchParams.get('item')).toBe('2');
    const pass = await verifyPass(back.searchParams.get('waiting_room_pass')!, SECRET, 'default', Date.now());
    expect(pass).toMatchObject({ room: 'default', visitor: VISITOR });
    expect(pass!.expiresAt - pass!.issuedAt).toBeLessThanOrEqual(300);
  });

  // An attacker's page sends an admitted visitor to an enter address it made, naming the
  // attacker's visitor id and a page where the pass would stay in the address: refused unless
  // the site's connector signed that very room, visitor, target and time.
  test.each([
    ['no signature', async () => ({ target: `${SITE}/open`, visitor: VISITOR })],
    ['a signature of another secret', () => signed({ target: `${SITE}/open`, visitor: VISITOR }, { secret: `${SECRET}-not-it` })],
    ['a signature of another target', async () => ({ ...(await signed({ target: `${SITE}/checkout`, visitor: VISITOR })), target: `${SITE}/open` })],
    [
      'a signature of another visitor',
      async () => ({ ...(await signed({ target: `${SITE}/checkout`, visitor: VISITOR })), visitor: 'TheAttackersVisitorId0' }),
    ],
    ["another room's signature", () => signed({ target: `${SITE}/checkout`, visitor: VISITOR }, { room: 'other' })],
    ['a signature older than a day', () => signed({ target: `${SITE}/checkout`, visitor: VISITOR }, { ageSeconds: 24 * 3600 + 5 })],
  ])('refuse an admitted visitor an enter with %s, and hand no pass', async (_case, query) => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE });
    const entered = await enter(server, await query());
    expect(entered.status).toBe(403);
    expect(entered.headers.get('location')).toBeNull();
    expect(await entered.json()).toMatchObject({ error: { code: 'unsigned_enter' } });
  });

  test('answer 404 for a room the server does not have', async () => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE });
    const entered = await enter(server, { target: `${SITE}/checkout`, visitor: VISITOR }, 'nowhere');
    expect(entered.status).toBe(404);
    expect(await entered.json()).toMatchObject({ error: { code: 'unknown_room' } });
  });

  test('refuse to revoke with a pass that is not theirs, and say when a real one had nothing admitted', async () => {
    server = await startWaitingRoom({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE });
    const now = Math.floor(Date.now() / 1000);
    const forged = await signPass({ room: 'default', visitor: VISITOR, session: 's', issuedAt: now, expiresAt: now + 60 }, `${SECRET}-not-it`);
    const forgedAnswer = await revoke(server, JSON.stringify({ pass: forged }));
    expect(forgedAnswer.status).toBe(403);
    expect(await forgedAnswer.json()).toMatchObject({ error: { code: 'invalid_pass' } });
    expect((await revoke(server, JSON.stringify({ pass: 'not a pass' }))).status).toBe(403);
    expect((await revoke(server, '{"token": 1}')).status).toBe(400);
    const real = await signPass({ room: 'default', visitor: VISITOR, session: 'never-admitted', issuedAt: now, expiresAt: now + 60 }, SECRET);
    const realAnswer = await revoke(server, JSON.stringify({ pass: real }));
    expect(realAnswer.status).toBe(200);
    expect(await realAnswer.json()).toEqual({ revoked: false });
  });

  test("give the origin an admitted request's pass in gateway mode, and never a visitor's own", async () => {
    origin = await startTestOrigin();
    server = await startWaitingRoom({ UPSTREAM: origin.url, PASS_SECRET: SECRET });
    const made = 'eyJhbGciOiJub25lIn0.eyJhdWQiOiJkZWZhdWx0In0.';
    await fetch(`${server.url}/checkout`, { headers: { 'waiting-room-pass': made } });
    await fetch(`${server.url}/about`, { headers: { 'waiting-room-pass': made } });

    const [checkout] = origin.at('/checkout');
    const pass = await verifyPass(String(checkout.headers['waiting-room-pass']), SECRET, 'default', Date.now());
    expect(pass).toMatchObject({ room: 'default' });
    expect(pass!.visitor).toBe(pass!.session);
    expect(origin.at('/about')[0].headers['waiting-room-pass']).toBeUndefined();
  });
});

describe("the connectors' configuration", () => {
  test.each([
    [{ CONNECTOR_ORIGINS: SITE }, 'set PASS_SECRET'],
    [{ CONNECTOR_ORIGINS: `${SITE}/shop`, PASS_SECRET: SECRET }, 'is not an origin'],
    [{ CONNECTOR_ORIGINS: 'ftp://shop.example', PASS_SECRET: SECRET }, 'is not an origin'],
    [{ PASS_SECRET: 'too-short' }, 'PASS_SECRET'],
    [{ ROOMS: '[{"name": "a", "protect": ["/a"]}]', CONNECTOR_ORIGINS: SITE, PASS_SECRET: SECRET }, 'unset CONNECTOR_ORIGINS'],
    [{ ROOMS: '[{"name": "a"}]', PASS_SECRET: SECRET }, 'protect must be a non-empty array'],
  ])('refuses %o', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  test("takes a room that only connectors use, without any prefix of the gateway's", () => {
    const config = loadConfig({ ROOMS: `[{"name": "drop", "connectorOrigins": ["${SITE}", "http://127.0.0.1:3000"]}]`, PASS_SECRET: SECRET });
    expect(config.rooms[0]).toMatchObject({ name: 'drop', protect: [], connectorOrigins: [SITE, 'http://127.0.0.1:3000'] });
  });
});

describe("the connectors' enter route, while the room is full", () => {
  let server: StartedWithOrigin;

  beforeAll(async () => {
    server = await startServer({ PASS_SECRET: SECRET, CONNECTOR_ORIGINS: SITE, ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    const first = await new Visitor(server.url).get(`/queue/enter/default?${new URLSearchParams(await signed({ target: `${SITE}/first`, visitor: VISITOR }))}`);
    expect(first.status).toBe(303);
  });
  afterAll(() => server.close());

  /** What a browser sends when a page of the site, on a sibling host of the waiting room, sends the visitor to wait. */
  const FROM_THE_SITE = { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', accept: 'text/html' };

  it('should let the site, on another host of the same site, send a waiting visitor to another target', async () => {
    const ada = new Visitor(server.url);
    const enterFor = async (path: string) => `/queue/enter/default?${new URLSearchParams(await signed({ target: `${SITE}${path}`, visitor: VISITOR }))}`;

    const waiting = await ada.get(await enterFor('/checkout'), FROM_THE_SITE);
    const again = await ada.get(await enterFor('/tickets'), FROM_THE_SITE);

    expect(again.page?.queue).toMatchObject({ uuid: waiting.page?.queue.uuid, method: 'GET' });
    expect(again.page?.queue.uri).toContain(encodeURIComponent(`${SITE}/tickets`));
  });
});
