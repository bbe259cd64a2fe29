import { map, take, type Observable } from 'rxjs';
import type { Released } from '../status.js';
import { replayOf, type HeldRequest } from './replay.js';

/**
 * The release (spec section 4, "executed once only, guarded by the done flag").
 * Emits one `released` status with the replay to perform for the first release event, then
 * completes and lets go of `release$`: a duplicate or later release event can never produce a
 * second replay.
 */
export function releaseOnce(release$: Observable<unknown>, request: HeldRequest): Observable<Released> {
  return release$.pipe(
    take(1),
    map((): Released => ({ kind: 'released', replay: replayOf(request) })),
  );
}
