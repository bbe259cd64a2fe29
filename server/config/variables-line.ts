import { ADMISSION_MODES, QUEUEING_STATUS_CHOICES } from './choices';
import { ADMIN_TOKEN_MIN_LENGTH, AWAY_SECONDS_DEFAULT, WEEK_SECONDS, seconds, type VariableSchema } from './variable';

/** Admission, access and secrets, and where the line is kept: the line's variables. */
export const LINE_VARIABLES = {
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
  AWAY_SECONDS: {
    ...seconds('admission', 1, WEEK_SECONDS),
    default: AWAY_SECONDS_DEFAULT,
    formerly: ['ABANDON_SECONDS'],
    description:
      'How long a waiting visitor may be away (phone locked, tab frozen, offline, browser closed) and keep the place, which moves up meanwhile; silent longer, it is given up ([places.md](places.md#away-and-back)). A room may say otherwise (`awaySeconds`).',
  },
  CLAIM_SECONDS: {
    ...seconds('admission', 1, WEEK_SECONDS),
    unset: '`SESSION_SECONDS`',
    description:
      "How long a visitor released while away has to come back for the held request's replay; after it, the place is given up. At most `SESSION_SECONDS` ([places.md](places.md#away-and-back)). A room may say otherwise (`claimSeconds`).",
  },
  REPORT_RETENTION_HOURS: {
    type: 'integer',
    section: 'store',
    minimum: 1,
    maximum: 90 * 24,
    default: 72,
    description:
      "How long a room's report (`GET /admin/report`) is kept after its last change, in hours: long enough to read it the morning after ([drop-day.md](drop-day.md#report)). A room may say otherwise (`reportRetentionHours` in `ROOMS`).",
  },
  CODE_MINUTES: {
    type: 'integer',
    section: 'admission',
    minimum: 1,
    maximum: 525_600,
    default: 1440,
    description:
      'How long a priority code issued by `POST /admin/codes` stays usable ([places.md](places.md#ahead-with-a-code)); a room may say otherwise (`codeMinutes`).',
  },
  HANDOFF_SECONDS: {
    ...seconds('admission', 30, 3600),
    default: 600,
    description:
      'How long a "continue on another device" link moves the place, once ([places.md](places.md#onto-another-device)): time to pick up the other device and scan, short enough that a photographed code is soon worth nothing.',
  },

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
} as const satisfies Record<string, VariableSchema>;
