import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { TIMINGS, type Messages, type Timings } from '@waiting-room/streams/contract';
import { ENGLISH, LOCALES, type Locale } from '../../locales';
import { catalogueProblems } from '../../locales/check';
import type { LanguageSettings } from '../http/languages';
import { BOT_CHALLENGES, type BotChallengeMode } from '../domain/bot-check/mode';
import { declaredEvents, type DeclaredEvent } from '../domain/events/declared';
import { normalizeTarget } from '../domain/request-target';
import { ConfigError, readEnvironment, type Env, type ReadEnvironment } from './config-env';
import { ADMISSION_MODES, QUEUEING_STATUS_CODES, type ConfigEnv, type LOG_LEVELS, type QueueingStatusCode } from '../config/environment';
import { ROOM_FIELD_NAMES, roomFieldRange, type RoomWholeField } from '../config/room';
import type { RedisNode, RedisTarget } from '../redis/connection';
import { projectRoot } from './project-root';

/** Where the realtime events go: the embedded Pusher-protocol server or an outside one. */
export interface PusherConfig {
  /** True when no outside server is configured: the embedded one answers on our own port. */
  readonly embedded: boolean;
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
  /** True when PUSHER_SECRET was unset and the embedded server made a random one (instances then differ). */
  readonly secretGenerated: boolean;
  /** Outside server only: its host (unset for Pusher Channels, which uses the cluster). */
  readonly host?: string;
  readonly port?: number;
  readonly useTLS: boolean;
  readonly cluster: string;
}

/** Everything the server needs, read once from the environment by `loadConfig`. */
export interface ServerConfig {
  readonly port: number;
  readonly host: string;
  /** Path prefixes whose requests go through the waiting room: every room's. */
  readonly protect: readonly string[];
  /**
   * The lines: each has its prefixes, limits and visitors' places. One room named `default`
   * (PROTECT, ACTIVE_LIMIT, RELEASE_PER_MINUTE) unless ROOMS or ROOMS_FILE lists several.
   */
  readonly rooms: readonly RoomConfig[];
  /** Scheduled events declared in the configuration (EVENTS, EVENTS_FILE, or a room's `events`), each with its room. */
  readonly events: readonly DeclaredEvent[];
  /** Queue_info polls a second the opening of a pre-queue may add, spread over as long as it takes. */
  readonly openingPollsPerSecond: number;
  /** Most events a room keeps, ended ones included (MAX_EVENTS_PER_ROOM): past it, creating one is refused. */
  readonly maxEventsPerRoom: number;
  /** The key passes are signed with (PASS_SECRET); unset: none is given, and no connector is taken. */
  readonly passSecret?: string;
  /** How long a revoked pass may still be honoured by a connector (PASS_REVOCATION_SECONDS), and its slot kept. */
  readonly passRevocationSeconds: number;
  readonly sessionSeconds: number;
  readonly abandonSeconds: number;
  readonly adminToken: string;
  /** True when ADMIN_TOKEN was unset and a random one was made (printed at start). */
  readonly adminTokenGenerated: boolean;
  /** How long a console session lasts once signed in. */
  readonly adminSessionSeconds: number;
  readonly sessionSecret: string;
  readonly sessionSecretGenerated: boolean;
  readonly redisUrl?: string;
  /** The line in the primary Sentinels name (REDIS_SENTINELS) or in a Redis Cluster (REDIS_CLUSTER_NODES); unset with REDIS_URL. */
  readonly redisEngine?: Exclude<RedisTarget, string>;
  /** Replicas that must acknowledge a replay's mark before it is sent (REDIS_REPLAY_REPLICAS). */
  readonly redisReplayReplicas: number;
  readonly pusher: PusherConfig;
  /** Realtime host and port handed to the page; unset means the server's own. */
  readonly pusherClient: { readonly host?: string; readonly port?: number };
  /** The embedded realtime server's idle limits and the bounds on what one client may cost. */
  readonly realtime: RealtimeLimits;
  /** How long a client may take to send a request, and how long an idle connection is kept. */
  readonly http: HttpTimeouts;
  /** Bounds on the local error sink. */
  readonly sink: SinkLimits;
  /** Where the memory store keeps the line across a restart (written at SIGTERM); unset: nowhere. */
  readonly stateFile?: string;
  /** Serve the page's source maps under /assets (they carry nothing secret, but are not needed to run). */
  readonly publicSourceMaps: boolean;
  readonly sentryDsn?: string;
  readonly sentrySampleRate: number;
  /** Timing overrides handed to the page (tests and demos only). */
  readonly pageTimings?: Partial<Timings>;
  /** How often the release loop runs. */
  readonly releaseIntervalMs: number;
  /** The built page assets (hashed JS/CSS) and the waiting page template. */
  readonly assetsDir: string;
  readonly pageHtmlPath: string;
  /** Largest request body accepted, in bytes (held bodies included). */
  readonly bodyLimit: number;
  /** pino level; `debug` and `trace` also log every request. */
  readonly logLevel: LogLevel;
  /** Believe X-Forwarded-* headers (behind a reverse proxy). */
  readonly trustProxy: boolean;
  /** The origin behind the waiting room and how it is reached. */
  readonly gateway: GatewayConfig;
  /** The default language and a site's own wording (DEFAULT_LOCALE, MESSAGES_DIR). */
  readonly languages: LanguageSettings;
  /** The bot check's settings, for the rooms that have it on, and the cap of places per client address. */
  readonly botCheck: BotCheckConfig;
}

