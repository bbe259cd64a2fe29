import type { Browser } from 'playwright-core';
import { translator, type Message } from '@waiting-room/streams/contract';
import { CATALOGUES, ENGLISH, LOCALES } from '../../locales';
import { violations } from '../support/axe';
import { launchBrowser } from '../support/browser';
import { eventually } from '../support/eventually';
import { overflowing } from '../support/overflow';
import { openVisitor, type Visitor, type VisitorOptions } from '../support/visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from '../support/waiting-room-server';

/**
 * Every visitor in their language, and told when their turn comes, in Chromium against the real
 * server: the page in the browser's language, a switch of language that keeps the place, the
 * place in the tab title, each change of position announced once, and the opt-in notifications;
 * and the whole waiting page in every language of the catalogue, nothing of it cut at 320 px and
 * nothing axe-core finds.
 */

/**
 * Records, in the origin's localStorage (which outlives the replay's navigation), what the page
 * asked of the browser's notifications and each notification shown, in order with the page
 * being left; and each text of the polite live region. Declared as a string so no bundler touches it.
 */
const RECORD = `(() => {
  const log = (entry) => localStorage.setItem('record', JSON.stringify([...JSON.parse(localStorage.getItem('record') || '[]'), entry]));
  addEventListener('pagehide', () => log({ what: 'left', path: location.pathname }));
  const Real = window.Notification;
  if (Real) {
    const Recorded = function (title, options) { log({ what: 'notified', title, body: options && options.body, lang: options && options.lang }); return new Real(title, options); };
    Recorded.prototype = Real.prototype;
    Object.defineProperty(Recorded, 'permission', { get: () => Real.permission });
    Recorded.requestPermission = (...args) => { log({ what: 'asked' }); return Real.requestPermission(...args); };
    window.Notification = Recorded;
  }
  const announced = [];
  Object.defineProperty(window, '__announced', { value: announced });
  new MutationObserver(() => {
    const text = document.querySelector('[aria-live="polite"]')?.textContent ?? '';
    announced.push(text);
  }).observe(document, { childList: true, subtree: true, characterData: true });
})();`;

type Entry = { what: string; title?: string; body?: string; lang?: string; path?: string };

