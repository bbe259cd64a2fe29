/**
 * Page load on a slow phone: the waiting page as a visitor's Chromium loads it from the real
 * server (`start(loadConfig(env))` with the page built in this run, in front of the demo shop),
 * on DevTools' "Fast 3G" network with the CPU 4× slower, both set through the DevTools protocol
 * before the navigation. Each run opens a held protected page in a fresh browser context (empty
 * cache), then reloads it (HTTP cache kept), and reads from the browser itself:
 *
 * - when the position shows: the first animation frame after the waiting block, with the
 *   position's digits, entered the document (a MutationObserver in the page; the frame's time is
 *   `performance.now()`, so counted from the navigation's start): the frame that paints it;
 * - the bytes on the wire until then: every response's `encodedDataLength` from the protocol's
 *   `Network.loadingFinished` (headers and body as received), a response still arriving counted
 *   by its `Network.dataReceived` chunks so far, and the payloads of the WebSocket frames received;
 * - the JavaScript the browser asked for until then, gzipped: each script requested before the
 *   position shows, at the size of its `.gz` copy in the build (as build.mjs measures sizes),
 *   against the build's initial-JavaScript budget (size.json); past it, `checkPageBudget` throws
 *   and the bench fails;
 * - the way there, from the same events: the HTML, the scripts, the socket, the first queue_info;
 * - on the reload, the script and style bytes received (what the HTTP cache did not hold), and
 *   its own time to the position.
 *
 * Figures are medians of the runs; each run's are kept.
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/process/config';
import { demoShop } from '../demo/origin';
import { start } from '../server/process/start';
import { launchBrowser } from '../spec/support/browser';
import { median } from './stats';
import type { TargetCheck } from './goals';

/** DevTools' "Fast 3G" preset (its NetworkManager.ts): 1.44 Mbit/s down, 675 Kbit/s up, 562.5 ms; in bytes a second. */
const FAST_3G = { latency: 562.5, downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9, uploadThroughput: ((750 * 1000) / 8) * 0.9 } as const;
/** DevTools' "4× slowdown" (`Emulation.setCPUThrottlingRate`). */
const CPU_SLOWDOWN = 4;

/** What the page promises a visitor on a slow phone. */
export const PAGE_LOAD_TARGETS = {
  /** Everything the browser fetched before the position shows. */
  wireBytesBeforePosition: 100 * 1024,
  positionShownMs: 2000,
  /** What a reload downloads of scripts and styles (all of them hashed, cached for good). */
  reloadScriptAndStyleBytes: 10 * 1024,
} as const;

const ADMIN_TOKEN = 'bench-admin-token-of-24-characters';