export { BOT_CHALLENGES, type BotChallengeMode } from '../domain/bot-check/mode';

export interface BotCheckConfig {
  /**
   * The most key derivations a solution takes (BOT_CHALLENGE_DIFFICULTY): the counter to find is
   * drawn from its upper half. The operator may change it live; the store keeps that.
   */
  readonly difficulty: number;
  /** Most places (in line, or waiting for their bot check) one client address may hold in a room; 0: no cap. */
  readonly placesPerAddress: number;
}

/** A room's own page, as ROOMS names it (`page`): its template, and its words in each language. */
export interface RoomPageConfig {
  /** The template's path, absolute (the configuration resolves it). */
  readonly template: string;
  /** The operator's words, by language, then by name. */
  readonly words: Readonly<Partial<Record<Locale, Readonly<Record<string, string>>>>>;
}

/** One line of its own: the protected prefixes it holds, and its limits. */
export interface RoomConfig {
  /** Lower-case letters, digits and dashes; in the room's store keys and its page's routes. */
  readonly name: string;
  readonly protect: readonly string[];
  /** Sessions admitted at once; with adaptive admission, the most the controller may set. */
  readonly activeLimit: number;
  /** Releases a minute; with adaptive admission, the most the controller may set. */
  readonly releasePerMinute: number;
  /** The language its pages speak whatever the browser asks (a visitor may still pick another); unset: the browser's. */
  readonly locale?: Locale;
  /** Whether a held visitor must solve a proof of work before taking a place (BOT_CHALLENGE, or the room's `botChallenge`). */
  readonly botChallenge: BotChallengeMode;
  readonly admission: AdmissionConfig;
  /** The status a held API client is answered with (QUEUEING_STATUS_CODE, or the room's `queueingStatusCode`). */
  readonly queueingStatusCode: QueueingStatusCode;
  /** The sites (origins) whose connectors may send visitors here and get them back with a pass. */
  readonly connectorOrigins: readonly string[];
  /** The room's own waiting page (docs/own-page.md); unset: the default one. */
  readonly page?: RoomPageConfig;
}

export type AdmissionMode = (typeof ADMISSION_MODES)[number];

