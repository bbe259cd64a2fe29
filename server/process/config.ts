import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ConfigEnv, QueueingStatusCode } from '../config/environment';
import { ConfigError, readEnvironment, type Env } from './config-env';
import { languagesConfig } from './config-files';
import { redisEngineConfig } from './config-redis';
import { pusherConfig } from './config-realtime';
import { eventsConfig, roomsConfig } from './config-rooms';
import type { AdmissionConfig, GatewayConfig, ServerConfig } from './config-types';
import { parseTimings, prefixes, url } from './config-values';
import { projectRoot } from './project-root';

/*
 * The configuration, read from the environment against its declaration (server/config/): the
 * types it is read into (config-types.ts), a room and its events (config-rooms.ts), Redis
 * (config-redis.ts), realtime (config-realtime.ts), settings read from files (config-files.ts).
 */
export * from './config-types';

export { ConfigError } from './config-env';
export { ADMIN_TOKEN_MIN_LENGTH, ADMISSION_MODES, DEFAULT_DIFFICULTY, LOG_LEVELS, MAX_DIFFICULTY } from '../config/environment';

const ROOT = projectRoot();

/**
 * Reads every variable of the configuration schema (`server/config/environment.ts`), with its default.
 * Throws a `ConfigError` naming the variable when a value cannot be used; `notice` hears once of
 * each variable set by a former name.
 */
export function loadConfig(env: Env, notice: (message: string) => void = () => {}): ServerConfig {
  const read = readEnvironment(env, notice);
  const { values: v } = read;
  const redisEngine = redisEngineConfig(v);
  const redisSetting = redisEngine ? (redisEngine.kind === 'sentinel' ? 'REDIS_SENTINELS' : 'REDIS_CLUSTER_NODES') : 'REDIS_URL';
  if (v.STATE_FILE !== undefined && (redisEngine || v.REDIS_URL !== undefined)) {
    throw new ConfigError(`STATE_FILE keeps the memory store across a restart; with ${redisSetting} the line already lives in Redis: unset one.`);
  }
  const assetsDir = path.join(ROOT, 'public', 'assets');
  const gateway = gatewayConfig(v);
  const admission = admissionConfig(v, gateway.responseTimeoutMs);
  const defaults = {
    activeLimit: v.ACTIVE_LIMIT,
    releasePerMinute: v.RELEASE_PER_MINUTE,
    reportRetentionHours: v.REPORT_RETENTION_HOURS,
    admission,
    botChallenge: v.BOT_CHALLENGE,
    queueingStatusCode: Number(v.QUEUEING_STATUS_CODE) as QueueingStatusCode,
    awaySeconds: v.AWAY_SECONDS,
    claimSeconds: v.CLAIM_SECONDS ?? v.SESSION_SECONDS,
    codeMinutes: v.CODE_MINUTES,
  };
  const rooms = roomsConfig(read, defaults, gateway.responseTimeoutMs, v.SESSION_SECONDS);
  const connected = rooms.find((room) => room.connectorOrigins.length > 0);
  if (connected && v.PASS_SECRET === undefined) {
    throw new ConfigError(`Room "${connected.name}" takes connectors (connectorOrigins): set PASS_SECRET, the secret its sites check the pass with.`);
  }
  const parted = rooms.find((room) => room.parts !== undefined);
  if (parted && !redisEngine && v.REDIS_URL === undefined) {
    throw new ConfigError(`Room "${parted.name}" is split in parts, each on a shard of Redis: set REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES.`);
  }
  const events = eventsConfig(v, rooms, v.MAX_EVENTS_PER_ROOM);
  return {
    port: v.PORT,
    host: v.HOST,
    protect: rooms.flatMap((room) => room.protect),
    rooms: rooms.map(({ events: _declared, ...room }) => room),
    events,
    openingPollsPerSecond: v.OPENING_POLLS_PER_SECOND,
    maxEventsPerRoom: v.MAX_EVENTS_PER_ROOM,
    ...(v.PASS_SECRET !== undefined && { passSecret: v.PASS_SECRET }),
    passRevocationSeconds: v.PASS_REVOCATION_SECONDS,
    sessionSeconds: v.SESSION_SECONDS,
    handoffSeconds: v.HANDOFF_SECONDS,
    adminToken: v.ADMIN_TOKEN ?? randomBytes(18).toString('base64url'),
    adminTokenGenerated: v.ADMIN_TOKEN === undefined,
    adminSessionSeconds: v.ADMIN_SESSION_SECONDS,
    sessionSecret: v.SESSION_SECRET ?? randomBytes(32).toString('base64url'),
    sessionSecretGenerated: v.SESSION_SECRET === undefined,
    redisUrl: url('REDIS_URL', v.REDIS_URL, ['redis:', 'rediss:']),
    redisReplayReplicas: v.REDIS_REPLAY_REPLICAS,
    redisEngine,
    pusher: pusherConfig(v),
    pusherClient: { host: v.PUSHER_CLIENT_HOST, port: v.PUSHER_CLIENT_PORT },
    realtime: {
      activityTimeoutSeconds: v.REALTIME_ACTIVITY_TIMEOUT_SECONDS,
      pongTimeoutMs: Math.round(v.REALTIME_PONG_TIMEOUT_SECONDS * 1000),
      maxConnections: v.REALTIME_MAX_CONNECTIONS,
      maxConnectionsPerAddress: v.REALTIME_MAX_CONNECTIONS_PER_ADDRESS,
      trustProxy: v.TRUST_PROXY,
      maxSubscriptions: v.REALTIME_MAX_SUBSCRIPTIONS,
      messagesPerSecond: v.REALTIME_MESSAGES_PER_SECOND,
      maxBufferedBytes: v.REALTIME_MAX_BUFFERED_BYTES,
    },
    http: {
      requestTimeoutMs: v.REQUEST_TIMEOUT_SECONDS * 1000,
      headersTimeoutMs: v.HEADERS_TIMEOUT_SECONDS * 1000,
      keepAliveTimeoutMs: v.KEEP_ALIVE_TIMEOUT_SECONDS * 1000,
    },
    sink: {
      messageBytes: v.ERROR_MESSAGE_BYTES,
      totalBytes: v.ERROR_LOG_BYTES,
      reportsPerMinute: v.ERROR_REPORTS_PER_MINUTE,
    },
    stateFile: v.STATE_FILE,
    publicSourceMaps: v.PUBLIC_SOURCE_MAPS,
    sentryDsn: url('SENTRY_DSN', v.SENTRY_DSN, ['http:', 'https:']),
    sentrySampleRate: v.SENTRY_SAMPLE_RATE,
    pageTimings: v.PAGE_TIMINGS === undefined ? undefined : parseTimings('PAGE_TIMINGS', v.PAGE_TIMINGS),
    releaseIntervalMs: 1000,
    assetsDir,
    pageHtmlPath: path.join(assetsDir, 'waiting.html'),
    bodyLimit: 64 * 1024,
    logLevel: v.LOG_LEVEL,
    trustProxy: v.TRUST_PROXY,
    gateway,
    languages: languagesConfig(v),
    botCheck: { difficulty: v.BOT_CHALLENGE_DIFFICULTY, placesPerAddress: v.PLACES_PER_ADDRESS },
  };
}

