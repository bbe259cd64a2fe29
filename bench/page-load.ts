/**
 * Page load on a slow phone (bench/README.md): the waiting page as Chromium loads it from the real
 * server on DevTools' Fast 3G with the CPU 4× slower. Past the build's initial-JavaScript budget,
 * on what the browser fetched before the position, `checkPageBudget` throws and the bench fails.
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../server/process/config';
import { demoShop } from '../demo/origin';
import { start } from '../server/process/start';
import { launchBrowser } from '../spec/support/browser';
import { median } from './stats';
import { check, type TargetCheck } from './goals';

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

/** `pageDir`: the page `build.mjs` built in this run; `env`: more of the server's settings (`{ROOMS_FILE: OWN_PAGE_ROOMS}`: a room's own page). */
type PageLoadOptions = { readonly pageDir: string; readonly log: (line: string) => void; readonly env?: Readonly<Record<string, string>> };

/** The documented example of a room's own page (docs/own-page.md), holding the demo shop's /checkout. */
export const OWN_PAGE_ROOMS = path.resolve(__dirname, '../docs/examples/waiting-page.rooms.json');

/** Every figure of the loads: bench/README.md says what each is. */
export type PageLoadResult = Awaited<ReturnType<typeof measurePageLoad>>;
type LoadRun = Awaited<ReturnType<typeof oneRun>>;

/** The first frame with the position, from the navigation's start in the page's own clock, and its document's fetchStart (to put it on the protocol's clock). */
type PositionShown = { readonly at: number; readonly fetchStart: number };

/** Records the first frame after `.wr-waiting` shows a position, in any language's digits (Persian, Bengali); a string, so no bundler touches it. */
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

/** Bytes received `at` a time on the protocol's monotonic clock, in seconds (as `sentAt`). */
type Received = { at: number; bytes: number };
type Recorded = { url: string; type: string; sentAt: number; chunks: Received[]; finished?: Received; failed?: boolean };

/** The page's network as the DevTools protocol reports it, from the moment `recording()` is called. */
async function recordNetwork(cdp: CDPSession) {
  let resources = new Map<string, Recorded>();
  let frames: Received[] = [];
  cdp.on('Network.requestWillBeSent', (event) => {
    resources.set(event.requestId, { url: event.request.url, type: event.type ?? 'Other', sentAt: event.timestamp, chunks: [] });
  });
  cdp.on('Network.dataReceived', (event) => resources.get(event.requestId)?.chunks.push({ at: event.timestamp, bytes: event.encodedDataLength }));
  const mark = (requestId: string, fields: Partial<Recorded>) => void Object.assign(resources.get(requestId) ?? {}, fields);
  cdp.on('Network.loadingFinished', (event) => mark(event.requestId, { finished: { at: event.timestamp, bytes: event.encodedDataLength } }));
  cdp.on('Network.loadingFailed', (event) => mark(event.requestId, { failed: true }));
  cdp.on('Network.webSocketFrameReceived', (event) => frames.push({ at: event.timestamp, bytes: Buffer.byteLength(event.response.payloadData) }));
  await cdp.send('Network.enable');
  return {
    /** Forgets what was recorded: a new load starts. */
    restart() {
      resources = new Map();
      frames = [];
    },
    snapshot: () => ({ resources: [...resources.values()], frames }),
  };
}

/** Bytes of `resource` received by `until` (the protocol's clock): all of them once finished. */
const bytesBy = (resource: Recorded, until = Infinity) =>
  resource.finished && resource.finished.at <= until
    ? resource.finished.bytes
    : resource.chunks.filter((chunk) => chunk.at <= until).reduce((sum, chunk) => sum + chunk.bytes, 0);

/** Waits for the position in `page` and returns its frame time (ms from the navigation's start). */
async function positionShown(page: Page): Promise<PositionShown> {
  const handle = await page.waitForFunction(() => (window as unknown as { __positionShown?: PositionShown }).__positionShown, undefined, {
    timeout: 60_000,
    polling: 50,
  });
  return (await handle.jsonValue()) as PositionShown;
}

/**
 * The scripts the page asked for before its frame at `at`, on its own clock (Resource Timing), so no lag of the protocol on a busy
 * machine counts a later script as an earlier one; read once every script the protocol saw asked for has arrived (and has its entry).
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
  return statSync(existsSync(`${file}.gz`) ? `${file}.gz` : file).size;
}

/** The build's initial-JavaScript budget, gzipped, from the size.json it wrote beside the page. */
export function jsBudgetOf(pageDir: string): number {
  return (JSON.parse(readFileSync(path.join(pageDir, 'size.json'), 'utf8')) as { budget: { initialJsGzip: number } }).budget.initialJsGzip;
}