describe('visitors in their language, told when their turn comes', () => {
  let browser: Browser;
  let server: WaitingRoomServer;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  beforeEach(async () => {
    server = await startWaitingRoom({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await server.fill(1);
  });

  afterEach(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await server?.close();
  });

  afterAll(() => browser?.close());

  const visit = async (options: VisitorOptions = {}) => {
    const visitor = await openVisitor(browser, server.url, options);
    await visitor.context.addInitScript(RECORD);
    visitors.push(visitor);
    return visitor;
  };
  /** `count` visitors in line ahead, each a client with its own cookie. */
  const ahead = async (count: number) => {
    for (let i = 0; i < count; i++) await fetch(server.at(`/checkout?ahead=${i}`));
  };
  const record = (visitor: Visitor): Promise<Entry[]> => visitor.page.evaluate(() => JSON.parse(localStorage.getItem('record') || '[]'));

  it("should show the page in the browser's language and switch it in place, keeping the place, the connection and the choice", async () => {
    await ahead(11);
    const visitor = await visit({ locale: 'ja-JP', viewport: { width: 390, height: 844 } });
    const sockets: string[] = [];
    visitor.page.on('websocket', (socket) => sockets.push(socket.url()));
    await visitor.page.goto(server.at('/checkout?item=42'));
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(visitor.page.locator('h1').innerText()).resolves.toBe('列に並んでいます');
    await expect(visitor.page.title()).resolves.toBe('12番目 · 待合室');
    const uuid = JSON.parse((await visitor.page.locator('#waiting-room-config').textContent()) ?? '{}').queue.uuid;
    const navigations = visitor.navigations.length;

    await visitor.page.locator('select').selectOption('ar');
    await eventually(
      'the page in Arabic',
      () => visitor.page.locator('h1').innerText(),
      (heading) => heading === 'أنت في قائمة الانتظار',
    );
    await expect(visitor.page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).resolves.toEqual(['ar', 'rtl']);
    const twelve = new Intl.NumberFormat('ar').format(12);
    await expect(visitor.page.title()).resolves.toBe(`رقم ${twelve} · غرفة الانتظار`);
    expect(visitor.navigations).toHaveLength(navigations);
    expect(sockets).toHaveLength(1);
    await expect(server.stats()).resolves.toMatchObject({ waiting: 12 });

    // The choice is kept: the next page is written in it by the server, at the same place.
    await visitor.page.reload();
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(visitor.page.evaluate(() => document.documentElement.outerHTML.slice(0, 40))).resolves.toContain('<html lang="ar" dir="rtl">');
    await expect(visitor.position()).resolves.toBe(12);
    expect(JSON.parse((await visitor.page.locator('#waiting-room-config').textContent()) ?? '{}').queue.uuid).toBe(uuid);
    await expect(server.stats()).resolves.toMatchObject({ waiting: 12 });
  }, 40_000);

  it('should show the whole waiting page in every language, in its direction, with nothing cut or overflowing at 320 px and no violation axe-core finds', async () => {
    await ahead(11);
    // One visitor, one tab, one place: each language is the same page asked for with another Accept-Language.
    const visitor = await visit({ viewport: { width: 320, height: 640 } });
    const texts = (message: Message | undefined) => (message === undefined ? [] : typeof message == 'string' ? [message] : Object.values(message));
    // The visible texts of the page as the page writes them, a number or a time stood for by its placeholder.
    const shown = () =>
      visitor.page.evaluate(() => {
        const text = (selector: string) => document.querySelector(selector)?.textContent?.trim() ?? null;
        return {
          lang: document.documentElement.lang,
          dir: document.documentElement.dir,
          title: document.title,
          heading: text('.wr-waiting h1'),
          position: text('.wr-position strong'),
          positionLabel: document.querySelector('.wr-position')?.firstChild?.textContent?.trim() ?? null,
          estimated: text('.wr-estimated'),
          updated: text('.wr-updated'),
          hint: text('.wr-hint'),
          notify: text('.wr-waiting button'),
          label: text('.wr-language label'),
          chosen: document.querySelector<HTMLSelectElement>('.wr-language select')?.value ?? null,
          body: document.body.innerText,
        };
      });
    const number = /\p{Nd}+(?:[.,\u00a0\u202f\u066c ]\p{Nd}+)*/u;
    const english = new Set(
      Object.values(ENGLISH)
        .flatMap(texts)
        .filter((text) => !/\{/.test(text)),
    );
    const problems: string[] = [];
    for (const locale of LOCALES) {
      const { dir, messages } = CATALOGUES[locale];
      const t = translator(locale, messages);
      await visitor.page.setExtraHTTPHeaders({ 'accept-language': locale });
      await visitor.page.goto(server.at('/checkout?item=42'));
      await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
      await visitor.page.locator('.wr-language select').waitFor();
      const page = await shown();
      const estimatedForms = new Set([...texts(messages['page.estimated']), messages['page.estimatedSoon']]);
      const updated = new RegExp(
        `^${t('page.updated', { time: '\u0000' })
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
          .replace('\u0000', '.+')}$`,
        'u',
      );
      const seen = {
        lang: page.lang,
        dir: page.dir,
        title: page.title,
        heading: page.heading,
        position: page.position,
        positionLabel: page.positionLabel,
        estimated: estimatedForms.has(page.estimated?.replace(number, '{count}') ?? '') || page.estimated,
        updated: updated.test(page.updated ?? '') || page.updated,
        hint: page.hint,
        notify: page.notify,
        label: page.label,
        chosen: page.chosen,
      };
      const wanted = {
        lang: locale,
        dir,
        title: t('page.tabTitle', { position: 12 }),
        heading: messages['page.heading'],
        position: new Intl.NumberFormat(locale).format(12),
        positionLabel: messages['page.position'],
        estimated: true,
        updated: true,
        hint: messages['page.keepOpen'],
        notify: messages['notify.offer'],
        label: messages['language.label'],
        chosen: locale,
      };
      if (JSON.stringify(seen) !== JSON.stringify(wanted)) problems.push(`${locale}: ${JSON.stringify(seen)}, not ${JSON.stringify(wanted)}`);
      // No English is left on the page, but the English name among the languages to choose from.
      const left = locale === 'en' ? [] : page.body.split('\n').filter((line) => english.has(line.trim()) && line.trim() !== ENGLISH['language.name']);
      if (left.length > 0) problems.push(`${locale}: English left on the page: ${left.join(' | ')}`);
      problems.push(...(await overflowing(visitor.page)).map((found) => `${locale}: ${found}`));
      problems.push(...(await violations(visitor.page)).map((violation) => `${locale}: ${violation}`));
    }
    expect(problems).toEqual([]);
    // Every visit kept the one place.
    await expect(server.stats()).resolves.toMatchObject({ waiting: 12 });
  }, 240_000);

  it('should announce each change of position once, and carry the place in the tab title', async () => {
    await ahead(3);
    const visitor = await visit({ locale: 'de-DE' });
    await visitor.page.goto(server.at('/checkout?item=42'));
    await visitor.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(visitor.page.title()).resolves.toBe('Nr. 4 · Warteraum');
    await server.release(1);
    await eventually(
      'position 3',
      () => visitor.position(),
      (position) => position === 3,
    );
    await server.release(1);
    await eventually(
      'position 2',
      () => visitor.position(),
      (position) => position === 2,
    );
    await expect(visitor.page.title()).resolves.toBe('Nr. 2 · Warteraum');
    // A few of the page's polls, which change nothing.
    await visitor.page.waitForTimeout(5_500);
    const announced: string[] = await visitor.page.evaluate(() => (window as unknown as { __announced: string[] }).__announced);
    const changes = announced.filter((text, i) => text !== '' && text !== announced[i - 1]);
    expect(changes.map((text) => text.split('.')[0])).toEqual([
      'Ihre Position in der Warteschlange: 4',
      'Ihre Position in der Warteschlange: 3',
      'Ihre Position in der Warteschlange: 2',
    ]);
  }, 40_000);

  it('should notify only a visitor who pressed the button: at place 3, then at the release, before the replay', async () => {
    await ahead(3);
    const asking = await visit({ locale: 'en-US' });
    await asking.context.grantPermissions(['notifications'], { origin: server.url });
    await asking.page.goto(server.at('/checkout?item=42'));
    await asking.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    // A second visitor whose browser allows notifications too, but who never asks.
    const silent = await visit({ locale: 'en-US' });
    await silent.context.grantPermissions(['notifications'], { origin: server.url });
    await silent.page.goto(server.at('/checkout?item=7'));
    await silent.page.locator('.wr-waiting').waitFor({ timeout: 15_000 });
    await expect(record(asking)).resolves.toEqual([]);

    await asking.page.getByRole('button', { name: 'Tell me when it is my turn' }).click();
    await asking.page.getByText('You will get a notification when your turn is near.').waitFor();
    await server.release(1);
    await eventually(
      'the notification at place 3',
      () => record(asking),
      (entries) => entries.some((entry) => entry.title === 'Your turn is near'),
    );
    await server.release(3);
    await asking.arrivesAt(server.at('/checkout?item=42'), 15_000);
    await silent.page.waitForTimeout(1_000);

    expect(await record(asking)).toEqual([
      { what: 'asked' },
      { what: 'notified', title: 'Your turn is near', body: 'You are number 3 in line.', lang: 'en' },
      { what: 'notified', title: 'It is your turn!', body: 'Taking you to your page now.', lang: 'en' },
      { what: 'left', path: '/checkout' },
    ]);
    expect((await record(silent)).filter((entry) => entry.what !== 'left')).toEqual([]);
  }, 60_000);
});
