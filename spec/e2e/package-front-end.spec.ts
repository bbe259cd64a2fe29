import path from 'node:path';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { CONFIG_ELEMENT_ID } from '@waiting-room/streams/contract';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { packAndInstall, type InstalledPackage } from '../support/packed-package';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

const ACTIVE_LIMIT = 1;
const CONFIG_ELEMENT = new RegExp(`<script id="${CONFIG_ELEMENT_ID}" type="application/json">([\\s\\S]*?)</script>`);

/**
 * A front end an outside developer writes from the package's README alone: the README's own
 * examples (spec/package/consumer), bundled by esbuild from the packed tarball installed into an
 * empty project, with pusher-js and no React, run in Chromium through the real gateway.
 */
describe('a vanilla front end built from the published package and its README', () => {
  let pkg: InstalledPackage | undefined;
  let bundles: { page: string; app: string };
  let browser: Browser;
  let origin: TestOrigin;
  let server: WaitingRoomServer;
  let visitor: Visitor | undefined;

  beforeAll(async () => {
    pkg = await packAndInstall();
    const bundle = async (entry: string) => {
      const result = await build({
        entryPoints: [path.join(pkg!.consumer, entry)],
        absWorkingDir: pkg!.consumer,
        bundle: true,
        format: 'iife',
        platform: 'browser',
        target: 'es2022',
        write: false,
        logLevel: 'silent',
      });
      return result.outputFiles[0].text;
    };
    bundles = { page: await bundle('waiting-page.ts'), app: await bundle('app.ts') };
    // A page the test fulfils has no network address of its own, which Chromium counts as a public
    // one: its local-network checks would then refuse the loopback realtime server. They are
    // about a page's address, which is not what this test is about.
    browser = await launchBrowser(['--disable-features=LocalNetworkAccessChecks']);
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    await pkg?.remove();
  });

  beforeEach(async () => {
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(ACTIVE_LIMIT);
  });

  afterEach(async () => {
    await visitor?.close();
    visitor = undefined;
    await server?.close();
    await origin?.close();
  }, 30_000);

  /**
   * The front end stands for a site's own page, which the waiting room's own pages' policy
   * (`script-src 'self'`, kept on the answers this test rewrites) does not govern.
   */
  const OWN_PAGE = { bypassCSP: true };

  /**
   * A visitor whose waiting page is the front end's: the gateway's answer to a held navigation
   * keeps its status, headers and config, and its page becomes the README's, as a site that serves
   * its own waiting page would answer. Everything else goes through untouched.
   */
  async function visitWithOwnPage(): Promise<Page> {
    visitor = await openVisitor(browser, server.url, OWN_PAGE);
    const { page } = visitor;
    await page.route(
      (url) => url.origin === new URL(server.url).origin,
      async (route) => {
        if (!route.request().isNavigationRequest()) return route.fallback();
        const response = await route.fetch({ maxRedirects: 0 });
        const config = CONFIG_ELEMENT.exec(await response.text())?.[1];
        if (!config) return route.fulfill({ response });
        const html = `<!doctype html><html><head><title>Waiting</title></head><body><script id="${CONFIG_ELEMENT_ID}" type="application/json">${config}</script><script>${bundles.page}</script></body></html>`;
        return route.fulfill({ response, body: html });
      },
    );
    return page;
  }

  /** The requests the origin received at `pathname`, by method. */
  const received = (pathname: string, method: string) => origin.at(pathname).filter((one) => one.method === method);

  test('replays a held GET whose target is the same address with its hash: the origin gets it once', async () => {
    const page = await visitWithOwnPage();
    const before = received('/checkout', 'GET').length;

    await page.goto(server.at('/checkout?item=42#pay'));
    await page.locator('body', { hasText: 'You are number 1 in line' }).waitFor({ timeout: 15_000 });
    expect(received('/checkout', 'GET')).toHaveLength(before);

    expect(await server.release(1)).toHaveLength(1);
    await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    expect(page.url()).toBe(server.at('/checkout?item=42#pay'));
    await expect(page.locator('body').innerText()).resolves.toMatch(/a GET request/);
    // Once, and no second time a moment later.
    await page.waitForTimeout(1000);
    expect(received('/checkout', 'GET')).toHaveLength(before + 1);
    expect(received('/checkout', 'GET').at(-1)?.url).toBe('/checkout?item=42');
    expect(visitor!.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 90_000);

  test("replays a signed-in visitor's held POST once, the private channel authorized at the config's endpoint", async () => {
    const page = await visitWithOwnPage();
    const authorized: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/pusher/auth') authorized.push(new URLSearchParams(request.postData() ?? '').get('channel_name') ?? '');
    });
    const signIn = await page.request.post(server.at('/login'), { form: { name: 'Ada' }, maxRedirects: 0 });
    expect(signIn.status()).toBe(303);

    await page.goto(server.at('/'));
    await page.evaluate(() => {
      const form = Object.assign(document.createElement('form'), { method: 'POST', action: '/checkout?item=42' });
      for (const [name, value] of [
        ['quantity', '3'],
        ['note', 'gift'],
      ])
        form.append(Object.assign(document.createElement('input'), { name, value }));
      document.body.append(form);
      form.submit();
    });
    await page.locator('body', { hasText: 'You are number 1 in line' }).waitFor({ timeout: 15_000 });
    expect(authorized).toEqual([expect.stringMatching(/^private-App\.User\.\d+\./)]);
    expect(received('/checkout', 'POST')).toHaveLength(0);

    expect(await server.release(1)).toHaveLength(1);
    await page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    await expect(page.locator('body').innerText()).resolves.toMatch(/a POST request/);
    await page.waitForTimeout(1000);
    const posts = received('/checkout', 'POST');
    expect(posts).toHaveLength(1);
    expect(Object.fromEntries(new URLSearchParams(posts[0].body.toString()))).toEqual({ quantity: '3', note: 'gift' });
    expect(visitor!.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 90_000);

  test("replays a single-page app's held fetch once, with the README's heldFetch", async () => {
    visitor = await openVisitor(browser, server.url, OWN_PAGE);
    const { page } = visitor;
    await page.goto(server.at('/app'));
    await page.addScriptTag({ content: bundles.app });

    const answer = page.evaluate(async () => {
      const send = (globalThis as unknown as { heldFetch: (url: string, init: RequestInit) => Promise<Response> }).heldFetch;
      const response = await send('/checkout/api?item=42', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'quantity=2',
      });
      return { status: response.status, text: await response.text() };
    });
    await eventually(
      'the fetch held in line',
      () => server.stats(),
      (stats) => stats.waiting === 1,
    );
    expect(received('/checkout/api', 'POST')).toHaveLength(0);

    expect(await server.release(1)).toHaveLength(1);
    await expect(answer).resolves.toEqual({ status: 200, text: expect.stringMatching(/a <strong>POST<\/strong> request/) });
    await page.waitForTimeout(1000);
    const posts = received('/checkout/api', 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0].body.toString()).toBe('quantity=2');
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 90_000);
});