/**
 * ADMISSION (fixed, the default, or adaptive), ORIGIN_LATENCY_TARGET_MS and
 * ADMISSION_FEEDBACK_SECONDS (SESSION_SECONDS by default): every room's, unless its ROOMS entry
 * says otherwise. A target the origin's timeout would cut first could never be seen.
 */
function admissionConfig(v: ConfigEnv, responseTimeoutMs: number): AdmissionConfig {
  const mode = v.ADMISSION;
  const target = v.ORIGIN_LATENCY_TARGET_MS;
  if (mode === 'adaptive' && target >= responseTimeoutMs) {
    throw new ConfigError(`ORIGIN_LATENCY_TARGET_MS (${target}) must be below UPSTREAM_TIMEOUT_MS (${responseTimeoutMs}).`);
  }
  return {
    mode,
    originLatencyTargetMs: target,
    feedbackMs: (v.ADMISSION_FEEDBACK_SECONDS ?? v.SESSION_SECONDS) * 1000,
  };
}

function gatewayConfig(v: ConfigEnv): GatewayConfig {
  const upstream = url('UPSTREAM', v.UPSTREAM, ['http:', 'https:']);
  if (upstream !== undefined) {
    const url = new URL(upstream);
    if (url.username || url.password || url.search || url.hash) {
      throw new ConfigError(`UPSTREAM must be a plain origin such as http://127.0.0.1:3000; got "${upstream}".`);
    }
  }
  return {
    upstream,
    connectTimeoutMs: v.UPSTREAM_CONNECT_TIMEOUT_MS,
    responseTimeoutMs: v.UPSTREAM_TIMEOUT_MS,
    connections: v.UPSTREAM_CONNECTIONS,
    bypass: v.BYPASS === undefined ? [] : prefixes('BYPASS', v.BYPASS, false),
    bypassSecret: v.BYPASS_SECRET,
    heldBodyLimit: v.HELD_BODY_LIMIT,
    heldBodies: heldBodyBounds(v),
  };
}

/** The bounds on held bodies, each at least the one inside it: else the largest body could never be held. */
function heldBodyBounds(v: ConfigEnv): GatewayConfig['heldBodies'] {
  if (v.HELD_BODIES_PER_ADDRESS_BYTES < v.HELD_BODY_LIMIT) {
    throw new ConfigError(`HELD_BODIES_PER_ADDRESS_BYTES (${v.HELD_BODIES_PER_ADDRESS_BYTES}) must be at least HELD_BODY_LIMIT (${v.HELD_BODY_LIMIT}).`);
  }
  if (v.HELD_BODIES_MAX_BYTES < v.HELD_BODIES_PER_ADDRESS_BYTES) {
    throw new ConfigError(
      `HELD_BODIES_MAX_BYTES (${v.HELD_BODIES_MAX_BYTES}) must be at least HELD_BODIES_PER_ADDRESS_BYTES (${v.HELD_BODIES_PER_ADDRESS_BYTES}).`,
    );
  }
  return { total: v.HELD_BODIES_MAX_BYTES, perAddress: v.HELD_BODIES_PER_ADDRESS_BYTES };
}
