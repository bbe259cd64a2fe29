import { CATALOGUES } from '../../locales';
import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;

describe("a single-page app's order through heldFetch() and <waiting-room-status>, loaded from the gateway", () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test("waits in line with its position shown, then resolves once released with the shop's answer, the order reaching the shop once", async () => {
    const { server } = room;
    const visitor = await room.visit();
    const { page } = visitor;
    const orders = async () => ((await (await fetch(server.at('/api/orders'))).json()) as { received: number }).received;

    // The shop's page, which knows the waiting room only by the script address it was given.
    await page.goto(server.at('/buy'));
    await server.fill(ACTIVE_LIMIT);
    const before = await orders();
    const status = page.locator('waiting-room-status');
    // Defined once the page's script has loaded the waiting room's; nothing held, nothing shown.
    await page.locator('waiting-room-status[state="idle"]').waitFor({ state: 'attached', timeout: 15_000 });
    await expect(status.boundingBox()).resolves.toMatchObject({ height: 0 });

    await page.getByRole('button', { name: 'Buy' }).click();
    await page.locator('waiting-room-status[state="waiting"]').waitFor({ timeout: 15_000 });
    await expect(status.locator('.position strong').textContent()).resolves.toBe('1');
    await expect(status.locator('.estimated').textContent()).resolves.toMatch(/minute/);
    await expect(status.locator('[aria-live="polite"]').textContent()).resolves.toMatch(/^Your position: 1\. Estimated wait: /);
    await expect(page.locator('#result').textContent()).resolves.toBe('Placing your order…');
    expect(await orders()).toBe(before);

    expect(await server.release(1)).toHaveLength(1);
    await page.locator('#result', { hasText: 'placed' }).waitFor({ timeout: 15_000 });
    await expect(page.locator('#result').textContent()).resolves.toBe(`Order ${before + 1} placed: 1 of item 42.`);
    expect(await orders()).toBe(before + 1);
    await page.locator('waiting-room-status[state="idle"]').waitFor({ state: 'attached' });

    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);
});

describe('<waiting-room-status> in the language the gateway chose for the visitor', () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test("speaks the language the gateway chose for an Arabic browser, right to left, with Arabic digits, whatever the shop's page says", async () => {
    const { server } = room;
    const visitor = await room.visit({ locale: 'ar' });
    const { page } = visitor;
    await page.goto(server.at('/buy'));
    await server.fill(ACTIVE_LIMIT);
    await page.locator('waiting-room-status[state="idle"]').waitFor({ state: 'attached', timeout: 15_000 });

    await page.getByRole('button', { name: 'Buy' }).click();
    await page.locator('waiting-room-status[state="waiting"]').waitFor({ timeout: 15_000 });
    const status = page.locator('waiting-room-status');
    const arabic = CATALOGUES.ar.messages;
    await expect(status.locator('.box').evaluate((box: HTMLElement) => [box.lang, box.dir, getComputedStyle(box).direction])).resolves.toEqual([
      'ar',
      'rtl',
      'rtl',
    ]);
    await expect(status.locator('.message').textContent()).resolves.toBe(arabic['element.heading']);
    await expect(status.locator('.position span').textContent()).resolves.toBe(arabic['page.position']);
    await expect(status.locator('.position strong').textContent()).resolves.toBe(new Intl.NumberFormat('ar').format(1));
    await expect(page.locator('html').getAttribute('lang')).resolves.toBe('en');

    expect(await server.release(1)).toHaveLength(1);
    await page.locator('#result', { hasText: 'placed' }).waitFor({ timeout: 15_000 });
    expect(visitor.offSite).toEqual([]);
    expect(await server.errors()).toEqual([]);
  }, 60_000);
});