export interface PageLoadOptions {
  /** The page as `build.mjs` built it in this run. */
  readonly pageDir: string;
  readonly runs: number;
  readonly log: (line: string) => void;
  /** More of the server's settings: `{ROOMS_FILE: OWN_PAGE_ROOMS}` measures a room's own page. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The documented example of a room's own page (docs/own-page.md), holding the demo shop's /checkout. */
export const OWN_PAGE_ROOMS = path.resolve(__dirname, '../docs/examples/waiting-page.rooms.json');

/** Every figure of the loads: bench/README.md says what each is. */
export type PageLoadResult = Awaited<ReturnType<typeof measurePageLoad>>;
type LoadRun = Awaited<ReturnType<typeof oneRun>>;

const POSITION_SHOWN =
  "the first animation frame after the waiting block (.wr-waiting) with the position's digits entered the document, from the navigation's start";

/** The first frame with the position, in the page's own clock (`performance.now()`). */
interface PositionShown {
  /** The frame's time, from the navigation's start. */
  readonly at: number;
  /** When the document's fetch started, to put `at` on the DevTools protocol's clock. */
  readonly fetchStart: number;
}

/**
 * Records the first animation frame after `.wr-waiting` shows a position number, in whatever
 * digits its language writes (Persian, Bengali). Declared as a string so that no bundler touches
 * it; it only observes the page.
 */
const WATCH_POSITION = `(() => {
  const shown = () => /\\p{Nd}/u.test(document.querySelector('.wr-waiting .wr-position strong')?.textContent || '');
  const observer = new MutationObserver(() => {
    if (!shown()) return;
    observer.disconnect();
    requestAnimationFrame((frameAt) => {
      window.__positionShown = { at: frameAt, fetchStart: performance.getEntriesByType('navigation')[0]?.fetchStart ?? 0 };
    });
  });
  observer.observe(document, { childList: true, subtree: true, characterData: true });
})();`;

interface Recorded {
  url: string;
  type: string;
  /** The protocol's monotonic clock, in seconds. */
  sentAt: number;
  chunks: { at: number; bytes: number }[];
  finished?: { at: number; bytes: number };
  failed?: boolean;
}

/** The page's network as the DevTools protocol reports it, from the moment `recording()` is called. */
async function recordNetwork(cdp: CDPSession) {
  let resources = new Map<string, Recorded>();
  let frames: { at: number; bytes: number }[] = [];
  let socket = { opening: Number.NaN, open: Number.NaN };
  cdp.on('Network.requestWillBeSent', (event) => {
    resources.set(event.requestId, { url: event.request.url, type: event.type ?? 'Other', sentAt: event.timestamp, chunks: [] });
  });
  cdp.on('Network.dataReceived', (event) => resources.get(event.requestId)?.chunks.push({ at: event.timestamp, bytes: event.encodedDataLength }));
  cdp.on('Network.loadingFinished', (event) => {
    const resource = resources.get(event.requestId);
    if (resource) resource.finished = { at: event.timestamp, bytes: event.encodedDataLength };
  });
  cdp.on('Network.loadingFailed', (event) => {
    const resource = resources.get(event.requestId);
    if (resource) resource.failed = true;
  });
  cdp.on('Network.webSocketWillSendHandshakeRequest', (event) => {
    if (Number.isNaN(socket.opening)) socket.opening = event.timestamp;
  });
  cdp.on('Network.webSocketHandshakeResponseReceived', (event) => {
    if (Number.isNaN(socket.open)) socket.open = event.timestamp;
  });
  cdp.on('Network.webSocketFrameReceived', (event) => frames.push({ at: event.timestamp, bytes: Buffer.byteLength(event.response.payloadData) }));
  await cdp.send('Network.enable');
  return {
    /** Forgets what was recorded: a new load starts. */
    restart() {
      resources = new Map();
      frames = [];
      socket = { opening: Number.NaN, open: Number.NaN };
    },
    snapshot: () => ({ resources: [...resources.values()], frames, socket }),
  };
}

/** Bytes of `resource` received by `until` (the protocol's clock): all of them once finished. */
const bytesBy = (resource: Recorded, until = Infinity) =>
  resource.finished && resource.finished.at <= until
    ? resource.finished.bytes
    : resource.chunks.filter((chunk) => chunk.at <= until).reduce((sum, chunk) => sum + chunk.bytes, 0);

const isScriptOrStyle = (resource: Recorded) => resource.type === 'Script' || resource.type === 'Stylesheet';

/** Waits for the position in `page` and returns its frame time (ms from the navigation's start). */
async function positionShown(page: Page): Promise<PositionShown> {
  const handle = await page.waitForFunction(() => (window as unknown as { __positionShown?: PositionShown }).__positionShown, undefined, {
    timeout: 60_000,
    polling: 50,
  });
  return (await handle.jsonValue()) as PositionShown;
}

/**
 * The scripts the page asked for before its frame at `at`, in the page's own clock (Resource
 * Timing), so that no lag between the browser and the protocol on a busy machine counts a script
 * asked for once the position was painted as one asked for before it. A script's entry is written
 * once it has arrived: read once every script the protocol saw asked for has.
 */
async function scriptsAskedBefore(page: Page, network: Awaited<ReturnType<typeof recordNetwork>>, at: number): Promise<string[]> {
  const arrived = () => network.snapshot().resources.every((resource) => resource.type !== 'Script' || resource.finished || resource.failed);
  for (const until = Date.now() + 30_000; !arrived(); await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (Date.now() > until) throw new Error('a script the page asked for had not arrived 30 s later');
  }
  return page.evaluate(
    (frameAt) =>
      performance
        .getEntriesByType('resource')
        .filter((entry) => entry.startTime <= frameAt && new URL(entry.name).pathname.endsWith('.js'))
        .map((entry) => entry.name),
    at,
  );
}

/** The size of the build's gzipped copy of the script at `url`, or of the file itself when it has none. */
function gzipSizeOf(pageDir: string, url: string): number {
  const file = path.join(pageDir, path.basename(new URL(url).pathname));
  try {
    return statSync(`${file}.gz`).size;
  } catch {
    return statSync(file).size;
  }
}

/** The build's initial-JavaScript budget, gzipped, from the size.json it wrote beside the page. */
export function jsBudgetOf(pageDir: string): number {
  return (JSON.parse(readFileSync(path.join(pageDir, 'size.json'), 'utf8')) as { budget: { initialJsGzip: number } }).budget.initialJsGzip;
}

/** A fresh context (empty cache) on the slow phone, recording its network; `locale` sets its Accept-Language. */
async function slowPhone(browser: Browser, locale?: string) {
  const context = await browser.newContext(locale ? { locale } : {});
  await context.addInitScript(WATCH_POSITION);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const network = await recordNetwork(cdp);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...FAST_3G });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  return { context, page, network };
}

