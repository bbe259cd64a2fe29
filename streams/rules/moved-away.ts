import { filter, map, merge, take, type Observable } from 'rxjs';
import type { Moved } from '../status.js';
import type { PollResult } from './queue-info.js';

/**
 * The place moved to another browser (an extension beyond the spec): the visitor opened a
 * "continue on another device" link elsewhere, and the place goes on there under another uuid.
 * Told by the `PlaceHandedOff` event on the visitor's channel (`handedOff$`), or, when that was
 * missed, by a queue_info answer saying so (see `placeMovedAway`).
 *
 * Emits one `moved` status on the first of them, then completes. The caller ends the status
 * stream there: polls, watchdogs and the release listener are let go, so this page never replays
 * what now belongs to the other browser.
 */
export function movedAway(results$: Observable<PollResult>, handedOff$: Observable<unknown>): Observable<Moved> {
  return merge(results$.pipe(filter((result) => !result.ok && !!result.movedAway)), handedOff$).pipe(
    take(1),
    map((): Moved => ({ kind: 'moved' })),
  );
}
