import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { PASS_COOKIE } from '@waiting-room/connector';
import { waitingRoom, type Admission } from '@waiting-room/connector/fastify';

declare module 'fastify' {
  interface FastifyRequest {
    waitingRoom?: Admission;
  }
}
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { CookieJar } from './support/cookie-jar';

const SECRET = 'a-pass-secret-shared-with-the-fastify-site';

/** A real Fastify 5 site with the connector's hook, and the real waiting room. */
describe('the Fastify connector with the waiting room', () => {
  let server: WaitingRoomServer;
  let site: FastifyInstance;
  let siteUrl: string;
  let admitted = 0;

  beforeAll(async () => {
    await ensureWaitingPageBuilt();
    // The site listens first, so that the waiting room can name its origin; the hook reads the
    // waiting room's address once it is known.
    site = Fastify();
    let hook: ReturnType<typeof waitingRoom> | undefined;
    site.addHook('onRequest', (request, reply) => hook!(request, reply));
    site.get('/', async () => 'home');
    site.get('/checkout', async (request) => {
      admitted += 1;
      return `checkout for ${request.waitingRoom?.pass.visitor}`;
    });
    site.get('/checkout/done', async (request) => ({ revoked: await request.waitingRoom!.revoke() }));
    await site.listen({ port: 0, host: '127.0.0.1' });
    siteUrl = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PASS_SECRET: SECRET, CONNECTOR_ORIGINS: siteUrl });
    hook = waitingRoom({ waitingRoom: server.url, room: 'default', secret: SECRET, protect: ['/checkout'] });
  });

  afterAll(async () => {
    await site?.close();
    await server?.close();
  });

  test('lets open paths through, admits a visitor through the waiting room, and revokes them', async () => {
    const browser = new CookieJar();
    expect((await browser.get(`${siteUrl}/`)).status).toBe(200);

    const enter = await browser.get(`${siteUrl}/Checkout/`);
    expect(enter.status).toBe(303);
    const back = await browser.get(enter.headers.get('location')!);
    expect(back.status).toBe(303);
    const landed = await browser.get(back.headers.get('location')!);
    expect(landed.headers.get('location')).toBe(`${siteUrl}/Checkout/`);
    const checkout = await browser.get(`${siteUrl}/checkout`);
    expect(checkout.status).toBe(200);
    expect(await checkout.text()).toMatch(/^checkout for [\w-]{22}$/);
    expect(admitted).toBe(1);

    const pass = browser.value(siteUrl, PASS_COOKIE)!;
    const done = await browser.get(`${siteUrl}/checkout/done`);
    expect(await done.json()).toEqual({ revoked: true });
    expect(browser.value(siteUrl, PASS_COOKIE)).toBeUndefined();
    // The slot stays counted while other processes may not yet know (PASS_REVOCATION_SECONDS).
    expect((await server.stats()).active).toBe(1);
    expect((await browser.get(`${siteUrl}/checkout`)).status).toBe(303);
    // The same pass sent again is refused at once.
    browser.set(siteUrl, PASS_COOKIE, pass);
    expect((await browser.get(`${siteUrl}/checkout`)).status).toBe(303);
    expect(admitted).toBe(1);
  });
});
