import type { Timings } from '../../streams/constants';

/** Verbs a held request may carry; anything else is a configuration error. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

/** The largest place in line the page accepts from its config. */
export const MAX_POSITION = 1_000_000_000;

export interface ErrorReportingSettings {
  /** Where reports go; null sends them to the console only. */
  readonly dsn: string | null;
  readonly sampleRate: number;
  readonly release: string;
}

/**
 * The validated contents of the `#waiting-room-config` element, defaults applied
 * (see docs in ARCHITECTURE "Page config contract").
 */
export interface PageConfig {
  readonly queue: {
    readonly uuid: string;
    /** Same-origin path of the held request; null when absent or refused (the page leaves). */
    readonly uri: string | null;
    readonly method: Method;
    /** The place in line the server rendered, if any. */
    readonly position: number | null;
  };
  /** 0 for anonymous visitors. */
  readonly userId: number;
  readonly csrfToken: string;
  readonly realtime: {
    readonly key: string;
    /** null: Pusher Channels' own host for `cluster`. */
    readonly host: string | null;
    readonly port: number;
    readonly forceTLS: boolean;
    readonly cluster: string;
  };
  readonly routes: {
    readonly queue_request: string;
    /** Contains `{uuid}`. */
    readonly queue_info: string;
  };
  readonly errorReporting: ErrorReportingSettings;
  /** Overrides of the spec's timings, for tests and demos only. */
  readonly timings: Partial<Timings>;
}
