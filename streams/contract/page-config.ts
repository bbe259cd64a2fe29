import type { Timings } from './constants.js';
import type { Messages } from './messages.js';
import type { ROUTES } from './names.js';
import type { RoomMessageJson } from './room-message.js';

/** Verbs a held request may carry; anything else is a configuration error. */
export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type Method = (typeof METHODS)[number];

/** The largest place in line a page accepts from its config. */
export const MAX_POSITION = 1_000_000_000;

/** Where a page calls queue_request and queue_info; queue_info's path contains `{uuid}`. */
export type Routes = { readonly [K in keyof typeof ROUTES]: string };

/**
 * The page config as a server writes it: the JSON in the page's `#waiting-room-config` element
 * (`CONFIG_ELEMENT_ID`), and the body of the 503 a held API client gets. Read it with
 * `parsePageConfig`, which checks every field and applies the defaults.
 *
 * A server writes every field below but `timings`. A page also accepts a config that leaves out
 * `queue.method` (GET), `queue.position`, `user` (anonymous), `realtime.host` (Pusher Channels'
 * own), `realtime.port` (443), `realtime.forceTLS` (true), `realtime.cluster` ('mt1'),
 * `realtime.authEndpoint` ('/pusher/auth'),
 * `realtime.queueChannel` (`CHANNELS.queue`),
 * `errorReporting` or any of its fields (`dsn`: the console only; `sampleRate` 0.5; `release`
 * '1.0.0'). A field added later is optional, so that a config written to this version stays valid.
 */
export interface PageConfigJson {
  readonly queue: {
    readonly uuid: string;
    /** The held request: a path on the page's own origin (anything else counts as none: the page leaves). */
    readonly uri: string;
    /** GET, POST, PUT, PATCH or DELETE, in any case. */
    readonly method: string;
    /** The place in line when the page was written. */
    readonly position: number;
  };
  /** `id`: a positive integer for a signed-in user; 0 (or any falsy value) for an anonymous visitor. */
  readonly user: { readonly id: number };
  /** Sent as `_token` with queue_request and the replay form, and as `X-CSRF-TOKEN` to `realtime.authEndpoint`. */
  readonly csrfToken: string;
  /** The Pusher-protocol server: host without scheme, port or path. */
  readonly realtime: {
    readonly key: string;
    readonly host: string;
    readonly port: number;
    readonly forceTLS: boolean;
    readonly cluster: string;
    /**
     * Where the page asks for its private channel's authorization (pusher-js's
     * `channelAuthorization.endpoint`): a path on the page's origin. Optional (since 1.4.0):
     * `AUTH_ENDPOINT`, '/pusher/auth', without it.
     */
    readonly authEndpoint?: string;
    /**
     * An extension (since 1.4.0): the public line-wide channel whose `QueueMoved` moves this page up,
     * for a server with several lines. Absent: `CHANNELS.queue` (`App.Queue`).
     */
    readonly queueChannel?: string;
  };
  readonly routes: Routes;
  /** Sentry settings. */
  readonly errorReporting: { readonly dsn: string; readonly sampleRate: number; readonly release: string };
  /** Shorter timers, in ms, keyed as `TIMINGS`: for tests and demos only. */
  readonly timings?: Partial<Timings>;
  /**
   * The visitor's language and its texts (since 1.1.0). Without it a page shows its own texts
   * (the waiting page: English).
   */
  readonly language?: LanguageJson;
  /**
   * An extension (since 1.2.0): the scheduled event whose pre-queue the visitor entered. While it lasts,
   * queue_info answers `opensIn` instead of a position, and the page listens on `CHANNELS.event(id)`.
   */
  readonly event?: EventFactsJson;
  /**
   * The bot check (since 1.3.0), present when the place waits for one: an ALTCHA v2 challenge to
   * solve before the place enters the line. The payload of its solution goes with queue_request.
   */
  readonly altcha?: AltchaChallenge;
  /**
   * How long (since 1.6.0), in minutes, the visitor may leave the page and keep the
   * place (the room's `AWAY_SECONDS`); the page says so. Without it, nothing is said of leaving.
   */
  readonly awayMinutes?: number;
  /**
   * The operator's message to the room's waiting visitors (since 1.6.0), once one was ever set:
   * what the page shows until `QueueMessage` or a queue_info answer brings a newer one.
   */
  readonly message?: RoomMessageJson;
  /**
   * An extension (since 1.6.0): where the page asks for a link that moves the place to another
   * browser ("continue on another device", `POST`, JSON `{_token, uuid}`, answer `{url, expiresAt}`).
   * Absent: the page offers none.
   */
  readonly handoff?: { readonly route: string };
}