/**
 * One cold load of the held page at `url` in `phone`. `settle`: wait for the network to go quiet,
 * so that the late answers (queue_request, the lazy files fetched once the position shows) count
 * in all; without it, only what came before the position is exact.
 */
async function coldLoad({ page, network }: Awaited<ReturnType<typeof slowPhone>>, url: string, pageDir: string, settle: boolean) {
  {
    await page.goto(url, { waitUntil: 'commit' });
    const shown = await positionShown(page);
    const shownAtMs = shown.at;
    if (settle) await page.waitForLoadState('networkidle');
    const cold = network.snapshot();
    const document = cold.resources.find((resource) => resource.type === 'Document');
    if (!document) throw new Error('the protocol reported no document request');
    // The protocol saw the document's request sent when the page's clock read its fetchStart.
    const origin = document.sentAt - shown.fetchStart / 1000;
    const ms = (seconds: number | undefined) => (seconds === undefined ? Number.NaN : (seconds - origin) * 1000);
    const shownAt = origin + shownAtMs / 1000;
    const wireBytesBeforePosition =
      cold.resources.reduce((sum, resource) => sum + bytesBy(resource, shownAt), 0) +
      cold.frames.filter((frame) => frame.at <= shownAt).reduce((sum, frame) => sum + frame.bytes, 0);
    const scripts = await scriptsAskedBefore(page, network, shownAtMs);
    const jsBeforePosition = {
      gzip: scripts.reduce((sum, url) => sum + gzipSizeOf(pageDir, url), 0),
      files: scripts.map((url) => path.basename(new URL(url).pathname)),
    };
    const asset = (prefix: string) => cold.resources.find((resource) => new URL(resource.url).pathname.startsWith(`/assets/${prefix}`));
    const queueInfo = cold.resources.filter((resource) => new URL(resource.url).pathname.startsWith('/queue/info/')).sort((a, b) => a.sentAt - b.sentAt)[0];
    /** Moments of the load, in ms from the navigation's start. */
    const timeline = {
      htmlReceived: ms(document.finished?.at),
      startUpScriptReceived: ms(asset('main-')?.finished?.at),
      socketOpening: ms(cold.socket.opening),
      socketOpen: ms(cold.socket.open),
      firstQueueInfoSent: ms(queueInfo?.sentAt),
      firstQueueInfoAnswered: ms(queueInfo?.finished?.at),
      viewReceived: ms(asset('view-')?.finished?.at),
      positionShown: shownAtMs,
    };
    return { timeline, wireBytesBeforePosition, jsBeforePosition };
  }
}

/** One cold load and one reload of the held page at `url`, in a fresh context. */
async function oneRun(browser: Browser, url: string, pageDir: string) {
  const phone = await slowPhone(browser);
  const { context, page, network } = phone;
  try {
    const cold = await coldLoad(phone, url, pageDir, true);
    network.restart();
    await page.reload({ waitUntil: 'commit' });
    const reloadShownMs = (await positionShown(page)).at;
    await page.waitForLoadState('networkidle');
    const reloaded = network.snapshot().resources;
    return {
      ...cold,
      reload: {
        scriptAndStyleBytes: reloaded.filter(isScriptOrStyle).reduce((sum, resource) => sum + bytesBy(resource), 0),
        wireBytes: reloaded.reduce((sum, resource) => sum + bytesBy(resource), 0),
        positionShownMs: reloadShownMs,
      },
    };
  } finally {
    await context.close();
  }
}

/**
 * Runs `measure` with one browser against one server of the page built in `pageDir`, in front of
 * the demo shop, whose room one admitted session fills: every visitor after it is held.
 */
async function withHeldPage<T>(
  pageDir: string,
  env: Readonly<Record<string, string>> | undefined,
  measure: (browser: Browser, url: string) => Promise<T>,
): Promise<T> {
  const config = {
    ...loadConfig({ PORT: '0', ADMIN_TOKEN, LOG_LEVEL: 'silent', ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ...env }),
    assetsDir: pageDir,
    pageHtmlPath: path.join(pageDir, 'waiting.html'),
  };
  const server = await start(config, { defaultOrigin: demoShop });
  let browser: Browser | undefined;
  try {
    const admitted = await (await fetch(`${server.url}/checkout`)).text();
    if (admitted.includes('id="waiting-room-config"')) throw new Error('the first session was held instead of admitted');
    browser = await launchBrowser();
    return await measure(browser, `${server.url}/checkout`);
  } finally {
    await browser?.close();
    await server.close();
  }
}

