import type { FromSchema } from 'json-schema-to-ts';
import { LOCALES } from '../../locales';
import { BOT_CHALLENGES } from './choices';

export { ADMISSION_MODES, BOT_CHALLENGES, LOG_LEVELS, QUEUEING_STATUS_CODES, type QueueingStatusCode } from './choices';
import { ADMISSION_MODES, LOG_LEVELS, QUEUEING_STATUS_CHOICES } from './choices';

/**
 * Every environment variable of the server, declared once: its JSON schema (type, range,
 * default) and what the documentation says of it. `loadConfig` validates the environment against
 * it, and `npm run docs:config` writes docs/configuration.md from it.
 *
 * Beside the JSON Schema keywords, a variable may carry:
 * - `section`: the section of the documentation it is in;
 * - `accepts`: what a string holds, where its type says too little (a URL, a list, JSON);
 * - `unset`: what an unset variable means, where no fixed `default` says it;
 * - `hint`: how to make a good value, added to the message when one is refused;
 * - `formerly`: names it had before, still read (with a notice at start).
 */
export const CONFIG_KEYWORDS = ['section', 'accepts', 'unset', 'hint', 'formerly'] as const;

/** Shortest ADMIN_TOKEN accepted: a guessable token opens the admin API to anyone. */
export const ADMIN_TOKEN_MIN_LENGTH = 24;

/** Most key derivations a solution may be asked to take: at the defaults, minutes in a browser. */
export const MAX_DIFFICULTY = 100_000;

/**
 * The difficulty a solution is asked at by default: its median time in a browser on a slow phone
 * (Chromium with the CPU 4× slower) stays under 1.5 s with room to spare, on a busy 2-core machine
 * too (`npm run bench`, docs/bot-check.md): at 150 and 200 the slower reading of it missed.
 */
export const DEFAULT_DIFFICULTY = 100;

const WEEK_SECONDS = 7 * 24 * 3600;

/** The documentation's sections, in order, each with what it says before its table. */
export const SECTIONS = {
  listen: { title: 'Where it listens' },
  origin: { title: 'The origin and what is held', intro: 'The gateway and its rooms: [gateway.md](gateway.md) says how it stands in front of a site.' },
  admission: {
    title: 'Admission',
    intro:
      'How many are let in, and how fast; [adaptive-admission.md](adaptive-admission.md) says how adaptive admission finds the rate and how to choose its target.',
  },
  connector: {
    title: 'Connectors and the pass',
    intro: "For a site that checks the waiting room's signed pass itself, in its own framework: [adopt.md](adopt.md) says how.",
  },
  secrets: { title: 'Access and secrets', intro: 'Every instance on Redis must have the same `SESSION_SECRET`, `PUSHER_SECRET` and `ADMIN_TOKEN`.' },
  store: { title: 'Where the line is kept' },
  realtime: { title: 'Realtime', intro: "The embedded Pusher-protocol server answers on the gateway's own port unless an outside one is set." },
  page: { title: 'The waiting page' },
  botCheck: { title: 'The bot check' },
  limits: {
    title: 'Limits',
    intro: 'Every client is untrusted: each request, socket and report has a bounded cost. These bounds can be changed; the fixed ones follow.',
  },
} as const;

type Section = keyof typeof SECTIONS;

const seconds = (section: Section, minimum: number, maximum: number) => ({ type: 'integer', section, minimum, maximum }) as const;

/** One variable's schema, as the documentation and the messages read it. */
export interface VariableSchema {
  readonly type: 'string' | 'integer' | 'number' | 'boolean';
  readonly section: Section;
  readonly description: string;
  readonly default?: string | number | boolean;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minLength?: number;
  readonly enum?: readonly string[];
  readonly accepts?: string;
  readonly unset?: string;
  readonly hint?: string;
  readonly formerly?: readonly string[];
}

