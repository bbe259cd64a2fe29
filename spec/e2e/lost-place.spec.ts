import type { Browser, Request, WebSocket } from 'playwright-core';
import { adminApi } from '../support/admin-api';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { startServerProcess, stopAllServerProcesses, type ServerProcess } from '../support/server-process';
import { openVisitor, type Visitor } from '../support/visitor-page';

const ADMIN_TOKEN = 'lost-place-admin-token-0123456789';
/** Long enough to read the message on a busy machine (the page's default is 3 s). */
const REJOIN_DELAY_MS = 5_000;
const ENV = {
  ACTIVE_LIMIT: '1',
  // Only the admin API releases, and nobody is released here.
  RELEASE_PER_MINUTE: '0',
  ADMIN_TOKEN,
  // A deployment's own session secret: the sessions outlive the restart; the line, kept in memory, does not.
  SESSION_SECRET: 'lost-place-session-secret-0123456789abcdef',
  // Every report is sent, so the test can see each reach the local error sink.
  SENTRY_SAMPLE_RATE: '1',
  // Polls every second or two: the spec's 5 s and 60 s would only make the test wait.
  PAGE_TIMINGS: JSON.stringify({ anonymousPoll: 1_000, poll: 2_000, rejoinDelay: REJOIN_DELAY_MS }),
};
const LOST_REPORT = 'Waiting room place lost: queue_info answered 404 unknown_uuid';

/** The uuid of the place a waiting page holds, from the config the server rendered into it. */
async function uuidOf(visitor: Visitor): Promise<string> {
  const config = await visitor.page.locator('#waiting-room-config').textContent();
  return JSON.parse(config ?? '{}').queue?.uuid;
}

/** The queue_info calls and the realtime sockets a tab makes from now on. */
function watchCalls(visitor: Visitor) {
  const queueInfos: Request[] = [];
  const sockets: WebSocket[] = [];
  visitor.page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/queue/info/')) queueInfos.push(request);
  });
  visitor.page.on('websocket', (socket) => sockets.push(socket));
  return { queueInfos, sockets };
}

describe('visitors whose place in line is lost when a server on the memory store is killed and started again', () => {
  let browser: Browser | undefined;
  let server: ServerProcess | undefined;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    server = await startServerProcess(ENV);
    browser = await launchBrowser();
  }, 60_000);

  afterAll(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await browser?.close();
    await stopAllServerProcesses();
  });

  const visit = async (url: string) => {
    const visitor = await openVisitor(browser!, url);
    visitors.push(visitor);
    return visitor;
  };

  test('a held GET is told, then joins the line again at a new place; a held POST is told and offered the way back, and stays', async () => {
    const { url, port } = server!;
    let admin = adminApi(url, ADMIN_TOKEN);
    await admin.fill(1);

    // A visitor held on a GET, first in line...
    const get = await visit(url);
    await get.page.goto(`${url}/checkout?item=42#pay`);
    await get.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(get.position()).resolves.toBe(1);
    const firstUuid = await uuidOf(get);
    expect(firstUuid).toMatch(/^[0-9a-f-]{36}$/);

    // ...and one held on a POST (the demo's order form), second.
    const post = await visit(url);
    await post.page.goto(`${url}/`);
    await post.page.fill('#quantity', '2');
    await post.page.click('button:has-text("Place the order")');
    await post.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(post.position()).resolves.toBe(2);
    expect(post.page.url()).toBe(`${url}/checkout?item=42`);
    expect(await admin.stats()).toMatchObject({ waiting: 2, active: 1 });
    const postCalls = watchCalls(post);
    const getNavigations = get.navigations.length;
    const postNavigations = post.navigations.length;

    // Each page loads its error reporting once started up; the kill waits for it, so that the
    // reports looked for below do not hang on that load racing the kill (the SDK's global marks it).
    for (const visitor of [get, post]) await visitor.page.waitForFunction(() => '__SENTRY__' in window, undefined, { timeout: 15_000 });

    // The server dies with no chance to save its line, and starts again on the same port, full again.
    await server!.kill();
    server = await startServerProcess(ENV, port);
    expect(server.url).toBe(url);
    admin = adminApi(url, ADMIN_TOKEN);
    await admin.fill(1);
    expect(await admin.stats()).toMatchObject({ waiting: 0, active: 1 });

    // The GET visitor is told why, and that the page takes it back in line...
    const getLost = get.page.locator('.wr-lost');
    await getLost.waitFor({ timeout: 30_000 });
    await expect(getLost.locator('h1').textContent()).resolves.toBe('Your place in line was lost');
    await expect(getLost.textContent()).resolves.toMatch(/The waiting room restarted or your place expired\.\s*Taking you back in line…/);
    expect(await getLost.getByRole('button').count()).toBe(0);

    // ...then loads the held address again: the server holds it afresh, at a new place.
    await eventually(
      'the GET visitor to load the held address again',
      async () => get.navigations.length,
      (count) => count > getNavigations,
      30_000,
    );
    await get.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    expect(get.page.url()).toBe(`${url}/checkout?item=42#pay`);
    await expect(get.position()).resolves.toBe(1);
    const secondUuid = await uuidOf(get);
    expect(secondUuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(secondUuid).not.toBe(firstUuid);
    expect(await admin.stats()).toMatchObject({ waiting: 1, active: 1 });

    // The POST visitor is told why, and offered the way back: to the form, or to the site root.
    const postLost = post.page.locator('.wr-lost');
    await postLost.waitFor({ timeout: 30_000 });
    await expect(postLost.locator('h1').textContent()).resolves.toBe('Your place in line was lost');
    await expect(postLost.textContent()).resolves.toContain('Your form was not sent. Go back to send it again.');
    await expect(postLost.getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).resolves.toBe('/');
    const goBack = postLost.getByRole('button', { name: 'Go back' });
    await expect(goBack.isVisible()).resolves.toBe(true);

    // The page let go of everything at the loss: no more polls, its realtime connection closed.
    await eventually('the POST page to close its realtime connection', async () => postCalls.sockets.every((socket) => socket.isClosed()), Boolean, 15_000);
    const pollsAtLoss = postCalls.queueInfos.length;
    // That it does not navigate by itself can only be seen over time: there is nothing to wait
    // for. It lost its place when the GET visitor did (both poll every second), and that one has
    // since been taken back; one more rejoin delay is waited out all the same.
    await post.page.waitForTimeout(REJOIN_DELAY_MS);
    expect(post.navigations).toHaveLength(postNavigations);
    expect(post.page.url()).toBe(`${url}/checkout?item=42`);
    expect(postCalls.queueInfos).toHaveLength(pollsAtLoss);

    // "Go back" leads to the form the visitor came from.
    await goBack.click();
    await post.arrivesAt(`${url}/`, 15_000);
    await post.page.locator('#quantity').waitFor({ timeout: 15_000 });

    // Each lost place was reported once, as a warning, to the restarted server's error sink.
    const reports = await eventually(
      'the two lost-place reports',
      () => admin.errors(),
      (list) => list.length >= 2,
      20_000,
      250,
    );
    expect(reports.map(({ message, level }) => ({ message, level }))).toEqual([
      { message: LOST_REPORT, level: 'warning' },
      { message: LOST_REPORT, level: 'warning' },
    ]);
    expect(get.offSite).toEqual([]);
    expect(post.offSite).toEqual([]);
  }, 180_000);
});