/** One language's texts, as a server hands them over (in the page config, or for a switch). */
export interface LanguageJson {
  /** A BCP 47 tag: `en`, `pt-BR`, `zh-Hant`… */
  readonly locale: string;
  /** How the language is written: `rtl` for Arabic, Persian, Hebrew. */
  readonly dir: 'ltr' | 'rtl';
  /** Every visitor text by key (`page.heading`…), see `Message`; written with `translator`. */
  readonly messages: Messages;
  /**
   * Optional: the languages a visitor may switch to, each by its own name, and the path that
   * answers one of them as a `LanguageJson` (with `{locale}` in it). Without it, no switch is offered.
   */
  readonly choices?: {
    readonly path: string;
    readonly languages: ReadonlyArray<{ readonly locale: string; readonly name: string }>;
  };
}

/** A scheduled event as a page config carries it. */
export interface EventFactsJson {
  /** In `CHANNELS.event(id)` and `EVENT_ROUTES`: 1 to 100 letters, digits, `-` or `_`. */
  readonly id: string;
  readonly name: string;
  /** The opening, ISO 8601. */
  readonly opensAt: string;
  /** The pre-queue is shuffled at the opening by a draw anyone can verify (`DrawRecord`); otherwise it goes in order of arrival. */
  readonly shuffle: boolean;
  /** SHA-256 of the draw's seed, published when the pre-queue began: what the draw is checked against. */
  readonly commitment?: string;
}

/** A scheduled event once `parsePageConfig` has checked it. */
export interface EventFacts {
  readonly id: string;
  readonly name: string;
  /** The opening, in ms since the epoch. */
  readonly opensAt: number;
  readonly shuffle: boolean;
  readonly commitment: string | null;
}

/**
 * An ALTCHA v2 challenge, as altcha-lib's `createChallenge` makes it: `parameters` say what to
 * derive (`algorithm`, `cost`, `memoryCost`, `parallelism`, `keyLength`, `nonce`, `salt`) and the key
 * prefix the right counter derives (`keyPrefix`); `signature` is the server's over them. The solution
 * is `{counter, derivedKey}`, and what queue_request sends as `altcha` is the base64 of the JSON
 * `{challenge, solution}`, as ALTCHA's widget sends it.
 */
export interface AltchaChallenge {
  readonly parameters: {
    readonly algorithm: string;
    readonly nonce: string;
    readonly salt: string;
    readonly cost: number;
    readonly keyLength: number;
    readonly keyPrefix: string;
    readonly keySignature?: string;
    readonly memoryCost?: number;
    readonly parallelism?: number;
    readonly expiresAt?: number;
    readonly data?: Readonly<Record<string, string | number | boolean | null>>;
  };
  readonly signature: string;
}

export interface ErrorReportingSettings {
  /** Where reports go; null sends them to the console only. */
  readonly dsn: string | null;
  readonly sampleRate: number;
  readonly release: string;
}

/** The page config once `parsePageConfig` has checked it, defaults applied. */
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
    /** Where the page asks for its private channel's authorization: a path on its origin (since 1.4.0). */
    readonly authEndpoint: string;
    /** The public line-wide channel of the visitor's line (`QueueMoved`): `CHANNELS.queue` unless the config names another. */
    readonly queueChannel: string;
  };
  readonly routes: Routes;
  readonly errorReporting: ErrorReportingSettings;
  /** Overrides of the spec's timings, for tests and demos only. */
  readonly timings: Partial<Timings>;
  /** The visitor's language and texts; null when the server sent none. */
  readonly language: LanguageJson | null;
  /** The scheduled event whose pre-queue the visitor entered, or null. */
  readonly event: EventFacts | null;
  /** The bot check's challenge to solve before queue_request; null when the place waits for none. */
  readonly altcha: AltchaChallenge | null;
  /** How long, in minutes, the visitor may leave the page and keep the place; absent: not said. */
  readonly awayMinutes?: number;
  /** The operator's message as the server wrote it (`roomMessageOf`); null when none, or unreadable. */
  readonly message: RoomMessageJson | null;
  /** Where the page asks for a link to move the place to another browser; null: it offers none (since 1.6.0). */
  readonly handoffRoute: string | null;
}
