import { PASS_COOKIE, PASS_PARAMETER, VISITOR_COOKIE } from '@waiting-room/connector';
import { CONFIG_ELEMENT_ID } from '@waiting-room/streams/contract';
import { CATALOGUES } from '../../locales';
import { escapeHtml } from '../../server/http/html';
import { eventually } from '../support/eventually';
import { ensureWaitingPageBuilt } from '../support/waiting-page-built';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { CookieJar } from './support/cookie-jar';
import { startExpressSite, type ExpressSite } from './support/express-site';

const SECRET = 'a-pass-secret-shared-with-the-express-site';
const FR_UNSIGNED_ENTER = escapeHtml(CATALOGUES.fr.messages['error.explain.unsigned_enter']);

/**
 * A real Express 5 site with the connector, and the real waiting room: the whole trip of a
 * visitor, over HTTP, one request at a time, as a browser makes it.
 */
describe('the Express connector with the waiting room', () => {
  let server: WaitingRoomServer;
  let site: ExpressSite;

  beforeAll(async () => {
    await ensureWaitingPageBuilt();
  });

  /** The waiting room with one slot, taken, and the site of `origins` allowed to send visitors. */
  async function start(env: Record<string, string> = {}, siteSecret = SECRET, log?: { write(line: string): void }): Promise<void> {
    // The site's address is known once it listens, the waiting room's once it does: the site
    // reads the room's at its first request.
    site = await startExpressSite({ waitingRoom: () => server.url, secret: siteSecret });
    server = await startWaitingRoom(
      { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PASS_SECRET: SECRET, CONNECTOR_ORIGINS: site.url, ...(log && { LOG_LEVEL: 'warn' }), ...env },
      log ? { logStream: log } : {},
    );
  }

  afterEach(async () => {
    await site?.close();
    await server?.close();
  });

  test('sends a visitor without a pass to wait, and back admitted once released, exactly once', async () => {
    await start();
    await server.fill(1);
    const browser = new CookieJar();

    const first = await browser.get(`${site.url}/checkout?item=7`);
    expect(first.status).toBe(303);
    const enter = new URL(first.headers.get('location')!);
    expect(enter.origin + enter.pathname).toBe(`${server.url}/queue/enter/default`);
    expect(enter.searchParams.get('target')).toBe(`${site.url}/checkout?item=7`);
    expect(enter.searchParams.get('visitor')).toBe(browser.value(site.url, VISITOR_COOKIE));

    const waiting = await browser.get(enter.href);
    expect(waiting.status).toBe(200);
    expect(await waiting.text()).toContain(`id="${CONFIG_ELEMENT_ID}"`);
    expect(site.admitted()).toBe(0);

    expect(await server.release(1)).toHaveLength(1);
    const released = await browser.get(enter.href);
    expect(released.status).toBe(303);
    const back = new URL(released.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(`${site.url}/checkout`);
    expect(back.searchParams.get('item')).toBe('7');
    const pass = back.searchParams.get(PASS_PARAMETER)!;
    expect(pass.split('.')).toHaveLength(3);

    const landed = await browser.get(back.href);
    expect(landed.status).toBe(303);
    expect(landed.headers.get('location')).toBe(`${site.url}/checkout?item=7`);
    expect(browser.value(site.url, PASS_COOKIE)).toBe(pass);
    expect(site.admitted()).toBe(0);

    const checkout = await browser.get(`${site.url}/checkout?item=7`);
    expect(checkout.status).toBe(200);
    expect(await checkout.text()).toContain('admitted 1 until');
    expect(site.admitted()).toBe(1);
  });

  test("admits the next requests with no call to the waiting room: they pass with the room's server gone", async () => {
    await start();
    const browser = new CookieJar();
    const enter = (await browser.get(`${site.url}/checkout`)).headers.get('location')!;
    // A free slot: the room lets the visitor straight back.
    const back = (await browser.get(enter)).headers.get('location')!;
    expect((await browser.get(back)).status).toBe(303);
    await server.close();

    for (let i = 0; i < 3; i++) expect((await browser.get(`${site.url}/checkout`)).status).toBe(200);
    expect(site.admitted()).toBe(3);
  });

  test('refuses a pass in a shared link, a forged pass, and sends an API client a held answer', async () => {
    await start();
    const visitor = new CookieJar();
    const enter = (await visitor.get(`${site.url}/checkout`)).headers.get('location')!;
    const link = (await visitor.get(enter)).headers.get('location')!;

    // Another browser opens the link with the pass in it: it is sent to wait, the pass dropped.
    const other = new CookieJar();
    const shared = await other.get(link);
    expect(shared.status).toBe(303);
    const sentTo = new URL(shared.headers.get('location')!);
    expect(sentTo.pathname).toBe('/queue/enter/default');
    expect(sentTo.searchParams.get('target')).toBe(`${site.url}/checkout`);
    expect(other.value(site.url, PASS_COOKIE)).toBeUndefined();

    // The same browser with a pass it made up, or the visitor's pass altered.
    other.set(site.url, PASS_COOKIE, `${link.split(`${PASS_PARAMETER}=`)[1].slice(0, -2)}xx`);
    expect((await other.get(`${site.url}/checkout`)).status).toBe(303);

    const api = await new CookieJar().get(`${site.url}/checkout`, { accept: 'application/json', 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty' });
    expect(api.status).toBe(503);
    expect(api.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = (await api.json()) as { error: string; waitingRoom: string };
    expect(body.error).toBe('waiting_room');
    expect(body.waitingRoom.startsWith(`${server.url}/queue/enter/default?`)).toBe(true);
    expect(site.admitted()).toBe(0);
  });

  test("ends the admission when the site revokes the pass: refused at once, the slot the next visitor's after the bound", async () => {
    await start({ PASS_REVOCATION_SECONDS: '1' });
    const first = new CookieJar();
    const enter = (await first.get(`${site.url}/checkout`)).headers.get('location')!;
    await first.get((await first.get(enter)).headers.get('location')!);
    expect((await server.stats()).active).toBe(1);

    // Someone else waits: the room is full.
    const second = new CookieJar();
    const secondEnter = (await second.get(`${site.url}/checkout`)).headers.get('location')!;
    expect((await second.get(secondEnter)).status).toBe(200);

    const pass = first.value(site.url, PASS_COOKIE)!;
    const done = await first.get(`${site.url}/checkout/done`);
    expect(await done.text()).toContain('<p id="revoked">true</p>');
    expect(first.value(site.url, PASS_COOKIE)).toBeUndefined();
    expect((await first.get(`${site.url}/checkout`)).status).toBe(303);
    // The same pass sent again is refused at once by the process that revoked it.
    first.set(site.url, PASS_COOKIE, pass);
    expect((await first.get(`${site.url}/checkout`)).status).toBe(303);
    // Its slot is freed once no other process can still honour it (PASS_REVOCATION_SECONDS).
    await eventually(
      'the revoked slot freed',
      () => server.stats(),
      (stats) => stats.active === 0,
    );
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: 'Bearer e2e-admin-token-of-24-characters' } })).text();
    expect(metrics).toMatch(/^waiting_room_revoked_total\{room="default"\} 1$/m);
  });

  test('a site that checks passes with another secret: the visitor is shown why at once, and the log names PASS_SECRET', async () => {
    const log = { text: '', write: (line: string) => void (log.text += line) };
    await start({}, 'another-secret-than-the-waiting-room-has', log);
    const browser = new CookieJar();
    const enter = (await browser.get(`${site.url}/checkout`, { 'accept-language': 'fr' })).headers.get('location')!;
    const answer = await browser.get(enter, { 'accept-language': 'fr' });
    // The enter address the connector signed does not verify: no pass is handed, so no loop.
    expect(answer.status).toBe(403);
    const page = await answer.text();
    expect(page).toContain('<html lang="fr"');
    expect(page).toContain(FR_UNSIGNED_ENTER);
    expect(log.text).toContain(`the site at ${site.url} sent a visitor with an enter address signed with another secret than PASS_SECRET`);
    expect(site.admitted()).toBe(0);
  });

  test('a site whose origin is not in CONNECTOR_ORIGINS: the visitor gets a page that says so, and the log names the setting', async () => {
    const log = { text: '', write: (line: string) => void (log.text += line) };
    await start({ CONNECTOR_ORIGINS: 'http://localhost:1' }, SECRET, log);
    const browser = new CookieJar();
    const enter = (await browser.get(`${site.url}/checkout`)).headers.get('location')!;
    const refused = await browser.get(enter, { 'accept-language': 'de' });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('<html lang="de"');
    expect(page).toContain('Dieser Warteraum ist nicht dafür eingerichtet');
    expect(log.text).toContain(`a connector sent a visitor from ${site.url}`);
    expect(log.text).toContain('CONNECTOR_ORIGINS');
  });
});
