import type { Observable, SchedulerLike } from 'rxjs';
import type { Timings } from './contract/constants.js';
import type { LineMoved, QueueInfo, QueueOpened } from './contract/queue-info.js';

/** The realtime client's connection states (pusher-js names). */
export type ConnectionState = 'initialized' | 'connecting' | 'connected' | 'unavailable' | 'failed' | 'disconnected';

/** The held request, as the page received it (spec section 3). */
export interface QueuedRequest {
  readonly uuid: string;
  /** Pending request URI; null when absent or refused (the page then leaves). */
  readonly uri: string | null;
  readonly method: string;
  /** The address bar's hash fragment (with its '#', or ''), kept on the replay target. */
  readonly hash: string;
}

/**
 * Everything the outside world tells the core. Hot observables are events as they happen;
 * functions return cold observables that perform one call each time they are subscribed.
 */
export interface QueueSources {
  /** Each connection state the realtime client enters. */
  readonly state$: Observable<ConnectionState>;
  /** Each connection `error` event. */
  readonly error$: Observable<unknown>;
  /** Each successful channel subscription. */
  readonly subscribed$: Observable<unknown>;
  /** Each release event (RequestUnqueud) received on the visitor's channel. */
  readonly release$: Observable<unknown>;
  /** Requests the channel subscription; subscribed on each `connected`. Emissions are ignored. */
  readonly subscribe: () => Observable<unknown>;
  /**
   * One queue_info call. It errors with a value marked `placeLost: true` (see `placeLost()` and
   * `isPlaceLost()`) when the server does not know the place (any longer); any other error, or
   * an answer that is not a position, is a failed poll.
   */
  readonly queueInfo: () => Observable<QueueInfo>;
  /**
   * One queue_request call. Its answer is not read. With `altcha$`, it is called with the
   * solution's payload, to send as the field `altcha`.
   */
  readonly queueRequest: (altcha?: string) => Observable<unknown>;
  /** Each `QueueMoved` event on the line-wide channel (an extension; optional). */
  readonly moved$?: Observable<LineMoved>;
  /**
   * Each `QueueOpened` event on the channel of the scheduled event whose pre-queue the visitor is
   * in (an extension; optional): one queue_info call follows, within its spread (see the README's "A pre-queue opens").
   */
  readonly opened$?: Observable<QueueOpened>;
  /**
   * The bot check (an extension; optional): the payload of the solution to the config's `altcha`
   * challenge. Every queue_request waits for its first value and carries it; it is subscribed on
   * each successful channel subscription, so it must replay its value and be sought on its own
   * from the start, while the page connects (`from(solve(challenge))`: a promise does both).
   * Without it, queue_request goes as the spec has it.
   */
  readonly altcha$?: Observable<string>;
  /**
   * Each sign that the visitor is back on the page (an extension; optional): shown again, resumed
   * from frozen, restored from the back-forward cache, online again. A burst of them brings one
   * queue_info call once they are quiet for `TIMINGS.backQuiet`, and the 60 s poll starts again
   * from that call, so the position shows at once instead of at the next poll.
   */
  readonly back$?: Observable<unknown>;
  /**
   * Each `PlaceHandedOff` event on the visitor's channel (an extension; optional): the place moved
   * to another browser. The first ends the status stream in `moved`.
   */
  readonly handedOff$?: Observable<unknown>;
}

/** The name of a source, as in `QueueSources`. */
export type SourceName = keyof QueueSources;

/**
 * Told about an error raised by a hot source or by `subscribe()`. Such an error ends that source
 * only; the status stream goes on. queue_info and queue_request failures are expected network
 * failures: they are counted in `failedPolls` or dropped, never passed here; so is a queue_info
 * call that says the place is lost (it ends the status stream in `lost`).
 */
export type SourceErrorHandler = (source: SourceName, error: unknown) => void;

export interface QueueOptions {
  /** Anonymous visitors (falsy user id) also poll every 5 s once subscribed. */
  readonly anonymous: boolean;
  readonly request: QueuedRequest;
  /** Overrides of the spec's section 9 timings (tests and documented page-config options only). */
  readonly timings?: Partial<Timings>;
  readonly scheduler?: SchedulerLike;
  /** Where source errors go (the page reports them); without it they only end their source. */
  readonly onSourceError?: SourceErrorHandler;
  /**
   * Beyond the spec: queue_info is also asked at once, on subscription, without waiting for
   * `connected` (whose poll still starts as the spec has it), so that the position can show while
   * the realtime connection is still opening. Off unless set.
   */
  readonly queueInfoAtStart?: boolean;
}

/** What the page must do to replay the held request (spec section 4). */
export type Replay =
  | { readonly kind: 'navigate'; readonly target: string }
  | {
      readonly kind: 'form';
      /** The held request URI: the form is POSTed there. */
      readonly action: string;
      /** The real method; sent as `_method` when it is not POST. */
      readonly method: string;
      readonly uuid: string;
    };

/** The exact messages of the spec's error catalogue (section 8), typos included. */
export type FailureMessage = 'Websoket KO - unavailable' | 'Websocket KO - position 0 depuis 10sec';

/** Where the page is going when it leaves: back in history first, then the site root. */
export type LeaveStep = 'back' | 'root';

/** Health of what feeds the waiting display, for a notice that does not make the page leave. */
export interface Health {
  /** The latest connection state. */
  readonly connection: ConnectionState;
  /** queue_info calls failed in a row since the last success. */
  readonly failedPolls: number;
}

/** The one status stream the page renders and acts on. */
export type QueueStatus =
  | ({
      readonly kind: 'loading';
      /**
       * Beyond the spec: the visitor waits in a scheduled event's pre-queue, which has no positions
       * yet; the sale opens at this scheduler time (ms), to the second (the server's clock, read
       * through queue_info's `opensIn`). At or past it, the draw is under way.
       */
      readonly opensAt?: number;
    } & Health)
  | ({
      readonly kind: 'waiting';
      readonly position: number;
      readonly estimated: number;
      /** Scheduler time (ms) of the last successful queue_info answer, or of the last move pushed since. */
      readonly updatedAt: number;
    } & Health)
  | { readonly kind: 'released'; readonly replay: Replay }
  | { readonly kind: 'failed'; readonly message: FailureMessage }
  | { readonly kind: 'leaving'; readonly step: LeaveStep }
  /**
   * Beyond the spec: the server does not know the place (any longer). `rejoin` is the held GET's
   * target, loaded again after `TIMINGS.rejoinDelay` (then `rejoining`); null for another verb,
   * whose form is not sent again without the visitor.
   */
  | { readonly kind: 'lost'; readonly rejoin: string | null }
  /** Beyond the spec: load `target` (the held GET, hash kept) now, to join the line again. */
  | { readonly kind: 'rejoining'; readonly target: string }
  /**
   * Beyond the spec: the place moved to another browser ("continue on another device"); this page
   * follows it no more and never replays.
   */
  | { readonly kind: 'moved' };
