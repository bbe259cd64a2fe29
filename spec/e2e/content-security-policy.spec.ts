import type { ConsoleMessage } from 'playwright-core';
import { eventually } from '../support/eventually';
import { useWaitingRoom } from '../support/waiting-room-scenario';

/** What Chromium says in the console when a policy blocks something. */
const VIOLATION = /Content Security Policy|Refused to (load|execute|apply|connect|create|frame)/i;

// Starting the server and Chromium may take longer than a hook's 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('the waiting page under its Content-Security-Policy', () => {
  // The bot check's workers, the error reporting's lazy chunk and the realtime socket all run.
  const room = useWaitingRoom({ BOT_CHALLENGE: 'pow', ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SENTRY_SAMPLE_RATE: '1' });

  test('solves the bot check, waits, loads its error reporting and replays, with nothing refused', async () => {
    const { server } = room;
    await server.fill(1);
    const visitor = await room.visit();
    const { page } = visitor;
    const messages: string[] = [];
    const listen = (message: ConsoleMessage) => messages.push(message.text());
    page.on('console', listen);
    page.on('worker', (worker) => worker.on('console', listen));
    page.on('pageerror', (error) => messages.push(`page error: ${error.message}`));

    const held = page.waitForResponse((response) => response.url() === server.at('/checkout?item=7'));
    await page.goto(server.at('/checkout?item=7'));
    const headers = (await held).headers();
    expect(headers['content-security-policy']).toContain("script-src 'self'");
    expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
    await page.locator('.wr-waiting').waitFor({ timeout: 30_000 });
    expect(await visitor.position()).toBe(1);
    await page.waitForFunction(() => '__SENTRY__' in window, undefined, { timeout: 15_000 });

    await server.release(1);
    await visitor.arrivesAt(server.at('/checkout?item=7'), 15_000);
    await page.locator('h1', { hasText: 'Checkout' }).waitFor();

    expect(messages.filter((text) => VIOLATION.test(text))).toEqual([]);
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);

  test('refuses to be shown in a frame, even by a page of its own site', async () => {
    const { server } = room;
    const visitor = await room.visit();
    const messages: string[] = [];
    visitor.page.on('console', (message) => messages.push(message.text()));
    await visitor.page.goto(server.at('/assets/none'));

    await visitor.page.setContent(`<iframe src="${server.at('/queue/nowhere')}"></iframe>`);

    await eventually(
      'the refusal in the console',
      async () => messages,
      (seen) => seen.some((text) => /frame-ancestors/.test(text)),
    );
    const framed = visitor.page.frames().find((frame) => frame !== visitor.page.mainFrame());
    // Chromium shows its own error page in the frame, not ours.
    expect(framed?.url()).not.toBe(server.at('/queue/nowhere'));
    expect(await framed?.content()).not.toContain('Error 404');
  }, 30_000);
});