/** How a room's rate and limit are set: by the operator, or by what the gateway sees of the origin. */
export interface AdmissionConfig {
  readonly mode: AdmissionMode;
  /** The p99 latency the origin's answers to admitted requests should stay under (adaptive only). */
  readonly originLatencyTargetMs: number;
  /**
   * How long a change of the release rate takes to show in full in the origin's load: about the
   * length of a visit (adaptive only). The controller grows at most this often by a step.
   */
  readonly feedbackMs: number;
}

/** The origin the waiting room stands in front of (gateway mode). */
export interface GatewayConfig {
  /**
   * The origin's base URL (UPSTREAM). Unset: `start()` runs the demo origin on a loopback port
   * and stands in front of it, so the default takes the same path a real site does.
   */
  readonly upstream?: string;
  /** Connecting to the origin may take this long before the visitor gets a 502. */
  readonly connectTimeoutMs: number;
  /** The origin's answer must begin (its headers) within this, or the visitor gets a 504. */
  readonly responseTimeoutMs: number;
  /** Kept-alive connections to the origin, at most. */
  readonly connections: number;
  /** Path prefixes never held, whatever PROTECT says (assets, health checks). */
  readonly bypass: readonly string[];
  /** Key of the signed bypass (`Waiting-Room-Bypass` header) for monitoring; unset: none accepted. */
  readonly bypassSecret?: string;
  /** Largest body of a protected request, held or passed (bytes); larger ones get 413. */
  readonly heldBodyLimit: number;
  /** Bytes of bodies held at once: by the process, and for one client address. */
  readonly heldBodies: { readonly total: number; readonly perAddress: number };
}

export interface RealtimeLimits {
  readonly activityTimeoutSeconds: number;
  readonly pongTimeoutMs: number;
  /** Most WebSocket connections this process holds; past it, new ones are refused with 4100. */
  readonly maxConnections: number;
  /** Most WebSocket connections one client address holds in this process; past it, 4100. */
  readonly maxConnectionsPerAddress: number;
  /** Read the client address from `X-Forwarded-For`, as the HTTP side does (TRUST_PROXY). */
  readonly trustProxy: boolean;
  /** Most channels one connection may subscribe to (the page needs two). */
  readonly maxSubscriptions: number;
  /** Messages a connection may send per second, on average; a burst of twice that is allowed. */
  readonly messagesPerSecond: number;
  /** Bytes waiting to be written to one socket past which it is closed (a client that does not read). */
  readonly maxBufferedBytes: number;
}

export interface HttpTimeouts {
  /** Whole request (headers and body) must arrive within this, or 408. */
  readonly requestTimeoutMs: number;
  /** Headers must arrive within this, or 408. */
  readonly headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  readonly keepAliveTimeoutMs: number;
}

export interface SinkLimits {
  /** Longest reported message kept, in bytes; longer ones are cut and marked. */
  readonly messageBytes: number;
  /** Most bytes of reports kept in all; the oldest go first. */
  readonly totalBytes: number;
  /** Reports one client address may send a minute. */
  readonly reportsPerMinute: number;
}

export type LogLevel = (typeof LOG_LEVELS)[number];

/** Levels at which every request is logged; at the others a request that goes well writes nothing. */
export function logsEveryRequest(level: string): boolean {
  return level === 'debug' || level === 'trace';
}

export { ConfigError } from './config-env';
export { ADMIN_TOKEN_MIN_LENGTH, ADMISSION_MODES, DEFAULT_DIFFICULTY, LOG_LEVELS, MAX_DIFFICULTY } from '../config/environment';

/**
 * Redis Sentinel (REDIS_SENTINELS, REDIS_SENTINEL_NAME) or Redis Cluster (REDIS_CLUSTER_NODES),
 * with REDIS_USERNAME, REDIS_PASSWORD, REDIS_SENTINEL_PASSWORD and REDIS_TLS; at most one of them
 * and REDIS_URL (whose URL carries its own credentials and `rediss:`).
 */
