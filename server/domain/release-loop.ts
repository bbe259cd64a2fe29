import type { Logger } from './logger';
import type { Clock } from './clock';
import type { EventSchedule } from './events/schedule';
import type { Releases } from './releases';
import type { ReportRecorder } from './report/recorder';

export interface ReleaseLoop {
  /** Stops the loop and waits for a step under way. */
  stop(): Promise<void>;
}

/**
 * Every `intervalMs` on `clock`: the room's event transitions (`events.step()`), the sweep of those who walked away (`releases.dropAbandoned()`),
 * then the release step (`releases.releaseDue()`), then the report's sample of the line. The sweep runs whatever the release step would
 * do (a full room, the pause, a rate of 0 release nobody), and first, so that a release meets a
 * live head. A step never overlaps the previous one, and a failed part (the store away) is
 * logged, does not keep the other from running, and is tried again next time.
 */
export function startReleaseLoop(
  releases: Releases,
  clock: Clock,
  intervalMs: number,
  log: Logger,
  /** The room's events: their transitions are taken first, so that the sweep and the release step follow them. */
  events?: Pick<EventSchedule, 'step'>,
  /** The room's report: a sample of the line after each step. */
  report?: Pick<ReportRecorder, 'sample'>,
): ReleaseLoop {
  let running: Promise<void> | undefined;
  const step = async (): Promise<void> => {
    if (running) return;
    running = (async () => {
      await events?.step().catch((error: unknown) => log.warn({ err: error }, 'event step failed'));
      await releases.dropAbandoned().catch((error: unknown) => log.warn({ err: error }, 'abandonment sweep failed'));
      await releases.releaseDue().catch((error: unknown) => log.warn({ err: error }, 'release step failed'));
      await report?.sample();
    })().finally(() => {
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
