import { PASS_COOKIE, PASS_PARAMETER, VISITOR_COOKIE } from '@waiting-room/connector';
import { CONFIG_ELEMENT_ID } from '@waiting-room/streams/contract';
import { eventually } from '../support/eventually';
import { rawRequest } from '../support/raw-http';
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { CookieJar } from './support/cookie-jar';
import { startFeedGate, type FeedGate } from './support/feed-gate';
import { startWorkerOrigin, type WorkerOrigin } from './support/worker-origin';
import { bundleWorker, exampleSettings, onFreePort, startExampleWorker, startWorkerd, type WorkerdServer } from './support/workerd';

const SECRET = 'a-pass-secret-shared-with-the-worker-in-workerd';

// The real waiting room serves its page: built before a test starts one.
beforeAll(() => ensureWaitingPageBuilt(), 180_000);

/**
 * What the Worker adds to the connector, in workerd, with the real waiting room: the trip of a
 * visitor request by request, the origin's revoke command, the body of an admitted form, and a
 * deployment without its secret.
 */
describe('the Worker in workerd with the waiting room', () => {
  let server: WaitingRoomServer | undefined;
  let origin: WorkerOrigin;
  let worker: WorkerdServer | undefined;
  let gate: FeedGate | undefined;
  /** The Worker's address. */
  let site: string;

  beforeAll(async () => {
    origin = await startWorkerOrigin();
  });

  /**
   * The room of wrangler.toml with one place, and the example Worker in front of the origin;
   * with `gate`, the Worker reaches the waiting room through a FeedGate.
   */
  async function start(options: { revocationSeconds?: number; gate?: boolean } = {}): Promise<void> {
    const { vars } = await exampleSettings();
    await onFreePort(async (port) => {
      site = `http://127.0.0.1:${port}`;
      const ROOMS = JSON.stringify([{ name: vars.WAITING_ROOM_ROOM, protect: ['/checkout'], activeLimit: 1, connectorOrigins: [site] }]);
      const room = await startWaitingRoom({
        ROOMS,
        RELEASE_PER_MINUTE: '0',
        PASS_SECRET: SECRET,
        PASS_REVOCATION_SECONDS: String(options.revocationSeconds ?? 1),
      });
      try {
        gate = options.gate ? await startFeedGate(room.url) : undefined;
        worker = await startExampleWorker({ port, secret: SECRET, vars: { WAITING_ROOM_URL: gate?.url ?? room.url, ORIGIN_URL: origin.url } });
      } catch (error) {
        await gate?.close();
        await room.close();
        throw error;
      }
      server = room;
    });
  }

  afterEach(async () => {
    await worker?.close();
    await gate?.close();
    await server?.close();
    worker = server = gate = undefined;
  });

  afterAll(async () => {
    await origin?.close();
  });

  test('sends a visitor without a pass to wait, and back admitted once released, exactly once', async () => {
    await start();
    await server!.fill(1);
    const browser = new CookieJar();
    const admittedBefore = origin.admitted();

    const first = await browser.get(`${site}/checkout?item=7`);
    expect(first.status).toBe(303);
    const enter = new URL(first.headers.get('location')!);
    expect(enter.origin + enter.pathname).toBe(`${server!.url}/queue/enter/shop`);
    expect(enter.searchParams.get('target')).toBe(`${site}/checkout?item=7`);
    expect(enter.searchParams.get('visitor')).toBe(browser.value(site, VISITOR_COOKIE));

    const waiting = await browser.get(enter.href);
    expect(waiting.status).toBe(200);
    expect(await waiting.text()).toContain(`id="${CONFIG_ELEMENT_ID}"`);

    expect(await server!.release(1)).toHaveLength(1);
    const back = new URL((await browser.get(enter.href)).headers.get('location')!);
    expect(back.origin + back.pathname).toBe(`${site}/checkout`);
    const pass = back.searchParams.get(PASS_PARAMETER)!;
    const landed = await browser.get(back.href);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(`${site}/checkout?item=7`);
    expect(browser.value(site, PASS_COOKIE)).toBe(pass);
    expect(origin.admitted()).toBe(admittedBefore);

    const checkout = await browser.get(`${site}/checkout?item=7`);
    expect(checkout.status).toBe(200);
    expect(await checkout.text()).toContain(`admitted ${admittedBefore + 1}`);
    // The site behind the Worker got the request as asked, the pass in its cookie.
    expect(origin.served.at(-1)).toMatchObject({ method: 'GET', url: '/checkout?item=7' });
    expect(origin.served.at(-1)?.cookie).toContain(`${PASS_COOKIE}=${pass}`);
  });

  test("ends the admission when the origin answers with the revoke command: refused at once, the slot the next visitor's after the bound", async () => {
    await start();
    const first = new CookieJar();
    const enter = (await first.get(`${site}/checkout`)).headers.get('location')!;
    await first.get((await first.get(enter)).headers.get('location')!);
    expect(first.value(site, PASS_COOKIE)).toBeDefined();
    expect((await server!.stats()).active).toBe(1);

    const second = new CookieJar();
    const secondEnter = (await second.get(`${site}/checkout`)).headers.get('location')!;
    expect((await second.get(secondEnter)).status).toBe(200);

    const pass = first.value(site, PASS_COOKIE)!;
    const done = await first.get(`${site}/checkout/done`);
    expect(done.status).toBe(200);
    expect(await done.text()).toBe('<h1>Thank you</h1>');
    expect(done.headers.get('waiting-room-command')).toBeNull();
    expect(first.value(site, PASS_COOKIE)).toBeUndefined();
    expect((await first.get(`${site}/checkout`)).status).toBe(303);
    // The same pass sent again is refused at once by the Worker that revoked it.
    first.set(site, PASS_COOKIE, pass);
    expect((await first.get(`${site}/checkout`)).status).toBe(303);
    // Its slot is freed once no other process can still honour it (PASS_REVOCATION_SECONDS).
    await eventually(
      'the revoked slot freed',
      () => server!.stats(),
      (stats) => stats.active === 0,
    );
    const metrics = await (await fetch(`${server!.url}/metrics`, { headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}` } })).text();
    expect(metrics).toMatch(/^waiting_room_revoked_total\{room="shop"\} 1$/m);
  });

  test("gives the origin's answer when the waiting room cannot be reached to revoke, and keeps the pass", async () => {
    await start();
    const browser = new CookieJar();
    const enter = (await browser.get(`${site}/checkout`)).headers.get('location')!;
    await browser.get((await browser.get(enter)).headers.get('location')!);
    const pass = browser.value(site, PASS_COOKIE);
    expect(pass).toBeDefined();
    await server!.close();
    server = undefined;

    const done = await browser.get(`${site}/checkout/done`);
    expect(done.status).toBe(200);
    expect(await done.text()).toBe('<h1>Thank you</h1>');
    expect(done.headers.get('waiting-room-command')).toBeNull();
    expect(browser.value(site, PASS_COOKIE)).toBe(pass);
    await eventually(
      "the failed revoke in the Worker's log",
      async () => worker!.output(),
      (output) => output.includes('The waiting room did not revoke the pass'),
    );
  });

  // workerd ends a request's I/O with its answer: a read of the feed that a request began and did
  // not wait for may never settle, and a later request must not wait for it.
  test('reads the feed again for a request when a read an earlier request began is still unanswered', async () => {
    await start({ revocationSeconds: 4, gate: true });
    const browser = new CookieJar();
    const enter = (await browser.get(`${site}/checkout`)).headers.get('location')!;
    // The landing checks the pass, and reads the feed first (the deny list is empty and old).
    await browser.get((await browser.get(enter)).headers.get('location')!);
    expect(gate!.reads()).toBe(1);

    // Past half the bound, an admitted request begins a read and answers without waiting for it.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    gate!.hold();
    expect((await browser.get(`${site}/checkout?item=1`)).status).toBe(200);
    await eventually(
      'a read begun',
      async () => gate!.reads(),
      (reads) => reads === 2,
    );

    // Past the bound, the next admitted request waits for a read of its own, and is answered once it is.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const later = browser.get(`${site}/checkout?item=2`);
    await eventually(
      'a read of its own',
      async () => gate!.reads(),
      (reads) => reads === 3,
    );
    gate!.open();
    const answer = await later;
    expect(answer.status).toBe(200);
    expect(await answer.text()).toContain('admitted');
  });

  test("passes an admitted form's body on to the origin untouched", async () => {
    await start();
    const browser = new CookieJar();
    const enter = (await browser.get(`${site}/checkout`)).headers.get('location')!;
    await browser.get((await browser.get(enter)).headers.get('location')!);
    const cookie = `${VISITOR_COOKIE}=${browser.value(site, VISITOR_COOKIE)}; ${PASS_COOKIE}=${browser.value(site, PASS_COOKIE)}`;
    const answer = await rawRequest(worker!.port, {
      method: 'POST',
      target: '/checkout/pay',
      headers: { host: new URL(site).host, 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: 'card=4242&amount=12.50',
    });
    expect(answer.status).toBe(200);
    expect(origin.served.at(-1)).toMatchObject({ method: 'POST', url: '/checkout/pay', body: 'card=4242&amount=12.50' });
  });

  test('answers 500 without reaching the origin when the secret is not set, and says why in its log', async () => {
    const { main, compatibilityDate, vars } = await exampleSettings();
    worker = await startWorkerd({ script: await bundleWorker(main), compatibilityDate, bindings: { ...vars, ORIGIN_URL: origin.url } });
    const before = origin.served.length;
    const answer = await fetch(`${worker.url}/`);
    expect(answer.status).toBe(500);
    expect(await answer.text()).toBe('The site is not configured.');
    expect(origin.served).toHaveLength(before);
    // workerd writes the Worker's console to its own output, which may come after the answer.
    await eventually(
      "the reason in the Worker's log",
      async () => worker!.output(),
      (output) => output.includes('secret: set the binding WAITING_ROOM_PASS_SECRET'),
    );
  });
});
