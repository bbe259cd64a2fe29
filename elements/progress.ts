import type { QueueStatus } from '@waiting-room/streams';

/** What `<waiting-room-status>` shows of the requests `heldFetch()` holds. */
export interface Progress {
  /** Requests held now: waiting in line, or sent again after their turn and not answered yet. */
  readonly held: number;
  /** The latest status of the place the oldest of them waits for; null before its first one. */
  readonly status: QueueStatus | null;
}

export const NOTHING_HELD: Progress = { held: 0, status: null };

/** What happens to held requests, as `heldFetch()` tells it. `request` numbers one call of `heldFetch()`. */
export type ProgressEvent =
  /** The gateway held the request, in the place `uuid` (again after a turn: maybe another place). */
  | { readonly kind: 'held'; readonly request: number; readonly uuid: string }
  /** The wait for the place `uuid` has a new status. */
  | { readonly kind: 'status'; readonly uuid: string; readonly status: QueueStatus }
  /** The request's promise settled: answered, failed or aborted. */
  | { readonly kind: 'settled'; readonly request: number };

/** Which place each held request waits for (oldest first), and the latest status of each place. */
export interface ProgressState {
  readonly places: ReadonlyMap<number, string>;
  readonly statuses: ReadonlyMap<string, QueueStatus>;
}

export const NO_PROGRESS: ProgressState = { places: new Map(), statuses: new Map() };

/** The next state: pure, for `scan`. A place's status is kept while a request still names it. */
export function nextProgress(state: ProgressState, event: ProgressEvent): ProgressState {
  switch (event.kind) {
    case 'held':
      return { ...state, places: new Map(state.places).set(event.request, event.uuid) };
    case 'status':
      return [...state.places.values()].includes(event.uuid) ? { ...state, statuses: new Map(state.statuses).set(event.uuid, event.status) } : state;
    case 'settled': {
      const places = new Map(state.places);
      places.delete(event.request);
      const named = new Set(places.values());
      return { places, statuses: new Map([...state.statuses].filter(([uuid]) => named.has(uuid))) };
    }
  }
}

/** What the state shows: how many requests are held, and the status of the oldest one's place. */
export function progressOf(state: ProgressState): Progress {
  const [oldest] = state.places.values();
  return { held: state.places.size, status: (oldest !== undefined && state.statuses.get(oldest)) || null };
}
