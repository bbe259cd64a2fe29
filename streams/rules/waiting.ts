import { distinctUntilChanged, filter, map, merge, scan, type Observable } from 'rxjs';
import type { LiveStatus } from '../status.js';
import type { QueueInfo } from '../contract/queue-info.js';
import type { ConnectionState } from '../types.js';
import type { ShownResult } from './line-moved.js';

interface Shown {
  /** The last successful answer (or move of the line) and its time, null until the first answer. */
  readonly last: { readonly info: QueueInfo; readonly at: number } | null;
  readonly failedPolls: number;
  /** The latest connection state, null until `state$` says one. */
  readonly connection: ConnectionState | null;
}

const NOTHING_SHOWN: Shown = { last: null, failedPolls: 0, connection: null };

/** What is shown after one input: a connection state, or a queue_info outcome or move of the line. */
function record(shown: Shown, input: ShownResult | ConnectionState): Shown {
  if (typeof input == 'string') return { ...shown, connection: input };
  if (input.ok) return { ...shown, last: { info: input.info, at: input.at }, failedPolls: 'pushed' in input ? shown.failedPolls : 0 };
  // A lost or moved place is no failed poll: the status stream ends there (rules/lost-place,
  // rules/moved-away). Nor is a place waiting for its bot check: the server answered, with no position yet.
  return input.lost || input.movedAway || input.pending ? shown : { ...shown, failedPolls: shown.failedPolls + 1 };
}

function sameStatus(a: LiveStatus, b: LiveStatus): boolean {
  if (a.kind !== b.kind || a.connection !== b.connection || a.failedPolls !== b.failedPolls) return false;
  return a.kind === 'loading'
    ? a.opensAt === (b as typeof a).opensAt
    : b.kind === 'waiting' && a.position === b.position && a.estimated === b.estimated && a.updatedAt === b.updatedAt;
}

/**
 * The waiting display (spec section 4, "Loading to waiting display"). `state$` must start with
 * the current connection state.
 *
 * Emits `loading` until the first successful queue_info answer, then `waiting` with that
 * answer's position, estimated minutes and time (`updatedAt`); each later answer emits a new
 * `waiting`. Both carry the latest connection state and `failedPolls`, the queue_info calls
 * failed in a row since the last success: a failure keeps the last position on screen and only
 * counts up, a success resets the count. A lost place (see rules/lost-place) is not counted: the
 * status stream ends on it; nor is a place that waits for its bot check, which changes nothing. A move of the line (`Pushed`, see line-moved) shows its position and
 * time as an answer does but leaves the count as it is. A new status is emitted whenever any
 * field changes, never twice the same.
 *
 * Beyond the spec, an answer with `opensIn` (the visitor is in a scheduled event's pre-queue) has
 * no position to show: the status stays `loading`, with `opensAt`, the answer's time plus
 * `opensIn` to the second, until an answer without it.
 */
export function waiting(results$: Observable<ShownResult>, state$: Observable<ConnectionState>): Observable<LiveStatus> {
  return merge(results$, state$).pipe(
    // One scan over both inputs: what combineLatest would give, with less code for the page to load.
    scan(record, NOTHING_SHOWN),
    // Nothing until the connection state is known, then a status on every input.
    filter((shown): shown is Shown & { readonly connection: ConnectionState } => shown.connection !== null),
    map(({ last, failedPolls, connection }): LiveStatus => {
      const opensIn = last?.info.opensIn;
      return last === null || opensIn !== undefined
        ? { kind: 'loading', connection, failedPolls, ...(last && { opensAt: Math.round((last.at + opensIn!) / 1000) * 1000 }) }
        : { kind: 'waiting', position: last.info.position, estimated: last.info.estimated, updatedAt: last.at, connection, failedPolls };
    }),
    distinctUntilChanged(sameStatus),
  );
}
