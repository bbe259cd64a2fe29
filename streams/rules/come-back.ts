import { debounceTime, map, type Observable, type SchedulerLike } from 'rxjs';

/**
 * Beyond the spec: the visitor comes back to the page (shown again, resumed from frozen, restored
 * from the back-forward cache, online again). A return often comes as several signals at once
 * (`resume`, then `visibilitychange`, then `online`), so they count as one once `quiet` ms pass
 * without another, on `scheduler`.
 *
 * Emits `null` once per return, `quiet` ms after its last signal; never errors.
 */
export function comeBack(back$: Observable<unknown>, quiet: number, scheduler: SchedulerLike): Observable<null> {
  return back$.pipe(
    debounceTime(quiet, scheduler),
    map(() => null),
  );
}
