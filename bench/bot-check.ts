import { randomBytes } from 'node:crypto';
import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import type { AltchaChallenge } from '@waiting-room/streams/contract';
import { KDF } from '../server/domain/bot-check/challenge';
import { DEFAULT_DIFFICULTY, loadConfig } from '../server/process/config';
import { demoShop } from '../demo/origin';
import { start } from '../server/process/start';
import { launchBrowser } from '../spec/support/browser';
import { CPU_SLOWDOWN } from './slow-phone';
import { distribution, median } from './stats';

export interface BotCheckOptions {
  /** The page built in this run (its bot-check chunk and worker are what a visitor loads). */
  readonly pageDir: string;
  /** Solves of each kind in the browser, each of a fresh challenge. */
  readonly browserSolves: number;
  readonly difficulty: number;
  readonly log: (line: string) => void;
}

export const DEFAULT_BOT_CHECK_OPTIONS = { browserSolves: 15, difficulty: DEFAULT_DIFFICULTY } as const;

type Distribution = ReturnType<typeof distribution>;

export interface BotCheckResult {
  readonly settings: {
    readonly difficulty: number;
    readonly kdf: typeof KDF;
    readonly browserSolves: number;
  };
  readonly browser: {
    /** What a visitor's page does here: `solveAltcha`, its Web Workers (as many as the cores), no throttling (ms). */
    readonly workers: Distribution;
    readonly concurrency: number;
    /** The same solve on the page's thread, one try after the other (ms). */
    readonly mainThread: Distribution;
    /** The same, with `Emulation.setCPUThrottlingRate` at CPU_SLOWDOWN (ms): the slow phone. */
    readonly throttled: Distribution;
    /** median(throttled) ÷ median(mainThread): the slow-down the throttling gave. */
    readonly throttleRatio: number;
    /** Milliseconds a try (one key derivation) takes in the browser, unthrottled: main-thread time ÷ tries. */
    readonly msPerTry: number;
  };
}

/**
 * What a solve costs a visitor in Chromium (CPU throttled 4×), the bot check's judged figure.
 *
 * CPU throttling (`Emulation.setCPUThrottlingRate`) reaches a page's main thread only: Chromium
 * refuses it on a worker. So the slow phone is measured on the page's thread, solving with one
 * worker's code (the same WebAssembly scrypt, one try after the other), which is what one worker
 * of a phone whose cores are all 4× slower would take; the page itself, splitting the tries between
 * a worker per core, takes less. The unthrottled solves, on the page's thread and in its workers,
 * are taken in the same run, interleaved, so the ratios hold on a busy machine.
 */
export async function measureBotCheck(options: BotCheckOptions): Promise<BotCheckResult> {
  const { pageDir, difficulty, log } = options;
  const server = await start(
    {
      ...loadConfig({
        BOT_CHALLENGE: 'pow',
        BOT_CHALLENGE_DIFFICULTY: String(difficulty),
        PORT: '0',
        HOST: '127.0.0.1',
        ACTIVE_LIMIT: '1',
        RELEASE_PER_MINUTE: '0',
        LOG_LEVEL: 'silent',
        ADMIN_TOKEN: randomBytes(24).toString('base64url'),
      }),
      assetsDir: pageDir,
      pageHtmlPath: path.join(pageDir, 'waiting.html'),
    },
    { defaultOrigin: demoShop },
  );
  const benchModule = await buildMainThreadSolver(pageDir);
  const assets = readdirSync(pageDir);
  const asset = (pattern: RegExp) => `/assets/${assets.find((file) => pattern.test(file))}`;
  const challenge = async (): Promise<AltchaChallenge> => {
    // A session of its own each time: a held program's 503 carries a fresh challenge.
    const answer = await fetch(`${server.url}/checkout`, { headers: { accept: 'application/json' } });
    return ((await answer.json()) as { altcha: AltchaChallenge }).altcha;
  };
  const browser = await launchBrowser();
  try {
    await fetch(`${server.url}/checkout`);
    // A document of the server's origin without a script of its own (a style sheet), from which
    // the solver's modules are imported as the waiting page imports them. Each solve has a browser
    // context of its own, as each visitor's page has: hash-wasm instantiates WebAssembly for every
    // try, and the memory one page leaves to the garbage collector is no other's to run short of.
    const solve = async (how: 'workers' | 'main', slowdown: number) => {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        await page.goto(`${server.url}${asset(/^waiting-.*\.css$/)}`);
        const cdp = await context.newCDPSession(page);
        await cdp.send('Emulation.setCPUThrottlingRate', { rate: slowdown });
        const module = how === 'workers' ? asset(/^bot-check-.*\.js$/) : benchModule;
        const call = how === 'workers' ? 'solveAltcha' : 'solveOnThisThread';
        // The time from the call to the payload: the solve, with its WebAssembly compiled on the way.
        return await page.evaluate(
          async ({ module, call, given }) => {
            const solver = (await import(module)) as Record<string, (challenge: unknown) => Promise<string>>;
            const started = performance.now();
            const payload = await solver[call](given);
            return { ms: performance.now() - started, tries: (JSON.parse(atob(payload)) as { solution: { counter: number } }).solution.counter + 1 };
          },
          { module, call, given: await challenge() },
        );
      } finally {
        await context.close();
      }
    };
    const probe = await browser.newPage();
    const concurrency = await probe.evaluate(() => Math.min(4, navigator.hardwareConcurrency || 1));
    await probe.close();
    log(`bot check: ${options.browserSolves} solves of each kind in Chromium (difficulty ${difficulty}, ${concurrency} workers)…`);
    // One of each first, so that no figure includes the server's or the disk's first answers.
    await solve('workers', 1);
    await solve('main', 1);
    const workers: number[] = [];
    const mainThread: { ms: number; tries: number }[] = [];
    const throttled: number[] = [];
    for (let i = 0; i < options.browserSolves; i++) {
      workers.push((await solve('workers', 1)).ms);
      mainThread.push(await solve('main', 1));
      throttled.push((await solve('main', CPU_SLOWDOWN)).ms);
    }
    const mainMs = mainThread.map((one) => one.ms);
    return {
      settings: { difficulty, kdf: KDF, browserSolves: options.browserSolves },
      browser: {
        workers: distribution(workers),
        concurrency,
        mainThread: distribution(mainMs),
        throttled: distribution(throttled),
        throttleRatio: round(median(throttled) / median(mainMs), 2),
        msPerTry: round(mainThread.reduce((sum, one) => sum + one.ms, 0) / mainThread.reduce((sum, one) => sum + one.tries, 0), 3),
      },
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

/**
 * The page's solver without its workers, for the throttled figure: altcha-lib's `solveChallenge`
 * with the worker's own key derivation, on the calling thread. Written beside the page's assets.
 */
async function buildMainThreadSolver(pageDir: string): Promise<string> {
  const root = path.join(__dirname, '..');
  const source = `import { solveChallenge } from 'altcha-lib';
import { deriveKey } from './bot-check/derive-key';
export async function solveOnThisThread(challenge) {
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 0 });
  return btoa(JSON.stringify({ challenge, solution }));
}`;
  const result = await esbuild.build({
    stdin: { contents: source, resolveDir: root, loader: 'ts' },
    absWorkingDir: root,
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    write: false,
    logLevel: 'warning',
  });
  const name = `bench-solver-${randomBytes(4).toString('hex')}.js`;
  writeFileSync(path.join(pageDir, name), result.outputFiles[0].contents);
  return `/assets/${name}`;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;