const PROPERTIES = {
  PORT: { type: 'integer', section: 'listen', minimum: 0, maximum: 65535, default: 8080, description: 'The port it listens on (`PORT=0`: a free port).' },
  HOST: { type: 'string', section: 'listen', default: '127.0.0.1', description: 'The address it listens on.' },
  LOG_LEVEL: {
    type: 'string',
    section: 'listen',
    enum: LOG_LEVELS,
    default: 'info',
    description: 'How much it logs; `debug` or `trace` also log every request.',
  },
  TRUST_PROXY: {
    type: 'boolean',
    section: 'listen',
    default: false,
    description:
      "Believe `X-Forwarded-*` from the proxy in front (nginx, Caddy, a load balancer): the client addresses of the per-client limits then come from the first of `X-Forwarded-For`, so the proxy must replace that header, never append to a client's.",
  },

  UPSTREAM: {
    type: 'string',
    section: 'origin',
    accepts: '`http://host:port` or `https://host:port`: no credentials, query or fragment',
    unset: 'the demo shop, started on a loopback port',
    description: "The origin, e.g. `http://127.0.0.1:3000`; every request that is not the waiting room's own goes there ([gateway.md](gateway.md)).",
  },
  PROTECT: {
    type: 'string',
    section: 'origin',
    accepts: 'comma-separated path prefixes',
    default: '/checkout',
    description:
      "Protected path prefixes, matched by whole segments, case-insensitively (`/checkout` holds `/Checkout/pay`, not `/checkouts`), also without `;parameters` and with a format suffix (`/checkout.json`), as every connector matches them; the waiting room's own routes are never held, even with `/`.",
  },
  ROOMS: {
    type: 'string',
    section: 'origin',
    accepts: 'a JSON array of rooms',
    unset: 'one room, `default`, of `PROTECT`',
    description:
      "Several lines instead of `PROTECT`, each `{name, protect}` with optionally its own `activeLimit`, `connectorOrigins`, `releasePerMinute`, `admission`, `originLatencyTargetMs`, `botChallenge`, `locale` (the language its pages speak whatever the browser asks; a visitor may still pick another), `events` and `page` (its own waiting page: a template and its words, [own-page.md](own-page.md)); a visitor's place is per room ([gateway.md](gateway.md#rooms)).",
  },
  ROOMS_FILE: {
    type: 'string',
    section: 'origin',
    accepts: 'the path of a JSON file',
    unset: 'none',
    description: '`ROOMS` read from a file (set one of the two).',
  },
  EVENTS: {
    type: 'string',
    section: 'origin',
    accepts: 'a JSON array of events',
    unset: 'none',
    description:
      'Scheduled events (drops), each naming its `room` when there are several; a room of `ROOMS` may also list its own `events` ([drop-day.md](drop-day.md)).',
  },
  EVENTS_FILE: {
    type: 'string',
    section: 'origin',
    accepts: 'the path of a JSON file',
    unset: 'none',
    description: '`EVENTS` read from a file (set one of the two).',
  },
  OPENING_POLLS_PER_SECOND: {
    type: 'integer',
    section: 'origin',
    minimum: 1,
    maximum: 10_000_000,
    default: 20_000,
    description: "Queue_info calls a second a pre-queue's opening may add: its pages ask for their positions over `entrants ÷ this` seconds.",
  },
  MAX_EVENTS_PER_ROOM: {
    type: 'integer',
    section: 'origin',
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description:
      'The most events a room keeps, ended ones included: one more answers `409 too_many_events`, and a configuration that declares more does not start.',
  },
  BYPASS: {
    type: 'string',
    section: 'origin',
    accepts: 'comma-separated path prefixes',
    unset: 'none',
    description:
      'Path prefixes never held, whatever `PROTECT` says (static files, health checks), matched the same way but strictly: a path goes by only when every reading of it (as sent, without `;parameters`) is under one.',
  },
  BYPASS_SECRET: {
    type: 'string',
    section: 'origin',
    minLength: 32,
    hint: 'e.g. openssl rand -base64 32',
    unset: 'none accepted',
    description: 'Key of the signed bypass header `Waiting-Room-Bypass` for monitors ([gateway.md](gateway.md#bypass)).',
  },
  PASS_SECRET: {
    type: 'string',
    section: 'connector',
    minLength: 32,
    hint: 'e.g. openssl rand -base64 32',
    unset: 'no pass is given',
    description:
      'The secret the signed pass is signed with, shared with the site ([pass.md](pass.md)): the connectors check it, and in gateway mode the origin gets it as `Waiting-Room-Pass`.',
  },
  PASS_REVOCATION_SECONDS: {
    type: 'integer',
    section: 'connector',
    minimum: 1,
    maximum: 60,
    default: 5,
    description:
      "The longest a revoked pass may still be honoured by a connector that has not yet read the revocation feed (connectors read it at least this often): a revoked admission's slot goes to the next visitor only after it ([pass.md](pass.md#revoking)).",
  },
  CONNECTOR_ORIGINS: {
    type: 'string',
    section: 'connector',
    accepts: 'comma-separated origins, `http(s)://host[:port]` (`http://` for a site on loopback or behind a proxy that ends TLS)',
    unset: 'none: the default room takes no connector',
    description:
      'The sites whose connectors may send visitors to the default room (`/queue/enter/default`) and get them back with a pass; a room of `ROOMS` lists its own as `connectorOrigins`. Needs `PASS_SECRET`.',
  },
  UPSTREAM_TIMEOUT_MS: {
    type: 'integer',
    section: 'origin',
    minimum: 1,
    maximum: 3_600_000,
    default: 30_000,
    description:
      'The origin must start answering (its headers) within this, and may not pause longer between two chunks of its body; past it, the visitor gets 504.',
  },
  UPSTREAM_CONNECT_TIMEOUT_MS: {
    type: 'integer',
    section: 'origin',
    minimum: 1,
    maximum: 600_000,
    default: 5000,
    description: 'Connecting to the origin may take this long; past it, the visitor gets 502.',
  },
  UPSTREAM_CONNECTIONS: {
    type: 'integer',
    section: 'origin',
    minimum: 1,
    maximum: 65_536,
    default: 128,
    description: 'Kept-alive connections to the origin, at most, per process.',
  },
  HELD_BODY_LIMIT: {
    type: 'integer',
    section: 'origin',
    minimum: 1024,
    maximum: 16 * 1024 * 1024,
    default: 64 * 1024,
    description: 'Largest body of a protected request, in bytes (it may be held while the visitor waits); larger: 413 `payload_too_large`.',
  },
  HELD_BODIES_MAX_BYTES: {
    type: 'integer',
    section: 'origin',
    minimum: 1024,
    maximum: 64 * 1024 ** 3,
    default: 64 * 1024 * 1024,
    description:
      'Bytes of request bodies one process holds at once, for all visitors; past it a new held body gets 503 `held_bodies_full` with `Retry-After` ([security.md](security.md#held-bodies)). The default holds a thousand 64 KiB uploads, or tens of thousands of forms, in a fraction of a small container.',
  },
  HELD_BODIES_PER_ADDRESS_BYTES: {
    type: 'integer',
    section: 'origin',
    minimum: 1024,
    maximum: 64 * 1024 ** 3,
    default: 2 * 1024 * 1024,
    description:
      'Bytes of request bodies held at once for one client address (IPv6 per /64; with `TRUST_PROXY`, the address the proxy says); past it a new held body gets 429 `held_bodies_per_address` with `Retry-After`. The default is 32 full uploads or about a thousand forms behind one carrier NAT address, and keeps one address to 1/32 of `HELD_BODIES_MAX_BYTES`.',
  },

  ACTIVE_LIMIT: {
    type: 'integer',
    section: 'admission',
    minimum: 1,
    maximum: 1_000_000,
    default: 2,
    description: 'Sessions admitted at once; with `ADMISSION=adaptive`, the most the controller may set.',
  },
  RELEASE_PER_MINUTE: {
    type: 'integer',
    section: 'admission',
    minimum: 0,
    maximum: 1_000_000,
    default: 6,
    description: 'Most releases a minute by the release loop; 0: only by the admin API; with `ADMISSION=adaptive`, the most the controller may set.',
  },
  ADMISSION: {
    type: 'string',
    section: 'admission',
    enum: ADMISSION_MODES,
    default: 'fixed',
    description:
      "`fixed`: the rate and limit above; `adaptive`: they follow the origin's answers to admitted requests ([adaptive-admission.md](adaptive-admission.md)).",
  },
  ORIGIN_LATENCY_TARGET_MS: {
    type: 'integer',
    section: 'admission',
    minimum: 1,
    maximum: 600_000,
    default: 1000,
    description: "Adaptive: the p99 latency the origin's answers to admitted requests should stay under; below `UPSTREAM_TIMEOUT_MS`.",
  },
  ADMISSION_FEEDBACK_SECONDS: {
    ...seconds('admission', 1, WEEK_SECONDS),
    unset: '`SESSION_SECONDS`',
    description: "Adaptive: how long a change of rate takes to show in full in the origin's load, about a visit's length; the controller's steps are per this.",
  },
  SESSION_SECONDS: { ...seconds('admission', 1, WEEK_SECONDS), default: 300, description: 'How long an admitted session stays admitted.' },
  QUEUEING_STATUS_CODE: {
    type: 'string',
    section: 'admission',
    enum: QUEUEING_STATUS_CHOICES,
    default: '503',
    description:
      "The status of a held API client's answer (its body the waiting page's config, with `Retry-After`): `503`, or `200`, `202` or `429` for clients that treat a 503 as a failure. A room may say otherwise (`queueingStatusCode` in `ROOMS`).",
  },
  ABANDON_SECONDS: { ...seconds('admission', 1, WEEK_SECONDS), default: 180, description: 'A waiting visitor silent this long loses the place.' },

  ADMIN_TOKEN: {
    type: 'string',
    section: 'secrets',
    minLength: ADMIN_TOKEN_MIN_LENGTH,
    hint: 'e.g. openssl rand -base64 24',
    unset: 'random, printed at start',
    description:
      'Bearer token for `/admin/*` and `/metrics`, and what an operator types to sign in to the console; compared in constant time ([admin-console.md](admin-console.md)).',
  },
  ADMIN_SESSION_SECONDS: {
    ...seconds('secrets', 60, WEEK_SECONDS),
    default: 8 * 3600,
    description: 'How long a console session lasts once signed in (28800: 8 hours).',
  },
  SESSION_SECRET: {
    type: 'string',
    section: 'secrets',
    minLength: 32,
    unset: 'random, with a warning: sessions end when the server restarts',
    description: 'Signs the session cookie; the same on every instance on Redis.',
  },

  REDIS_URL: {
    type: 'string',
    section: 'store',
    accepts: 'a `redis://` or `rediss://` URL',
    unset: 'memory',
    description: 'Keep the line in Redis, for several instances.',
  },
  REDIS_SENTINELS: {
    type: 'string',
    section: 'store',
    accepts: '`host:port,host:port,…` (IPv6 hosts in brackets)',
    unset: 'no Sentinel',
    description:
      'Keep the line in Redis behind Sentinels, following the primary they name through a failover ([durability.md](durability.md)). Instead of REDIS_URL.',
  },
  REDIS_SENTINEL_NAME: {
    type: 'string',
    section: 'store',
    accepts: 'a name',
    unset: 'required with REDIS_SENTINELS',
    description: 'The name the Sentinels monitor the primary by (`sentinel monitor <name> …`).',
  },
  REDIS_CLUSTER_NODES: {
    type: 'string',
    section: 'store',
    accepts: '`host:port,host:port,…` (IPv6 hosts in brackets)',
    unset: 'no Cluster',
    description:
      "Keep the line in a Redis Cluster (Redis 7 or later), given some of its nodes: each room's keys and channel share one hash slot. Instead of REDIS_URL.",
  },
  REDIS_USERNAME: {
    type: 'string',
    section: 'store',
    accepts: 'an ACL user name',
    unset: 'the default user',
    description: "The Redis nodes' ACL user, with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL, the URL carries it).",
  },
  REDIS_PASSWORD: {
    type: 'string',
    section: 'store',
    accepts: 'text',
    unset: 'no password',
    description: "The Redis nodes' password or auth token, with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL, the URL carries it).",
  },
  REDIS_SENTINEL_PASSWORD: {
    type: 'string',
    section: 'store',
    accepts: 'text',
    unset: 'no password',
    description: "The Sentinels' own password, with REDIS_SENTINELS.",
  },
  REDIS_REPLAY_REPLICAS: {
    type: 'integer',
    section: 'store',
    minimum: 0,
    maximum: 5,
    default: 0,
    description:
      "Replicas that must acknowledge a replay's mark (`WAIT`) before the held request goes to the origin. `1` closes the window in which a failover could replay a request twice, at the cost of a replica's round trip per replay and a 503 (tried again) while none answers ([durability.md](durability.md)).",
  },
  REDIS_TLS: {
    type: 'boolean',
    section: 'store',
    default: false,
    description: 'TLS to every Redis node and Sentinel, with REDIS_SENTINELS or REDIS_CLUSTER_NODES (with REDIS_URL, use `rediss://`).',
  },
  STATE_FILE: {
    type: 'string',
    section: 'store',
    accepts: 'a file path',
    unset: 'none',
    description:
      'Memory store only: write the whole line here at SIGTERM and load it at the next start (each other room in `STATE_FILE.<name>`); a file that cannot be read stops the start.',
  },

  PUSHER_APP_ID: {
    type: 'string',
    section: 'realtime',
    unset: 'the embedded server',
    description: 'With `PUSHER_KEY` and `PUSHER_SECRET`: use an outside Pusher-protocol server (Pusher Channels, soketi, Reverb) instead of the embedded one.',
  },
  PUSHER_KEY: { type: 'string', section: 'realtime', unset: 'the embedded server', description: "The outside server's app key." },
  PUSHER_SECRET: {
    type: 'string',
    section: 'realtime',
    unset: 'random (embedded server)',
    description: "The app's secret: the outside server's, or the embedded one's, which must be the same on every instance on Redis.",
  },
  PUSHER_HOST: {
    type: 'string',
    section: 'realtime',
    unset: 'none',
    description: "The outside server's host (soketi, Reverb); set it or `PUSHER_CLUSTER`.",
  },
  PUSHER_PORT: { type: 'integer', section: 'realtime', minimum: 1, maximum: 65535, unset: "the scheme's", description: "The outside server's port." },
  PUSHER_USE_TLS: { type: 'boolean', section: 'realtime', default: true, description: 'Reach the outside server over TLS.' },
  PUSHER_CLUSTER: { type: 'string', section: 'realtime', unset: 'none', description: 'The Pusher Channels cluster (instead of `PUSHER_HOST`).' },
  PUSHER_CLIENT_HOST: {
    type: 'string',
    section: 'realtime',
    unset: 'the embedded server: the host the visitor used; or `PUSHER_HOST`',
    description: 'The realtime host handed to the page, e.g. behind a reverse proxy ([gateway.md](gateway.md#behind-nginx)).',
  },
  PUSHER_CLIENT_PORT: {
    type: 'integer',
    section: 'realtime',
    minimum: 1,
    maximum: 65535,
    unset: "the embedded server: the gateway's own port; or `PUSHER_PORT`",
    description: 'The realtime port handed to the page, e.g. 443 behind a reverse proxy.',
  },
  REALTIME_ACTIVITY_TIMEOUT_SECONDS: {
    ...seconds('realtime', 1, 3600),
    default: 120,
    formerly: ['REALTIME_ACTIVITY_TIMEOUT'],
    description: "The embedded realtime server's activity timeout: a client silent this long is pinged.",
  },
  REALTIME_PONG_TIMEOUT_SECONDS: {
    type: 'number',
    section: 'realtime',
    minimum: 0.05,
    maximum: 600,
    default: 30,
    formerly: ['REALTIME_PONG_TIMEOUT'],
    description: "The embedded realtime server's pong timeout: a pinged client that does not answer within this is closed.",
  },

  SENTRY_DSN: {
    type: 'string',
    section: 'page',
    accepts: 'an `http://` or `https://` URL',
    unset: 'the local sink, `http://public@{host}:{port}/1`',
    description: 'The Sentry DSN handed to the page.',
  },
  SENTRY_SAMPLE_RATE: {
    type: 'number',
    section: 'page',
    minimum: 0,
    maximum: 1,
    default: 0.5,
    description: 'The error-report sample rate handed to the page.',
  },
  PAGE_TIMINGS: {
    type: 'string',
    section: 'page',
    accepts: 'a JSON object of ms, keyed as `TIMINGS`',
    unset: "the spec's",
    description: 'Shorter page timers, for tests and demos only.',
  },
  DEFAULT_LOCALE: {
    type: 'string',
    section: 'page',
    enum: LOCALES,
    default: 'en',
    description: 'The language of a visitor whose browser asks for none the waiting room speaks ([languages.md](languages.md)).',
  },
  MESSAGES_DIR: {
    type: 'string',
    section: 'page',
    accepts: 'a folder of `<locale>.json` files',
    unset: 'none',
    description: "Your site's wording for some messages, laid over the catalogue's and checked at start ([languages.md](languages.md)).",
  },
  PUBLIC_SOURCE_MAPS: {
    type: 'boolean',
    section: 'page',
    default: false,
    description: "Serve the page's source maps under `/assets` (the code is open, but there is no reason to hand every visitor a site's build paths).",
  },

  BOT_CHALLENGE: {
    type: 'string',
    section: 'botCheck',
    enum: BOT_CHALLENGES,
    default: 'off',
    description:
      '`pow`: a held visitor takes a place only once their browser solved a proof of work; `off`: none. A room (`botChallenge` in `ROOMS`) or an event in force may say otherwise ([bot-check.md](bot-check.md)).',
  },
  BOT_CHALLENGE_DIFFICULTY: {
    type: 'integer',
    section: 'botCheck',
    minimum: 1,
    maximum: MAX_DIFFICULTY,
    default: DEFAULT_DIFFICULTY,
    description:
      'The most key derivations a solution takes (the counter is drawn from its upper half); the operator may change it live (`POST /admin/bot-check`).',
  },
  PLACES_PER_ADDRESS: {
    type: 'integer',
    section: 'botCheck',
    minimum: 0,
    maximum: 1_000_000,
    default: 0,
    description:
      'Places in line (and waiting for their bot check) one client address may hold in a room, IPv6 counted per /64; past it a held request gets 429 `too_many_places`; 0: no cap ([bot-check.md](bot-check.md#places-per-address)).',
  },

  REQUEST_TIMEOUT_SECONDS: {
    ...seconds('limits', 1, 3600),
    default: 30,
    description: 'A whole request (headers and body) must arrive within this; a slow client gets 408 and is closed.',
  },
  HEADERS_TIMEOUT_SECONDS: { ...seconds('limits', 1, 3600), default: 10, description: 'The headers must arrive within this, or 408.' },
  KEEP_ALIVE_TIMEOUT_SECONDS: {
    ...seconds('limits', 1, 3600),
    default: 5,
    description:
      "An idle keep-alive connection is closed after this; behind a load balancer, set it above the balancer's own idle timeout (e.g. 65 behind one that keeps 60).",
  },
  REALTIME_MAX_CONNECTIONS: {
    type: 'integer',
    section: 'limits',
    minimum: 1,
    maximum: 10_000_000,
    default: 15_000,
    description: 'WebSocket connections one process holds; past it a new one gets `pusher:error` 4100 (over capacity: pusher-js backs off and retries).',
  },
  REALTIME_MAX_CONNECTIONS_PER_ADDRESS: {
    type: 'integer',
    section: 'limits',
    minimum: 1,
    maximum: 10_000_000,
    default: 500,
    description:
      "WebSocket connections one client address holds in one process (IPv6 per /64; with `TRUST_PROXY`, the address the proxy says); past it a new one gets 4100 and the page listens by polling, its place kept. A page holds one socket: 500 leaves room for a campus or a carrier's NAT address, and takes 30 addresses to fill the default `REALTIME_MAX_CONNECTIONS` ([security.md](security.md#realtime-sockets-per-address)). Keep it well under `REALTIME_MAX_CONNECTIONS`.",
  },
  REALTIME_MAX_SUBSCRIPTIONS: {
    type: 'integer',
    section: 'limits',
    minimum: 2,
    maximum: 1000,
    default: 4,
    description: 'Channels one connection may join (the page needs two); past it, `pusher:subscription_error`.',
  },
  REALTIME_MESSAGES_PER_SECOND: {
    type: 'integer',
    section: 'limits',
    minimum: 1,
    maximum: 10_000,
    default: 10,
    description:
      'Messages one connection may send a second, with bursts of twice that; the rest are dropped (one `pusher:error` 4301 a second at most), and a socket over 11 times its allowance three seconds in a row is closed with 4301.',
  },
  REALTIME_MAX_BUFFERED_BYTES: {
    type: 'integer',
    section: 'limits',
    minimum: 16 * 1024,
    maximum: 1024 ** 3,
    default: 256 * 1024,
    description: 'Bytes waiting to be written to one socket; past it the client is not reading, and is closed with 4100 (back off, then reconnect).',
  },
  ERROR_MESSAGE_BYTES: {
    type: 'integer',
    section: 'limits',
    minimum: 64,
    maximum: 1024 * 1024,
    default: 1024,
    description: 'Longest reported message kept by the error sink; longer ones are cut and marked.',
  },
  ERROR_LOG_BYTES: {
    type: 'integer',
    section: 'limits',
    minimum: 1024,
    maximum: 256 * 1024 * 1024,
    default: 256 * 1024,
    description: 'Bytes of reports the error sink keeps in all; the oldest go first.',
  },
  ERROR_REPORTS_PER_MINUTE: {
    type: 'integer',
    section: 'limits',
    minimum: 1,
    maximum: 100_000,
    default: 10,
    description: 'Error reports one client address may send a minute; past it, 429.',
  },
} as const satisfies Record<string, VariableSchema>;

export const CONFIG_SCHEMA = { type: 'object', properties: PROPERTIES } as const;

/** The environment once validated: each variable of its type, with its default when it has one. */
export type ConfigEnv = FromSchema<typeof CONFIG_SCHEMA>;

export type ConfigVariable = keyof typeof CONFIG_SCHEMA.properties;

/** The variables in the order they are documented. */
export const VARIABLES = Object.entries(PROPERTIES) as [ConfigVariable, VariableSchema][];

/**
 * Every name the server reads from its environment: each variable and the names it had before.
 * A test clears these from its own shell before it starts a server, so nothing leaks in.
 */
export const SERVER_VARIABLES: readonly string[] = VARIABLES.flatMap(([name, schema]) => [name, ...(schema.formerly ?? [])]);
