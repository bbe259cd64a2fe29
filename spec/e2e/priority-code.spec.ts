import type { Browser } from 'playwright-core';
import { TIMINGS } from '@waiting-room/streams/contract';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { E2E_ADMIN_TOKEN, startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';
import { startTestOrigin, type TestOrigin } from '../server/support/origin';

/** How long a poll may take on a loaded machine, on top of the spec's period. */
const SLACK_MS = 3000;

describe('a priority code on the waiting page', () => {
  let server: WaitingRoomServer;
  let origin: TestOrigin;
  let browser: Browser;
  let visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    origin = await startTestOrigin();
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', UPSTREAM: origin.url });
    await server.fill(1);
  });

  afterEach(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    visitors = [];
    await server?.close();
    await origin?.close();
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
  });

  async function issue(count: number): Promise<string[]> {
    const response = await fetch(server.at('/admin/codes'), {
      method: 'POST',
      headers: { authorization: `Bearer ${E2E_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count }),
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { codes: string[] }).codes;
  }

  async function arrive(item: number): Promise<Visitor> {
    const visitor = await openVisitor(browser, server.url);
    visitors.push(visitor);
    await visitor.page.goto(server.at(`/checkout?item=${item}`));
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    return visitor;
  }

  /** Types `code` in the form and sends it; answers what the live region then says. */
  async function enter(visitor: Visitor, code: string, said: RegExp): Promise<string> {
    const form = visitor.page.locator('form.wr-code');
    await form.getByLabel('Have a code?').fill(code);
    await form.getByRole('button', { name: 'Use code' }).click();
    const status = form.getByRole('status');
    await status.filter({ hasText: said }).waitFor({ timeout: 10_000 });
    return (await status.textContent()) ?? '';
  }

  test('moves the later visitor ahead; a wrong code and a used code are refused; releases follow the new order', async () => {
    const first = await arrive(1);
    const second = await arrive(2);
    const third = await arrive(3);
    expect(await Promise.all([first.position(), second.position(), third.position()])).toEqual([1, 2, 3]);
    const [code] = await issue(1);

    expect(await enter(third, 'ZZZZZ-ZZZZZ', /not valid/)).toBe('This code is not valid: it may have been used already or have expired.');
    // Typed as a person might: lower case, a space for the dash.
    expect(await enter(third, code.toLowerCase().replace('-', ' '), /accepted/)).toBe('Code accepted. Your new position: 1.');
    // The position block follows at the next poll (anonymous pages poll every 5 s); those passed move back one place.
    const shown = (visitor: Visitor, position: number) =>
      eventually(
        `position ${position}`,
        () => visitor.position(),
        (at) => at === position,
        TIMINGS.anonymousPoll + SLACK_MS,
      );
    await Promise.all([shown(third, 1), shown(first, 2), shown(second, 3)]);

    expect(await enter(second, code, /not valid/)).toMatch(/^This code is not valid/);
    expect(await server.stats()).toMatchObject({ waiting: 3, codes: { issued: 1, used: 1 } });

    await server.release(1);
    await third.page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    expect(third.page.url()).toBe(server.at('/checkout?item=3'));
    await server.release(1);
    await first.page.locator('h1', { hasText: 'Checkout' }).waitFor({ timeout: 15_000 });
    expect(first.page.url()).toBe(server.at('/checkout?item=1'));
    await shown(second, 1);
    for (const visitor of visitors) expect(visitor.offSite).toEqual([]);
  }, 90_000);
});
