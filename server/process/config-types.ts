import type { Timings } from '@waiting-room/streams/contract';
import type { Locale } from '../../locales';
import type { ADMISSION_MODES, LOG_LEVELS, QueueingStatusCode } from '../config/environment';
import type { BotChallengeMode } from '../domain/bot-check/mode';
import type { DeclaredEvent } from '../domain/events/declared';
import type { LanguageSettings } from '../http/languages';
import type { RedisTarget } from '../redis/connection';

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
  /** How long a link that moves a place to another browser works (HANDOFF_SECONDS). */
  readonly handoffSeconds: number;
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
  /** How long its report is kept after its last change, in hours (REPORT_RETENTION_HOURS, or the room's `reportRetentionHours`). */
  readonly reportRetentionHours: number;
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
  /** How long a waiting visitor may be away and keep the place (AWAY_SECONDS, or the room's `awaySeconds`). */
  readonly awaySeconds: number;
  /** How long a visitor released while away has to come back for the replay (CLAIM_SECONDS, or the room's `claimSeconds`). */
  readonly claimSeconds: number;
  /** How long a priority code issued for it stays usable, in minutes (CODE_MINUTES, or the room's `codeMinutes`). */
  readonly codeMinutes: number;
  /** The parts its line is split into across the shards of Redis (`PartedLine`); unset: one, the line whole. */
  readonly parts?: number;
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
