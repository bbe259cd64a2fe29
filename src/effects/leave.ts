import { distinctUntilChanged, filter, type Observable, type Subscription } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';

/**
 * Leaves the page when the status says so: back in history on step 'back', the site root on
 * step 'root'. The stream core decides when; this only performs each step once.
 */
export function leave(status$: Observable<QueueStatus>, location: Pick<Location, 'assign'>, history: Pick<History, 'back'>): Subscription {
  return status$
    .pipe(
      filter((status) => status.kind == 'leaving'),
      distinctUntilChanged((a, b) => a.step == b.step),
    )
    .subscribe(({ step }) => (step == 'back' ? history.back() : location.assign('/')));
}