function redisEngineConfig(v: ConfigEnv): Exclude<RedisTarget, string> | undefined {
  const sentinels = v.REDIS_SENTINELS;
  const clusterNodes = v.REDIS_CLUSTER_NODES;
  const given = [v.REDIS_URL !== undefined && 'REDIS_URL', sentinels !== undefined && 'REDIS_SENTINELS', clusterNodes !== undefined && 'REDIS_CLUSTER_NODES'];
  const set = given.filter(Boolean);
  if (set.length > 1) throw new ConfigError(`Set one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES; got ${set.join(' and ')}.`);
  const auth = {
    username: v.REDIS_USERNAME,
    password: v.REDIS_PASSWORD,
    sentinelPassword: v.REDIS_SENTINEL_PASSWORD,
    tls: v.REDIS_TLS,
  };
  if (sentinels === undefined && clusterNodes === undefined) {
    const stray = (['REDIS_USERNAME', 'REDIS_PASSWORD', 'REDIS_SENTINEL_PASSWORD', 'REDIS_TLS', 'REDIS_SENTINEL_NAME'] as const).find(
      (name) => v[name] !== undefined && (name !== 'REDIS_TLS' || v.REDIS_TLS),
    );
    if (stray) throw new ConfigError(`${stray} goes with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL put credentials and rediss: in the URL.`);
    return undefined;
  }
  if (clusterNodes !== undefined) {
    if (auth.sentinelPassword !== undefined || v.REDIS_SENTINEL_NAME !== undefined) {
      throw new ConfigError('REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD go with REDIS_SENTINELS, not REDIS_CLUSTER_NODES.');
    }
    return { kind: 'cluster', nodes: redisNodes('REDIS_CLUSTER_NODES', clusterNodes), ...auth };
  }
  const name = v.REDIS_SENTINEL_NAME;
  if (name === undefined)
    throw new ConfigError('REDIS_SENTINELS needs REDIS_SENTINEL_NAME: the name the Sentinels monitor the primary by (sentinel monitor <name> …).');
  return { kind: 'sentinel', sentinels: redisNodes('REDIS_SENTINELS', sentinels as string), name, ...auth };
}

/** `host:port,host:port,…` (an IPv6 host in brackets). */
function redisNodes(name: string, raw: string): RedisNode[] {
  const nodes = raw
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean)
    .map((one) => {
      const found = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(one);
      const port = Number(found?.[2]);
      if (!found || port < 1 || port > 65535) throw new ConfigError(`${name} must list host:port pairs, comma-separated; got "${one}".`);
      return { host: found[1].replace(/^\[|\]$/g, ''), port };
    });
  if (nodes.length === 0) throw new ConfigError(`${name} must list host:port pairs, comma-separated; got "${raw}".`);
  return nodes;
}

const ROOT = projectRoot();

