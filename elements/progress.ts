import type { QueueStatus } from '@waiting-room/streams';
import type { LanguageJson } from '@waiting-room/streams/contract';

/** What `<waiting-room-status>` shows of the requests `heldFetch()` holds. */
export interface Progress {
  /** Requests held now: waiting in line, or sent again after their turn and not answered yet. */
  readonly held: number;
  /** The latest status of the place the oldest of them waits for; null before its first one. */
  readonly status: QueueStatus | null;
  /**
   * The visitor's language as the gateway chose it for that place (the held answer's page config,
   * its messages included); null (or absent, in a progress of a site's own) when its answer carried none.
   */
  readonly language?: LanguageJson | null;
}

export const NOTHING_HELD: Progress = { held: 0, status: null, language: null };

/** What happens to held requests, as `heldFetch()` tells it. `request` numbers one call of `heldFetch()`. */
export type ProgressEvent =
  /** The gateway held the request, in the place `uuid` (again after a turn: maybe another place), speaking `language`. */
  | { readonly kind: 'held'; readonly request: number; readonly uuid: string; readonly language: LanguageJson | null }
  /** The wait for the place `uuid` has a new status. */
  | { readonly kind: 'status'; readonly uuid: string; readonly status: QueueStatus }
  /** The request's promise settled: answered, failed or aborted. */
  | { readonly kind: 'settled'; readonly request: number };

/** Which place each held request waits for (oldest first), the latest status of each place, and its language. */
export interface ProgressState {
  readonly places: ReadonlyMap<number, string>;
  readonly statuses: ReadonlyMap<string, QueueStatus>;
  readonly languages: ReadonlyMap<string, LanguageJson>;
}

export const NO_PROGRESS: ProgressState = { places: new Map(), statuses: new Map(), languages: new Map() };

/** The entries of `map` whose place a held request still names. */
const named = <T>(map: ReadonlyMap<string, T>, places: ReadonlySet<string>) => new Map([...map].filter(([uuid]) => places.has(uuid)));

/** The next state: pure, for `scan`. A place's status is kept while a request still names it. */
export function nextProgress(state: ProgressState, event: ProgressEvent): ProgressState {
  switch (event.kind) {
    case 'held': {
      const languages = new Map(state.languages);
      if (event.language) languages.set(event.uuid, event.language);
      return { ...state, places: new Map(state.places).set(event.request, event.uuid), languages };
    }
    case 'status':
      return [...state.places.values()].includes(event.uuid) ? { ...state, statuses: new Map(state.statuses).set(event.uuid, event.status) } : state;
    case 'settled': {
      const places = new Map(state.places);
      places.delete(event.request);
      const still = new Set(places.values());
      return { places, statuses: named(state.statuses, still), languages: named(state.languages, still) };
    }
  }
}

/** What the state shows: how many requests are held, and the status and language of the oldest one's place. */
export function progressOf(state: ProgressState): Progress {
  const [oldest] = state.places.values();
  if (oldest === undefined) return NOTHING_HELD;
  return { held: state.places.size, status: state.statuses.get(oldest) ?? null, language: state.languages.get(oldest) ?? null };
}