/** A fresh context (empty cache) on the slow phone, recording its network; `locale` sets its Accept-Language. */
async function slowPhone(browser: Browser, locale?: string, cpuSlowdown = CPU_SLOWDOWN) {
  const context = await browser.newContext(locale ? { locale } : {});
  await context.addInitScript(WATCH_POSITION);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const network = await recordNetwork(cdp);
  await cdp.send('Network.emulateNetworkConditions', { offline: false, ...FAST_3G });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  return { context, page, network };
}

/** One cold load of the held page at `url`; `settle`: wait for the network to go quiet, so the late answers count too (else only what preceded the position is exact). */
async function coldLoad({ page, network }: Awaited<ReturnType<typeof slowPhone>>, url: string, pageDir: string, settle: boolean) {
  await page.goto(url, { waitUntil: 'commit' });
  const shown = await positionShown(page);
  if (settle) await page.waitForLoadState('networkidle');
  const cold = network.snapshot();
  const document = cold.resources.find((resource) => resource.type === 'Document');
  if (!document) throw new Error('the protocol reported no document request');
  // The protocol saw the document's request sent when the page's clock read its fetchStart.
  const shownAt = document.sentAt + (shown.at - shown.fetchStart) / 1000;
  const scripts = await scriptsAskedBefore(page, network, shown.at);
  return {
    positionShownMs: shown.at,
    wireBytesBeforePosition:
      cold.resources.reduce((sum, resource) => sum + bytesBy(resource, shownAt), 0) +
      cold.frames.filter((frame) => frame.at <= shownAt).reduce((sum, frame) => sum + frame.bytes, 0),
    jsBeforePosition: {
      gzip: scripts.reduce((sum, script) => sum + gzipSizeOf(pageDir, script), 0),
      files: scripts.map((script) => path.basename(new URL(script).pathname)),
    },
  };
}

/** One cold load and one reload of the held page at `url`, in a fresh context. */
async function oneRun(browser: Browser, url: string, pageDir: string) {
  const phone = await slowPhone(browser);
  try {
    const cold = await coldLoad(phone, url, pageDir, true);
    phone.network.restart();
    await phone.page.reload({ waitUntil: 'commit' });
    const positionShownMs = (await positionShown(phone.page)).at;
    await phone.page.waitForLoadState('networkidle');
    const reloaded = phone.network.snapshot().resources.filter((resource) => resource.type === 'Script' || resource.type === 'Stylesheet');
    return { ...cold, reload: { scriptAndStyleBytes: reloaded.reduce((sum, resource) => sum + bytesBy(resource), 0), positionShownMs } };
  } finally {
    await phone.context.close();
  }
}

/** Runs `measure` with one browser against a server of the page in `pageDir` before the demo shop, its room filled by one admitted session. */
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

/** One language's cold load on the slow phone: `lang` is the `<html lang>` the server wrote for the browser's `locale`. */
export type LanguageLoad = { readonly locale: string; readonly lang: string } & Awaited<ReturnType<typeof coldLoad>>;

/**
 * The page in each of `locales`, one cold load each on the slow phone (no reload, no waiting for
 * the network to go quiet: only what comes before the position is measured), all with one
 * browser and one server. `concurrency`: loads side by side; the bytes are the same either way,
 * the times are not (the phones share the cores), so the bench, which judges the time, keeps 1.
 * `cpuSlowdown`: 1 for what is fetched alone, which the page's order decides, not the CPU's speed
 * (Chromium's throttling spins a core while it holds a page back).
 */
export async function measureLanguages(
  options: PageLoadOptions & { readonly locales: readonly string[]; readonly concurrency?: number; readonly cpuSlowdown?: number },
) {
  return withHeldPage(options.pageDir, options.env, async (browser, url) => {
    const loads = new Array<LanguageLoad>(options.locales.length);
    let next = 0;
    const loadNext = async (): Promise<void> => {
      for (let index = next++; index < options.locales.length; index = next++) {
        const locale = options.locales[index];
        const phone = await slowPhone(browser, locale, options.cpuSlowdown);
        try {
          const cold = await coldLoad(phone, url, options.pageDir, false);
          loads[index] = { locale, lang: await phone.page.evaluate(() => document.documentElement.lang), ...cold };
          options.log(`  ${locale}: position at ${cold.positionShownMs.toFixed(0)} ms, ${cold.wireBytesBeforePosition} bytes before it`);
        } finally {
          await phone.context.close();
        }
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, loadNext));
    return loads;
  });
}

