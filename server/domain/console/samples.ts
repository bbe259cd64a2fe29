/**
 * What the operator console shows, pushed on a private channel every `SAMPLE_MS`: the contract
 * between the server (`sampler.ts`) and the console (`src/admin/`), which imports only types
 * and names from here.
 */

/** The console's channel. Private: only a signature from `POST /admin/pusher/auth` opens it. */
export const ADMIN_CHANNEL = 'private-waiting-room.admin';
/** The event each sample comes as. */
export const SAMPLE_EVENT = 'sample';
/** How often a sample is taken, on wall-clock multiples of it (so every instance samples at the same times). */
export const SAMPLE_MS = 2000;
/** Samples kept: an hour's. */
export const HISTORY_LENGTH = 3600_000 / SAMPLE_MS;

/** The line of one room at a sample: the same on every instance that shares its store. */
export interface RoomSample {
  readonly room: string;
  readonly waiting: number;
  readonly active: number;
  /** Totals since the line began: rates are their differences over a minute. */
  readonly released: number;
  readonly arrived: number;
  readonly paused: boolean;
  /** The limits in force, and which of them the operator set (the rest are the configured ones). */
  readonly activeLimit: number;
  readonly perMinute: number;
  readonly operatorSet: { readonly activeLimit: boolean; readonly perMinute: boolean };
  /** The estimate, in minutes, that a visitor joining now is shown. */
  readonly estimate: number;
  /** Priority codes issued for the room and used of those, since the line began (docs/places.md). */
  readonly codes?: { readonly issued: number; readonly used: number };
  /** The admission controller's state, when the room's admission is adaptive. */
  readonly admission?: AdmissionState;
}

/** An adaptive admission's state: what it allows now, and why. */
export interface AdmissionState {
  readonly mode: string;
  readonly activeLimit?: number;
  readonly perMinute?: number;
  readonly reason?: string;
}

/** What one instance counted during the sample's interval: these add up across instances. */
export interface InstanceSample {
  readonly pageErrors: number;
  readonly originRequests: number;
  readonly originErrors: number;
  /** Sum of the origin's answer times over the interval, in ms. */
  readonly originMs: number;
  /** Admitted sessions the origin revoked (absent from an instance of an earlier version). */
  readonly revoked?: number;
}

/** One sample: every room's line, and what the instance that took it counted. */
export interface Sample {
  /** Wall-clock ms, a multiple of `SAMPLE_MS`. */
  readonly t: number;
  /** Which instance took it, so that a console hearing several adds their counts once each. */
  readonly instance: string;
  readonly rooms: readonly RoomSample[];
  readonly local: InstanceSample;
}

/** `GET /admin/live`: what the console needs before it listens. */
export interface LiveSnapshot {
  readonly sampleMs: number;
  readonly channel: string;
  readonly event: string;
  readonly realtime: { readonly key: string; readonly host: string; readonly port: number; readonly forceTLS: boolean; readonly cluster: string };
  /** The origin in front of which the gateway stands. */
  readonly origin: string;
  readonly rooms: readonly string[];
  /** The last hour, oldest first, as this instance sampled it. */
  readonly history: readonly Sample[];
}

/**
 * What this instance did since it started, for the console's samples: each sample carries the
 * difference from the one before, which adds up across instances.
 */
export interface InstanceCounts {
  readonly pageErrors: number;
  readonly originRequests: number;
  readonly originErrors: number;
  /** Sum of the origin's answer times, in ms. */
  readonly originMs: number;
  /** Admitted sessions the origin revoked. */
  readonly revoked: number;
}
