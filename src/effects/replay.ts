import { EMPTY, catchError, concatMap, defer, filter, map, take, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { describeError, type Report } from '../adapters/error-reporter';
import type { PerformReplay, PerformReplayDeps } from './perform-replay';

export interface ReplayDeps extends PerformReplayDeps {
  /** Loads the code that performs a replay (a file of its own, prefetched after the first paint). */
  readonly loadReplay: () => Promise<PerformReplay>;
  /** Told when that code cannot be loaded. */
  readonly report: Report;
}

/**
 * Replays the held request on the first 'released' status, and never again (the done flag). A
 * release that comes before the replay code has loaded waits for it; a load that fails is
 * reported (the page's loader tries again on the next call, so a failed prefetch is retried here).
 * Beyond the spec, a 'rejoining' status (a lost place, see streams/rules/rejoin) loads the held
 * GET again the same way, which joins the line afresh; a run ends with one or the other, never both.
 */
export function replay(status$: Observable<QueueStatus>, deps: ReplayDeps): Subscription {
  return status$
    .pipe(
      filter((status) => status.kind == 'released' || status.kind == 'rejoining'),
      take(1),
      concatMap((status) =>
        defer(deps.loadReplay).pipe(
          map((perform) => () => perform(status.kind == 'released' ? status.replay : { kind: 'navigate', target: status.target }, deps)),
          catchError((error: unknown) => {
            deps.report(`Waiting room replay could not load: ${describeError(error)}`);
            return EMPTY;
          }),
        ),
      ),
    )
    .subscribe((run) => run());
}
