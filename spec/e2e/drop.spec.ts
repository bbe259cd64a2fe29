import { createHash } from 'node:crypto';
import { translator } from '@waiting-room/streams/contract';
import { CATALOGUES } from '../../locales';
import type { Browser } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { openVisitor, type Visitor } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/** Long enough for three pages to load and show the countdown on a loaded machine. */
const PREQUEUE_MS = 15_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Drop day in a real browser: pages that wait in a shuffled pre-queue see the opening counted
 * down; at the opening the push brings each its position, which is its rank in the published
 * draw; and the verify page, recomputing the draw with the browser's Web Crypto, confirms it.
 */
describe('drop day: a pre-queue drawn at the opening', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  const visitors: Visitor[] = [];

  let opensAt = 0;

  beforeAll(async () => {
    browser = await launchBrowser();
    const now = Date.now();
    opensAt = now + PREQUEUE_MS;
    const event = {
      id: 'e2e-drop',
      name: 'Spring drop',
      prequeueStartTime: new Date(now - 1000).toISOString(),
      eventStartTime: new Date(opensAt).toISOString(),
      eventEndTime: new Date(now + 3_600_000).toISOString(),
      shuffleAtEventStart: true,
    };
    // Nobody is released (a rate of 0), so positions stay the ranks drawn; the 5 s poll is slowed to a minute,
    // so that a position shown within seconds of the opening can only have come from the push.
    server = await startWaitingRoom({
      ACTIVE_LIMIT: '1',
      RELEASE_PER_MINUTE: '0',
      EVENTS: JSON.stringify([event]),
      PAGE_TIMINGS: JSON.stringify({ anonymousPoll: 60_000 }),
    });
  }, 30_000);

  afterAll(async () => {
    await Promise.all(visitors.map((visitor) => visitor.close()));
    await server?.close();
    await browser?.close();
  }, 30_000);

  test("counts down to the opening, then shows each page its rank in the draw, which the verify page confirms, in each visitor's language and time zone", async () => {
    // Two visitors in English in New York, one in Japanese in Tokyo.
    const where = [
      { locale: 'en-US', timezoneId: 'America/New_York' },
      { locale: 'en-US', timezoneId: 'America/New_York' },
      { locale: 'ja-JP', timezoneId: 'Asia/Tokyo' },
    ];
    for (const [i, options] of where.entries()) {
      const visitor = await openVisitor(browser, server.url, options);
      visitors.push(visitor);
      await visitor.page.goto(server.at(`/checkout?item=${i}`));
    }
    const textsOf = (i: number) =>
      where[i].locale == 'ja-JP' ? { lang: 'ja', t: translator('ja', CATALOGUES.ja.messages) } : { lang: 'en', t: translator('en', CATALOGUES.en.messages) };
    const uuids: string[] = [];
    for (const [i, visitor] of visitors.entries()) {
      const { lang, t } = textsOf(i);
      const countdown = visitor.page.locator('.wr-prequeue .wr-countdown');
      await countdown.waitFor({ timeout: 10_000 });
      // "Opens in 12 sec", "開始まで12 秒": the language's words, then the time left.
      const shown = (await countdown.textContent()) ?? '';
      expect(shown.startsWith(t('event.opensIn', { left: '' }))).toBe(true);
      expect(shown).toMatch(/\d/);
      const text = await visitor.page.locator('.wr-prequeue').textContent();
      expect(text).toContain(t('event.noAdvantage'));
      // The opening in the visitor's own time zone, named.
      const when = new Intl.DateTimeFormat(lang, {
        year: 'numeric',
        month: 'long',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        timeZoneName: 'short',
        timeZone: where[i].timezoneId,
      }).format(opensAt);
      expect(text).toContain(t('event.opensAt', { time: when }));
      expect(await visitor.position()).toBeNull();
      uuids.push(await visitor.page.evaluate(() => JSON.parse(document.getElementById('waiting-room-config')!.textContent).queue.uuid as string));
    }

    const positions = await eventually(
      'every page showing a position after the opening',
      () => Promise.all(visitors.map((visitor) => visitor.position())),
      (shown) => shown.every((position) => position !== null),
      PREQUEUE_MS + 8000,
      100,
    );
    const draw = (await (await fetch(server.at('/events/e2e-drop/draw'))).json()) as { order: string[]; entrants: number };
    expect(draw.entrants).toBe(3);
    expect(positions).toEqual(uuids.map((uuid) => draw.order.indexOf(sha256(uuid)) + 1));

    for (const [i, visitor] of visitors.entries()) {
      const { t } = textsOf(i);
      const [verifier] = await Promise.all([visitor.context.waitForEvent('page'), visitor.page.getByRole('link', { name: t('event.verify') }).click()]);
      await verifier.locator('.wr-verified').waitFor({ timeout: 10_000 });
      expect(await verifier.locator('html').getAttribute('lang')).toBe(where[i].locale == 'ja-JP' ? 'ja' : 'en');
      expect(await verifier.locator('.wr-verified').textContent()).toBe(t('verify.ok'));
      expect(await verifier.locator('.wr-rank').textContent()).toBe(t('verify.rank', { rank: positions[i]!, entrants: 3 }));
      await verifier.close();
    }
  }, 60_000);

  test("shows nothing of a link's own words: a made-up uuid and commitment are left out of the check and of the command", async () => {
    await eventually(
      'the draw done',
      async () => (await (await fetch(server.at('/events/e2e-drop/draw'))).json()) as { seed?: string },
      (draw) => draw.seed !== undefined,
      PREQUEUE_MS + 10_000,
      200,
    );
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const hostile = new URLSearchParams({ uuid: "x';touch pwned;echo '", commitment: 'Your draw was rigged: call +1 555 0100' });
      await page.goto(`${server.at('/events/e2e-drop/verify')}#${hostile}`);
      await page.locator('.wr-verified, .wr-refuted').waitFor({ timeout: 10_000 });
      expect(await page.locator('.wr-verified').count()).toBe(1);
      expect(await page.locator('body').textContent()).not.toMatch(/rigged|pwned/);
      expect(await page.locator('.wr-command').textContent()).toBe(`npx waiting-room verify-draw '${server.at('/events/e2e-drop/verify')}'`);
    } finally {
      await context.close();
    }
  }, 40_000);
});
