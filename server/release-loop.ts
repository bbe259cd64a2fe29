import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from './clock';
import type { Releases } from './releases';

export interface ReleaseLoop {
  /** Stops the loop and waits for a step under way. */
  stop(): Promise<void>;
}

/**
 * Runs `releases.releaseDue()` every `intervalMs` on `clock`. A step never overlaps the
 * previous one, and a failed step (the store away) is logged and tried again next time.
 */
export function startReleaseLoop(
  releases: Releases,
  clock: Clock,
  intervalMs: number,
  log: FastifyBaseLogger,
): ReleaseLoop {
  let running: Promise<void> | undefined;
  const step = async (): Promise<void> => {
    if (running) return;
    running = releases
      .releaseDue()
      .then(() => undefined)
      .catch((error: unknown) => log.warn({ err: error }, 'release step failed'))
      .finally(() => {
        running = undefined;
      });
    await running;
  };
  const cancel = clock.every(intervalMs, step);
  return {
    async stop() {
      cancel();
      await running;
    },
  };
}