/** The default embedded app; an outside server needs all three of id, key and secret. */
const EMBEDDED_APP = { appId: 'waiting-room', key: 'waiting-room-key' };

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
    admission,
    botChallenge: v.BOT_CHALLENGE,
    queueingStatusCode: Number(v.QUEUEING_STATUS_CODE) as QueueingStatusCode,
  };
  const rooms = roomsConfig(read, defaults, gateway.responseTimeoutMs);
  const connected = rooms.find((room) => room.connectorOrigins.length > 0);
  if (connected && v.PASS_SECRET === undefined) {
    throw new ConfigError(`Room "${connected.name}" takes connectors (connectorOrigins): set PASS_SECRET, the secret its sites check the pass with.`);
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
    abandonSeconds: v.ABANDON_SECONDS,
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

/** A locale the catalogue has, named in any letter case (`pt-br`), or a ConfigError naming `where`. */
function localeOf(value: unknown, where: string): Locale {
  const locale = typeof value === 'string' ? LOCALES.find((known) => known.toLowerCase() === value.toLowerCase()) : undefined;
  if (locale === undefined) throw new ConfigError(`${where} must be one of ${LOCALES.join(', ')}; got ${JSON.stringify(value)}.`);
  return locale;
}

/**
 * DEFAULT_LOCALE (English unless set) and MESSAGES_DIR: a folder of `<locale>.json` files, each
 * some messages of that locale in the site's own words, checked like the catalogue (known keys,
 * the same placeholders and plural forms) so that a typo stops the start instead of showing.
 */
function languagesConfig(v: ConfigEnv): LanguageSettings {
  const defaultLocale = v.DEFAULT_LOCALE;
  const dir = v.MESSAGES_DIR;
  const overrides: Partial<Record<Locale, Messages>> = {};
  if (dir === undefined) return { defaultLocale, overrides };
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch (error) {
    throw new ConfigError(`MESSAGES_DIR cannot be read: ${(error as Error).message}`);
  }
  for (const file of files) {
    const locale = localeOf(file.replace(/\.json$/, ''), `MESSAGES_DIR: ${file} (named after its locale)`);
    let messages: unknown;
    try {
      messages = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    } catch (error) {
      throw new ConfigError(`MESSAGES_DIR: ${file} must be JSON: ${(error as Error).message}`);
    }
    const problems = catalogueProblems(locale, messages, ENGLISH, true);
    if (problems.length > 0) throw new ConfigError(`MESSAGES_DIR: ${file}: ${problems.join('; ')}.`);
    overrides[locale] = messages as Messages;
  }
  return { defaultLocale, overrides };
}

const ROOM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ROOM_FIELD_SET = new Set<string>(ROOM_FIELD_NAMES);

/** A room as read from ROOMS, with the events it declares (taken out into `ServerConfig.events`). */
type RoomWithEvents = RoomConfig & { readonly events?: unknown };

/**
 * The rooms: ROOMS (JSON) or ROOMS_FILE (a JSON file), an array of `{name, protect, activeLimit?,
 * releasePerMinute?, botChallenge?}`, the limits defaulting to ACTIVE_LIMIT and RELEASE_PER_MINUTE
 * and the bot check to BOT_CHALLENGE; without either, one room named `default` holding PROTECT.
 * A prefix belongs to one room only.
 */
function roomsConfig(
  { values: v, given: set }: ReadEnvironment,
  defaults: {
    activeLimit: number;
    releasePerMinute: number;
    admission: AdmissionConfig;
    botChallenge: BotChallengeMode;
    queueingStatusCode: QueueingStatusCode;
  },
  responseTimeoutMs: number,
): RoomWithEvents[] {
  const given = jsonSetting('ROOMS', v.ROOMS, v.ROOMS_FILE, '[{"name": "tickets", "protect": ["/tickets"]}, …]');
  if (given === undefined) {
    return [
      {
        name: 'default',
        protect: prefixes('PROTECT', v.PROTECT, true),
        ...defaults,
        connectorOrigins: connectorOrigins('CONNECTOR_ORIGINS', v.CONNECTOR_ORIGINS),
      },
    ];
  }
  if (set.has('PROTECT')) {
    throw new ConfigError('With ROOMS or ROOMS_FILE, each room lists its own prefixes: unset PROTECT.');
  }
  if (set.has('CONNECTOR_ORIGINS')) {
    throw new ConfigError('With ROOMS or ROOMS_FILE, each room lists its own connectorOrigins: unset CONNECTOR_ORIGINS.');
  }
  const { source, value } = given;
  if (!Array.isArray(value) || value.length === 0) throw new ConfigError(`${source} must be a non-empty JSON array of rooms.`);
  const names = new Set<string>();
  const owners = new Map<string, string>();
  // A room's page template is found beside ROOMS_FILE, or from the working directory.
  const pagesBase = v.ROOMS_FILE !== undefined ? path.dirname(path.resolve(v.ROOMS_FILE)) : process.cwd();
  return value.map((raw: unknown, index): RoomWithEvents => {
    const at = `${source}[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${at} must be an object.`);
    const room = raw as Record<string, unknown>;
    const unknown = Object.keys(room).find((key) => !ROOM_FIELD_SET.has(key));
    if (unknown !== undefined) throw new ConfigError(`${at}: unknown field "${unknown}"; known: ${ROOM_FIELD_NAMES.join(', ')}.`);
    if (typeof room.name !== 'string' || !ROOM_NAME.test(room.name)) {
      throw new ConfigError(`${at}.name must be 1 to 32 lower-case letters, digits or dashes.`);
    }
    if (names.has(room.name)) throw new ConfigError(`${at}: the room name "${room.name}" is used twice.`);
    names.add(room.name);
    const givenOrigins = room.connectorOrigins ?? [];
    if (!Array.isArray(givenOrigins) || !givenOrigins.every((origin) => typeof origin === 'string')) {
      throw new ConfigError(`${at}.connectorOrigins must be an array of origins (https://host[:port]).`);
    }
    const origins = connectorOrigins(`${at}.connectorOrigins`, givenOrigins.join(','));
    // A room only connectors send visitors to needs no prefix of the gateway's.
    const protectOptional = origins.length > 0 && (room.protect === undefined || (Array.isArray(room.protect) && room.protect.length === 0));
    if (!protectOptional && (!Array.isArray(room.protect) || room.protect.length === 0 || !room.protect.every((p) => typeof p === 'string'))) {
      throw new ConfigError(`${at}.protect must be a non-empty array of path prefixes (or, for a room only connectors use, left out).`);
    }
    const protect = protectOptional ? [] : prefixes('PROTECT', (room.protect as string[]).join(','), false);
    for (const prefix of protect) {
      const key = prefix.toLowerCase().replace(/\/+$/, '') || '/';
      const owner = owners.get(key);
      if (owner !== undefined) throw new ConfigError(`${at}: the prefix ${prefix} is already room "${owner}"'s.`);
      owners.set(key, room.name);
    }
    const whole = (field: RoomWholeField): number | undefined => {
      const given = room[field];
      const { min, max } = roomFieldRange(field);
      if (given === undefined) return undefined;
      if (typeof given !== 'number' || !Number.isInteger(given) || given < min || given > max) {
        throw new ConfigError(`${at}.${field} must be a whole number from ${min} to ${max}.`);
      }
      return given;
    };
    const mode = room.admission ?? defaults.admission.mode;
    if (!(ADMISSION_MODES as readonly unknown[]).includes(mode)) {
      throw new ConfigError(`${at}.admission must be one of ${ADMISSION_MODES.join(', ')}.`);
    }
    const target = whole('originLatencyTargetMs') ?? defaults.admission.originLatencyTargetMs;
    if (mode === 'adaptive' && target >= responseTimeoutMs) {
      throw new ConfigError(`${at}.originLatencyTargetMs (${target}) must be below UPSTREAM_TIMEOUT_MS (${responseTimeoutMs}).`);
    }
    const botChallenge = room.botChallenge ?? defaults.botChallenge;
    if (!(BOT_CHALLENGES as readonly unknown[]).includes(botChallenge)) {
      throw new ConfigError(`${at}.botChallenge must be one of ${BOT_CHALLENGES.join(', ')}.`);
    }
    const queueingStatusCode = room.queueingStatusCode ?? defaults.queueingStatusCode;
    if (!(QUEUEING_STATUS_CODES as readonly unknown[]).includes(queueingStatusCode)) {
      throw new ConfigError(`${at}.queueingStatusCode must be one of ${QUEUEING_STATUS_CODES.join(', ')}.`);
    }
    return {
      name: room.name,
      protect,
      activeLimit: whole('activeLimit') ?? defaults.activeLimit,
      releasePerMinute: whole('releasePerMinute') ?? defaults.releasePerMinute,
      ...(room.locale === undefined ? {} : { locale: localeOf(room.locale, `${at}.locale`) }),
      admission: { ...defaults.admission, mode: mode as AdmissionMode, originLatencyTargetMs: target },
      ...(room.events !== undefined && { events: room.events }),
      botChallenge: botChallenge as BotChallengeMode,
      queueingStatusCode: queueingStatusCode as QueueingStatusCode,
      connectorOrigins: origins,
      ...(room.page !== undefined && { page: roomPage(room.page, `${at}.page`, pagesBase) }),
    };
  });
}

