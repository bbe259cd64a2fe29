import { solveChallengeWorkers } from 'altcha-lib';
import type { AltchaChallenge } from '@waiting-room/streams/contract';

/** Where the page's build wrote the worker (`/assets/altcha-worker-<hash>.js`). */
declare const ALTCHA_WORKER_URL: string;

/** Most workers a solve runs at once: each takes a core and 1 MiB a try. */
const MAX_WORKERS = 4;

export interface SolveOptions {
  /** The worker script (worker.ts, built); by default the one the page's build wrote beside this file. */
  readonly workerUrl?: string | URL;
  /** How many workers split the counters; by default the device's cores, at most 4. */
  readonly concurrency?: number;
  /** Stops the solve (the workers are ended); the promise then rejects. */
  readonly signal?: AbortSignal;
}

/**
 * Solves the bot check's challenge (the page config's `altcha`) in Web Workers, off the page's
 * thread, and answers what queue_request sends as `altcha`: the base64 of `{challenge, solution}`,
 * as ALTCHA's widget sends it. Rejects when the workers fail, or the solve is stopped. Loaded
 * lazily: only a page with a challenge fetches it, and its workers.
 *
 * Any other client of the waiting room (a single-page app's fetch, a mobile web view) solves the
 * challenge of a held 503 the same way: `solveAltcha(config.altcha, { workerUrl })`.
 */
export async function solveAltcha(challenge: AltchaChallenge, options: SolveOptions = {}): Promise<string> {
  const workerUrl = options.workerUrl ?? ALTCHA_WORKER_URL;
  const controller = new AbortController();
  options.signal?.addEventListener('abort', () => controller.abort());
  const solution = await solveChallengeWorkers({
    challenge: challenge,
    concurrency: options.concurrency ?? Math.min(MAX_WORKERS, navigator.hardwareConcurrency || 1),
    createWorker: () => new Worker(workerUrl, { type: 'module' }),
    controller,
    // No time limit of our own: the server says when the challenge has expired.
    timeout: 0,
  });
  if (!solution) throw new Error(controller.signal.aborted ? 'The bot check was stopped.' : 'The bot check found no solution.');
  return btoa(JSON.stringify({ challenge, solution }));
}