/** One language's cold load on the slow phone. */
export interface LanguageLoad {
  /** The browser's language (its Accept-Language). */
  readonly locale: string;
  /** The `<html lang>` the server wrote: the language the page was in. */
  readonly lang: string;
  readonly positionShownMs: number;
  readonly wireBytesBeforePosition: number;
  readonly jsBeforePosition: { readonly gzip: number; readonly files: readonly string[] };
}

/**
 * The page in each of `locales`, one cold load each on the slow phone (no reload, no waiting for
 * the network to go quiet: only what comes before the position is measured), all with one
 * browser and one server.
 */
export async function measureLanguages(options: {
  readonly pageDir: string;
  readonly locales: readonly string[];
  readonly log: (line: string) => void;
  readonly env?: Readonly<Record<string, string>>;
  /**
   * Loads run side by side. The bytes are the same either way; the times are not (the phones
   * share the machine's cores), so the bench, which judges the time to the position, keeps 1.
   */
  readonly concurrency?: number;
}): Promise<LanguageLoad[]> {
  return withHeldPage(options.pageDir, options.env, async (browser, url) => {
    const loads = new Array<LanguageLoad>(options.locales.length);
    let next = 0;
    const loadNext = async (): Promise<void> => {
      for (let index = next++; index < options.locales.length; index = next++) {
        const locale = options.locales[index];
        const phone = await slowPhone(browser, locale);
        try {
          const cold = await coldLoad(phone, url, options.pageDir, false);
          const lang = await phone.page.evaluate(() => document.documentElement.lang);
          const { positionShown: positionShownMs } = cold.timeline;
          loads[index] = { locale, lang, positionShownMs, wireBytesBeforePosition: cold.wireBytesBeforePosition, jsBeforePosition: cold.jsBeforePosition };
          options.log(`  ${locale}: position at ${positionShownMs.toFixed(0)} ms, ${cold.wireBytesBeforePosition} bytes before it`);
        } finally {
          await phone.context.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loadNext));
    return loads;
  });
}

/** Builds nothing: loads the page built in `options.pageDir` `options.runs` times, each cold then reloaded. */
export async function measurePageLoad(options: PageLoadOptions) {
  return withHeldPage(options.pageDir, options.env, async (browser, url) => {
    const runs: LoadRun[] = [];
    for (let i = 0; i < options.runs; i++) {
      const run = await oneRun(browser, url, options.pageDir);
      runs.push(run);
      options.log(
        `  run ${i + 1}: position at ${run.timeline.positionShown.toFixed(0)} ms, ${run.wireBytesBeforePosition} bytes before it ` +
          `(scripts asked for: ${run.jsBeforePosition.files.join(', ')}: ${run.jsBeforePosition.gzip} bytes gzipped); ` +
          `reload: ${run.reload.scriptAndStyleBytes} bytes of scripts and styles, position at ${run.reload.positionShownMs.toFixed(0)} ms`,
      );
    }
    const mid = (pick: (run: LoadRun) => number) => median(runs.map(pick));
    const moments = Object.keys(runs[0].timeline) as (keyof LoadRun['timeline'])[];
    return {
      settings: {
        network: FAST_3G,
        cpuSlowdown: CPU_SLOWDOWN,
        runs: options.runs,
        chromium: browser.version(),
        positionShown: POSITION_SHOWN,
        jsBudgetGzip: jsBudgetOf(options.pageDir),
      },
      median: {
        positionShownMs: mid((run) => run.timeline.positionShown),
        wireBytesBeforePosition: mid((run) => run.wireBytesBeforePosition),
        jsBeforePositionGzip: mid((run) => run.jsBeforePosition.gzip),
        reloadScriptAndStyleBytes: mid((run) => run.reload.scriptAndStyleBytes),
        reloadPositionShownMs: mid((run) => run.reload.positionShownMs),
        timeline: Object.fromEntries(moments.map((moment) => [moment, mid((run) => run.timeline[moment])])) as LoadRun['timeline'],
      },
      runs,
    };
  });
}

/** PASS/MISS for the page's targets, on the medians; `page` names the page measured. */
export function pageLoadChecks(result: PageLoadResult, page = 'page'): TargetCheck[] {
  const { median: figures, settings } = result;
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const across = `median of ${settings.runs} runs`;
  return [
    {
      name: `${page}: JavaScript fetched before the position shows, gzipped (Chromium, cold cache; the build budget)`,
      target: `≤ ${kb(settings.jsBudgetGzip)}`,
      measured: `${kb(figures.jsBeforePositionGzip)} (${figures.jsBeforePositionGzip} bytes; ${across}; per run ${result.runs.map((run) => run.jsBeforePosition.gzip).join(', ')})`,
      verdict: overJsBudget(result) ? 'MISS' : 'PASS',
    },
    {
      name: `${page}: bytes on the wire before the position shows (Chromium, cold cache)`,
      target: `≤ ${kb(PAGE_LOAD_TARGETS.wireBytesBeforePosition)}`,
      measured: `${kb(figures.wireBytesBeforePosition)} (${figures.wireBytesBeforePosition} bytes; ${across})`,
      verdict: figures.wireBytesBeforePosition <= PAGE_LOAD_TARGETS.wireBytesBeforePosition ? 'PASS' : 'MISS',
    },
    {
      name: `${page}: time to position, Fast 3G and 4× CPU slowdown`,
      target: `≤ ${(PAGE_LOAD_TARGETS.positionShownMs / 1000).toFixed(1)} s`,
      measured: `${(figures.positionShownMs / 1000).toFixed(2)} s (${across}; per run ${result.runs.map((run) => (run.timeline.positionShown / 1000).toFixed(2)).join(', ')} s)`,
      verdict: figures.positionShownMs <= PAGE_LOAD_TARGETS.positionShownMs ? 'PASS' : 'MISS',
    },
    {
      name: `${page}: scripts and styles a reload downloads`,
      target: `< ${kb(PAGE_LOAD_TARGETS.reloadScriptAndStyleBytes)}`,
      measured: `${figures.reloadScriptAndStyleBytes} bytes (${across})`,
      verdict: figures.reloadScriptAndStyleBytes < PAGE_LOAD_TARGETS.reloadScriptAndStyleBytes ? 'PASS' : 'MISS',
    },
  ];
}

/** Whether any run fetched more JavaScript before the position than the build's budget allows. */
function overJsBudget(result: PageLoadResult): boolean {
  return result.runs.some((run) => run.jsBeforePosition.gzip > result.settings.jsBudgetGzip);
}

/**
 * The build's budget check, on what the browser fetched: throws when a run asked for more
 * JavaScript before the position showed than the build's initial-JavaScript budget, naming the
 * scripts. Judged on every run, not the median: the bytes do not vary with the machine's load,
 * only with what the page asks for, and when.
 */
export function checkPageBudget(result: PageLoadResult): void {
  const over = result.runs.find((run) => run.jsBeforePosition.gzip > result.settings.jsBudgetGzip);
  if (!over) return;
  throw new Error(
    `The page fetched ${over.jsBeforePosition.gzip} bytes of JavaScript (gzipped) before the position showed, ` +
      `past the build's budget of ${result.settings.jsBudgetGzip}: ${over.jsBeforePosition.files.join(', ')}`,
  );
}

/** PASS/MISS for the page's targets in every language: the slowest and the heaviest language, one cold load each. */
export function languageLoadChecks(loads: readonly LanguageLoad[]): TargetCheck[] {
  const slowest = loads.reduce((worst, load) => (load.positionShownMs > worst.positionShownMs ? load : worst));
  const heaviest = loads.reduce((worst, load) => (load.wireBytesBeforePosition > worst.wireBytesBeforePosition ? load : worst));
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  return [
    {
      name: `page in every language (${loads.length}): time to position of the slowest, Fast 3G and 4× CPU slowdown, one cold load each`,
      target: `≤ ${(PAGE_LOAD_TARGETS.positionShownMs / 1000).toFixed(1)} s`,
      measured: `${(slowest.positionShownMs / 1000).toFixed(2)} s (${slowest.locale}; median of the languages ${(median(loads.map((load) => load.positionShownMs)) / 1000).toFixed(2)} s)`,
      verdict: slowest.positionShownMs <= PAGE_LOAD_TARGETS.positionShownMs ? 'PASS' : 'MISS',
    },
    {
      name: `page in every language (${loads.length}): bytes on the wire before the position shows, the heaviest`,
      target: `≤ ${kb(PAGE_LOAD_TARGETS.wireBytesBeforePosition)}`,
      measured: `${kb(heaviest.wireBytesBeforePosition)} (${heaviest.locale}, ${heaviest.wireBytesBeforePosition} bytes)`,
      verdict: heaviest.wireBytesBeforePosition <= PAGE_LOAD_TARGETS.wireBytesBeforePosition ? 'PASS' : 'MISS',
    },
  ];
}