const WORD_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * A room's own page: `{template, words?}`, the template's path relative to `base` (ROOMS_FILE's
 * folder, or the working directory), the words by language then name, each a string. The
 * template itself is read and checked at start (page-template.ts), where its blocks are known.
 */
function roomPage(value: unknown, at: string, base: string): RoomPageConfig {
  const object = (given: unknown, where: string): Record<string, unknown> => {
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new ConfigError(`${where} must be an object.`);
    return given as Record<string, unknown>;
  };
  const { template, words = {}, ...rest } = object(value, `${at}`);
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ConfigError(`${at}: unknown field "${unknown}"; known: template, words.`);
  if (typeof template !== 'string' || template.trim() === '') throw new ConfigError(`${at}.template must be the path of an HTML file.`);
  const byLanguage = Object.entries(object(words, `${at}.words`)).map(([language, given]) => {
    const locale = localeOf(language, `${at}.words: "${language}"`);
    const named = Object.entries(object(given, `${at}.words.${language}`));
    for (const [name, word] of named) {
      if (!WORD_NAME.test(name)) throw new ConfigError(`${at}.words.${language}: the word name "${name}" must be lower-case letters, digits and dashes.`);
      if (typeof word !== 'string') throw new ConfigError(`${at}.words.${language}.${name} must be a string.`);
    }
    return [locale, Object.fromEntries(named) as Record<string, string>] as const;
  });
  return { template: path.resolve(base, template), words: Object.fromEntries(byLanguage) };
}

