import { filter, map, take, type Observable } from 'rxjs';
import type { Lost } from '../status.js';
import type { PollResult } from './queue-info.js';
import { replayOf, type HeldRequest } from './replay.js';

/**
 * The lost place (an extension beyond the spec): the server answered a queue_info call with
 * "unknown place" (see place-lost.ts), so no release event can ever come for this uuid.
 *
 * Emits one `lost` status on the first such answer, then completes and lets go of `results$`.
 * `rejoin` is the held GET's target (the URI with the hash kept), to load again: the server then
 * holds it afresh, at the back of the line. It is null for any other verb, whose held form cannot
 * be sent again without the visitor. Other failed calls stay failed polls (rules/waiting).
 */
export function lostPlace(results$: Observable<PollResult>, request: HeldRequest): Observable<Lost> {
  const replay = replayOf(request);
  return results$.pipe(
    filter((result) => !result.ok && !!result.lost),
    take(1),
    map((): Lost => ({ kind: 'lost', rejoin: replay.kind == 'navigate' ? replay.target : null })),
  );
}
