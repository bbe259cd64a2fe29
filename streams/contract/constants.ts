/**
 * Business constants and limits, as in section 9 of the waiting-page specification.
 * Every timer of the stream core reads its duration from `TIMINGS`, whose names are also the keys
 * a page config's `timings` may override; a page reads the rest.
 */
export const TIMINGS = {
  /** Check after a connection `unavailable` or `error`. */
  connectionCheck: 30_000,
  /** How long the polled position may stay 0. */
  positionZeroTimeout: 10_000,
  /** Delay between reporting a failure and leaving. */
  leaveDelay: 2_000,
  /** Delay between going back in history and navigating to the site root. */
  rootFallback: 3_000,
  /** queue_info polling for anonymous visitors, once subscribed. */
  anonymousPoll: 5_000,
  /** queue_info polling for every visitor, once connected. */
  poll: 60_000,
  /**
   * Beyond the spec: delay between telling the visitor their place in line was lost and loading
   * the held GET again, which joins the line afresh.
   */
  rejoinDelay: 3_000,
  /**
   * Beyond the spec: how long the signals of a visitor's return to the page (visible, resumed,
   * online) must be quiet before the one queue_info call that shows the current position.
   */
  backQuiet: 250,
} as const;

export type Timings = { readonly [K in keyof typeof TIMINGS]: number };

/** The error-reporting settings a page starts with (spec sections 7 and 9): a config may change both. */
export const ERROR_REPORTING = {
  sampleRate: 0.5,
  release: '1.0.0',
} as const;

/** The realtime connection (spec sections 7 and 9); the timeouts are pusher-js's defaults. */
export const REALTIME = {
  port: 443,
  forceTLS: true,
  /** The spec's wss, https, ws, http, in pusher-js transport names. */
  enabledTransports: ['wss', 'xhr_streaming', 'ws', 'xhr_polling'],
  activityTimeout: 120_000,
  pongTimeout: 30_000,
  unavailableTimeout: 10_000,
} as const;