/**
 * The origins in a comma-separated `list` (CONNECTOR_ORIGINS, a room's `connectorOrigins`): each
 * an http(s) scheme, host and optional port, nothing more, since a visitor is sent back to any
 * address under one of them.
 */
function connectorOrigins(setting: string, list: string | undefined): string[] {
  const given = (list ?? '')
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one !== '');
  return given.map((one) => {
    let url: URL | undefined;
    try {
      url = new URL(one);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== one.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(`${setting}: "${one}" is not an origin: give a scheme, a host and optionally a port, e.g. https://shop.example.`);
    }
    return url.origin;
  });
}

/**
 * The declared events: EVENTS (JSON) or EVENTS_FILE (a JSON file), an array of events each naming
 * its `room` (which may be left out when there is one), and the `events` of each room of ROOMS;
 * at most `maxPerRoom` (MAX_EVENTS_PER_ROOM) in a room.
 */
function eventsConfig(v: ConfigEnv, rooms: readonly RoomWithEvents[], maxPerRoom: number): DeclaredEvent[] {
  const given = jsonSetting('EVENTS', v.EVENTS, v.EVENTS_FILE, '[{"name": "Spring drop", "eventStartTime": "…", …}, …]');
  let declared: DeclaredEvent[];
  try {
    declared = declaredEvents(
      given?.source ?? 'EVENTS',
      given?.value ?? [],
      rooms.map((room) => ({ name: room.name, events: room.events })),
    );
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const crowded = rooms.find((room) => declared.filter((event) => event.room === room.name).length > maxPerRoom);
  if (crowded) throw new ConfigError(`Room "${crowded.name}" declares more events than MAX_EVENTS_PER_ROOM (${maxPerRoom}) allows.`);
  return declared;
}

/**
 * A setting given as JSON, inline in `name` or in the file `name_FILE` (not both): its parsed value
 * and where it came from, for messages; undefined when neither is set. `example` shows its shape.
 */
function jsonSetting(name: string, inline: string | undefined, file: string | undefined, example: string): { source: string; value: unknown } | undefined {
  if (inline !== undefined && file !== undefined) throw new ConfigError(`Set ${name} or ${name}_FILE, not both.`);
  if (inline === undefined && file === undefined) return undefined;
  const source = inline !== undefined ? name : `${name}_FILE (${file})`;
  let text = inline;
  if (text === undefined) {
    try {
      text = readFileSync(file as string, 'utf8');
    } catch (error) {
      throw new ConfigError(`${name}_FILE cannot be read: ${(error as Error).message}`);
    }
  }
  try {
    return { source, value: JSON.parse(text) };
  } catch {
    throw new ConfigError(`${source} must be JSON: ${example}.`);
  }
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

function pusherConfig(v: ConfigEnv): PusherConfig {
  const { PUSHER_APP_ID: appId, PUSHER_KEY: key, PUSHER_SECRET: secret, PUSHER_HOST: host, PUSHER_CLUSTER: cluster } = v;
  const outside = appId !== undefined || key !== undefined || host !== undefined;
  if (!outside) {
    return {
      embedded: true,
      ...EMBEDDED_APP,
      // The embedded server shares its secret with nobody, so a fresh one each start is fine.
      secret: secret ?? randomBytes(24).toString('base64url'),
      secretGenerated: secret === undefined,
      useTLS: false,
      cluster: 'local',
    };
  }
  if (appId === undefined || key === undefined || secret === undefined) {
    throw new ConfigError('An outside Pusher-protocol server needs PUSHER_APP_ID, PUSHER_KEY and PUSHER_SECRET together.');
  }
  if (host === undefined && cluster === undefined) {
    throw new ConfigError('Set PUSHER_HOST (soketi, Reverb) or PUSHER_CLUSTER (Pusher Channels).');
  }
  return {
    embedded: false,
    appId,
    key,
    secret,
    secretGenerated: false,
    host,
    port: v.PUSHER_PORT,
    useTLS: v.PUSHER_USE_TLS,
    cluster: cluster ?? 'local',
  };
}

/** A URL of one of `protocols`, as given; undefined when unset. */
function url(name: string, raw: string | undefined, protocols: readonly string[]): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL; got "${raw}".`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}; got "${raw}".`);
  }
  return raw;
}

