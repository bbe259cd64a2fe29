import { EMPTY, mergeMap, of, take, throwError, type Observable } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import { WaitingRoomError } from './errors';

/**
 * What ends a held request's wait: `'released'`, its turn; `'rejoin'`, its place was lost and
 * the request must be sent again (which takes a new place at the back of the line).
 */
export type Turn = 'released' | 'rejoin';

/**
 * The end of a wait, from its statuses: emits the turn and completes at the first `released`
 * (`'released'`) or `rejoining` (`'rejoin'`, the core's `rejoinDelay` after `lost`); errors with
 * a `WaitingRoomError` 'failed' at once at a `failed` status, with its message, without waiting
 * for the page's way out (`leaving`), which a request has no use for. A `leaving` without a
 * failure (the core found no pending request) errors too. Every other status is progress, and
 * ends nothing.
 */
export function turnOf(status$: Observable<QueueStatus>): Observable<Turn> {
  return status$.pipe(
    mergeMap((status): Observable<Turn> => {
      switch (status.kind) {
        case 'released':
          return of('released');
        case 'rejoining':
          return of('rejoin');
        case 'failed':
          return throwError(() => new WaitingRoomError('failed', status.message));
        case 'leaving':
          return throwError(() => new WaitingRoomError('failed', 'The waiting room found no request to wait for'));
        default:
          return EMPTY;
      }
    }),
    take(1),
  );
}
