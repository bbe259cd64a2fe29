import { LOCALES } from '../../locales';
import { BOT_CHALLENGES } from './choices';
import { DEFAULT_DIFFICULTY, MAX_DIFFICULTY, seconds, type VariableSchema } from './variable';

/** Realtime, the waiting page, the bot check and the limits: what a visitor's page meets. */
export const PAGE_VARIABLES = {
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