/** Comma-separated path prefixes, each one the server routes; at least one when `required`. */
function prefixes(name: string, raw: string, required: boolean): readonly string[] {
  const list = raw
    .split(',')
    .map((prefix) => prefix.trim())
    .filter(Boolean);
  const bad = list.find((prefix) => !prefix.startsWith('/') || prefix.startsWith('//'));
  if ((list.length === 0 && required) || bad !== undefined) {
    throw new ConfigError(`${name} must list paths starting with "/", comma-separated; got "${raw}".`);
  }
  for (const prefix of list) {
    // The prefix is compared with requests' normalized paths: it must be one itself.
    const target = normalizeTarget(prefix);
    if (!target.ok || target.query !== undefined) {
      throw new ConfigError(`${name}: "${prefix}" is not a path the server routes${target.ok ? '' : ` (${target.reason})`}.`);
    }
  }
  return list;
}

function parseTimings(name: string, raw: string): Partial<Timings> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be JSON, e.g. {"positionZeroTimeout": 2000}; got "${raw}".`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${name} must be a JSON object of timings in ms.`);
  }
  const known = Object.keys(TIMINGS);
  const timings: Record<string, number> = {};
  for (const [key, ms] of Object.entries(value)) {
    if (!known.includes(key)) {
      throw new ConfigError(`${name}: unknown timing "${key}"; known: ${known.join(', ')}.`);
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
      throw new ConfigError(`${name}: "${key}" must be a positive number of ms.`);
    }
    timings[key] = ms;
  }
  return timings;
}
