import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/** The console's report view in Chromium against the real server: the line's figures, its charts and its CSV. */
describe("the console's report in a browser", () => {
  let browser: Browser;
  let server: WaitingRoomServer;

  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await server?.close();
    await browser?.close();
  });

  it('should show the figures and charts of the report, and link its CSV', async () => {
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await server.fill(1);
    // Three visitors take a place (each request without a cookie is a new session); two are released.
    for (let i = 0; i < 3; i++) {
      // Held as an API client: its answer is the page's config, with its place.
      const held = (await (await fetch(server.at('/checkout'))).json()) as { queue: { position: number } };
      expect(held.queue.position).toBe(i + 1);
    }
    await server.release(2);

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-US' });
    const console = await context.newPage();
    const errors: string[] = [];
    console.on('pageerror', (error) => errors.push(error.message));
    await console.goto(server.at('/admin/'));
    await console.getByLabel('Admin token').fill(E2E_ADMIN_TOKEN);
    await console.getByRole('button', { name: 'Sign in' }).click();
    await console.getByRole('button', { name: 'Load the report' }).click();

    const figure = (name: string) => console.locator(`.ac-report [data-figure="${name}"]`).first();
    await figure('report-arrivals').waitFor({ timeout: 15_000 });
    await expect(figure('report-arrivals').innerText()).resolves.toBe('3');
    await expect(figure('report-admitted').innerText()).resolves.toBe('2');
    await expect(figure('report-waiting').innerText()).resolves.toBe('1');
    await expect(figure('report-peak').innerText()).resolves.toMatch(/^[0-3]$/);
    // Two charts: arrivals and the line by minute; waits and the estimate's error by minutes.
    await expect(console.locator('.ac-report [role="img"] canvas').count()).resolves.toBe(2);
    await expect(console.locator('.ac-report [role="img"]').first().getAttribute('aria-label')).resolves.toMatch(
      /^Arrivals and the line by minute: 3 arrivals/,
    );
    const csv = await console.getByRole('link', { name: 'Download CSV' }).getAttribute('href');
    expect(csv).toBe('/admin/report?room=default&format=csv');
    // The console's session reads the CSV too.
    const rows = await console.evaluate(async (href) => (await (await fetch(href)).text()).trim().split('\r\n').length, csv as string);
    expect(rows).toBe(4);
    expect(errors).toEqual([]);
    await context.close();
  });
});