/** Loads the page built in `options.pageDir` `options.runs` times, each cold then reloaded; the medians beside each run's. */
export async function measurePageLoad(options: PageLoadOptions & { readonly runs: number }) {
  return withHeldPage(options.pageDir, options.env, async (browser, url) => {
    const runs: LoadRun[] = [];
    for (let i = 0; i < options.runs; i++) {
      const run = await oneRun(browser, url, options.pageDir);
      runs.push(run);
      options.log(`  run ${i + 1}: position at ${run.positionShownMs.toFixed(0)} ms, ${run.wireBytesBeforePosition} bytes before it`);
    }
    const mid = (pick: (run: LoadRun) => number) => median(runs.map(pick));
    return {
      settings: { network: FAST_3G, cpuSlowdown: CPU_SLOWDOWN, runs: options.runs, chromium: browser.version(), jsBudgetGzip: jsBudgetOf(options.pageDir) },
      median: {
        positionShownMs: mid((run) => run.positionShownMs),
        wireBytesBeforePosition: mid((run) => run.wireBytesBeforePosition),
        jsBeforePositionGzip: mid((run) => run.jsBeforePosition.gzip),
        reloadScriptAndStyleBytes: mid((run) => run.reload.scriptAndStyleBytes),
        reloadPositionShownMs: mid((run) => run.reload.positionShownMs),
      },
      runs,
    };
  });
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const { wireBytesBeforePosition: WIRE, positionShownMs: SHOWN, reloadScriptAndStyleBytes: RELOAD } = PAGE_LOAD_TARGETS;

/** PASS/MISS for the page's targets, on the medians (the JavaScript budget on every run); `page` names the page measured. */
export function pageLoadChecks(result: PageLoadResult, page = 'page'): TargetCheck[] {
  const { median: figures, settings, runs } = result;
  const across = `median of ${settings.runs} runs`;
  return [
    check(
      `${page}: JavaScript fetched before the position shows, gzipped (Chromium, cold cache; the build budget)`,
      `≤ ${kb(settings.jsBudgetGzip)}`,
      `${kb(figures.jsBeforePositionGzip)} (${figures.jsBeforePositionGzip} bytes; ${across}; per run ${runs.map((run) => run.jsBeforePosition.gzip).join(', ')})`,
      !overBudget(result),
    ),
    check(
      `${page}: bytes on the wire before the position shows (Chromium, cold cache)`,
      `≤ ${kb(WIRE)}`,
      `${kb(figures.wireBytesBeforePosition)} (${figures.wireBytesBeforePosition} bytes; ${across})`,
      figures.wireBytesBeforePosition <= WIRE,
    ),
    check(
      `${page}: time to position, Fast 3G and 4× CPU slowdown`,
      `≤ ${(SHOWN / 1000).toFixed(1)} s`,
      `${seconds(figures.positionShownMs)} (${across}; per run ${runs.map((run) => seconds(run.positionShownMs)).join(', ')})`,
      figures.positionShownMs <= SHOWN,
    ),
    check(
      `${page}: scripts and styles a reload downloads`,
      `< ${kb(RELOAD)}`,
      `${figures.reloadScriptAndStyleBytes} bytes (${across})`,
      figures.reloadScriptAndStyleBytes < RELOAD,
    ),
  ];
}

/** The run that fetched more JavaScript before the position than the build's budget, if any: the bytes do not vary with the load, so every run is judged. */
const overBudget = (result: PageLoadResult) => result.runs.find((run) => run.jsBeforePosition.gzip > result.settings.jsBudgetGzip);

/** The build's budget check, on what the browser fetched: throws, naming the scripts, when a run went past it. */
export function checkPageBudget(result: PageLoadResult): void {
  const over = overBudget(result);
  if (!over) return;
  throw new Error(
    `The page fetched ${over.jsBeforePosition.gzip} bytes of JavaScript (gzipped) before the position showed, ` +
      `past the build's budget of ${result.settings.jsBudgetGzip}: ${over.jsBeforePosition.files.join(', ')}`,
  );
}

/** PASS/MISS for the page's targets in every language: the slowest and the heaviest language, one cold load each. */
export function languageLoadChecks(loads: readonly LanguageLoad[]): TargetCheck[] {
  const worst = (pick: (load: LanguageLoad) => number) => loads.reduce((most, load) => (pick(load) > pick(most) ? load : most));
  const [slowest, heaviest] = [worst((load) => load.positionShownMs), worst((load) => load.wireBytesBeforePosition)];
  const every = `page in every language (${loads.length})`;
  return [
    check(
      `${every}: time to position of the slowest, Fast 3G and 4× CPU slowdown, one cold load each`,
      `≤ ${(SHOWN / 1000).toFixed(1)} s`,
      `${seconds(slowest.positionShownMs)} (${slowest.locale}; median of the languages ${seconds(median(loads.map((load) => load.positionShownMs)))})`,
      slowest.positionShownMs <= SHOWN,
    ),
    check(
      `${every}: bytes on the wire before the position shows, the heaviest`,
      `≤ ${kb(WIRE)}`,
      `${kb(heaviest.wireBytesBeforePosition)} (${heaviest.locale}, ${heaviest.wireBytesBeforePosition} bytes)`,
      heaviest.wireBytesBeforePosition <= WIRE,
    ),
  ];
}
