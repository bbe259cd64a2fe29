import { LOG_LEVELS } from './choices';
import type { VariableSchema } from './variable';

/** Where it listens, the origin and what is held, and the connectors: the gateway's variables. */
export const GATEWAY_VARIABLES = {
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
      "Several lines instead of `PROTECT`, each `{name, protect}` with optionally its own `activeLimit`, `connectorOrigins`, `releasePerMinute`, `admission`, `originLatencyTargetMs`, `botChallenge`, `codeMinutes`, `locale` (the language its pages speak whatever the browser asks; a visitor may still pick another), `events`, `parts` (its line split across shards, [capacity.md](capacity.md#one-room-across-shards)) and `page` (its own waiting page: a template and its words, [own-page.md](own-page.md)); a visitor's place is per room ([gateway.md](gateway.md#rooms); [each field](#a-rooms-fields)).",
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
} as const satisfies Record<string, VariableSchema>;
