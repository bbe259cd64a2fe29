import type { FastifyBaseLogger } from 'fastify';
import { CHANNELS, ROUTES } from '@waiting-room/streams/contract';
import { createAdmission } from './admission';
import { RoomBotCheck } from '../domain/bot-check/room-check';
import type { Clock } from '../domain/clock';
import type { RoomConfig, ServerConfig } from './config';
import { EventSchedule } from '../domain/events/schedule';
import type { ReleasePublisher } from '../domain/release-publisher';
import type { RedisClient } from '../redis/connection';
import { redisTargetOf, roomPrefix } from '../redis/target';
import { Releases, type ReleaseMeter } from '../domain/releases';
import { OperatorLimits, RoomPolicy } from '../domain/room-policy';
import { RecentReleasesCache } from '../domain/recent-releases-cache';
import { ReportRecorder } from '../domain/report/recorder';
import { RoomMessage } from '../domain/room-message';
import type { Room } from '../domain/rooms';
import { createStore } from './stores';
import { LOCALES } from '../../locales';
import type { QueueStore, ReleasePolicy } from '../store/types';

/**
 * The names a room is known by outside this process: its keys in Redis, the routes its page
 * calls, the public channel of its line's moves and the file its line is kept in with
 * STATE_FILE. The first room keeps those a single line has always had (`wr:` on one Redis, the contract's
 * routes, `App.Queue`, the file itself), so that a server that grew a second room changes
 * nothing for the first; every other room's carry its name.
 */
export interface RoomNames {
  readonly storePrefix: string;
  readonly routes: Room['routes'];
  readonly queueChannel: string;
  stateFile(file: string): string;
}

export function roomNames(name: string, first: boolean, cluster = false): RoomNames {
  const storePrefix = roomPrefix({ name, primary: first }, cluster);
  if (first) return { storePrefix, routes: ROUTES, queueChannel: CHANNELS.queue, stateFile: (file) => file };
  const query = `?room=${encodeURIComponent(name)}`;
  return {
    storePrefix,
    routes: { queue_request: ROUTES.queue_request + query, queue_info: ROUTES.queue_info + query },
    queueChannel: `${CHANNELS.queue}.${name}`,
    stateFile: (file) => `${file}.${name}`,
  };
}

/** The release policy the configuration sets for `room`: its limits and away and claim times, with the server's session time. */
export function configuredPolicy(
  config: Pick<ServerConfig, 'sessionSeconds'>,
  room: Pick<RoomConfig, 'activeLimit' | 'releasePerMinute' | 'awaySeconds' | 'claimSeconds'>,
): ReleasePolicy {
  return {
    activeLimit: room.activeLimit,
    sessionMs: config.sessionSeconds * 1000,
    perMinute: room.releasePerMinute,
    abandonMs: room.awaySeconds * 1000,
    claimMs: room.claimSeconds * 1000,
  };
}

/** What every room of a server shares. */
export interface RoomParts {
  readonly clock: Clock;
  readonly log: FastifyBaseLogger;
  /** How a room's releases, its line's moves and its events' openings are announced, by room name. */
  readonly publisher: (room: string) => ReleasePublisher;
  readonly meter?: ReleaseMeter;
  /** With REDIS_URL: the client every adaptive room of this process shares its decision through. */
  readonly admissionRedis?: RedisClient;
}

/**
 * Builds one room of `config` (the `index`th of `config.rooms`) with everything it needs, each
 * part given what it works with at construction: its line (`store`, by default the one the
 * configuration asks for under the room's prefix), its events, the operator's limits, its
 * admission, the policy in force, its releases on its own channel, and its bot check.
 */
export function buildRoom(config: ServerConfig, index: number, parts: RoomParts, store?: QueueStore): Room {
  const room = config.rooms[index];
  const target = redisTargetOf(config);
  const names = roomNames(room.name, index === 0, typeof target === 'object' && target.kind === 'cluster');
  const { clock, log } = parts;
  const publisher = parts.publisher(room.name);
  const line = store ?? createStore(config, names.storePrefix, room.awaySeconds * 1000, room.parts);
  const events = new EventSchedule({
    room: room.name,
    store: line,
    clock,
    log,
    openingPollsPerSecond: config.openingPollsPerSecond,
    maxEvents: config.maxEventsPerRoom,
    announcer: publisher,
  });
  const operator = new OperatorLimits(line);
  const configured = configuredPolicy(config, room);
  // The operator's policy (configured, the operator's, an event's): in force with fixed admission, the ceilings of adaptive.
  const ceilings = new RoomPolicy({ configured, operator, events, clock });
  const admission = createAdmission(room, {
    prefix: names.storePrefix,
    store: line,
    clock,
    log,
    redis: parts.admissionRedis,
    operated: () => ceilings.current,
  });
  const policy = new RoomPolicy({ configured, operator, events, clock, admitted: () => admission.admitted() });
  const recentReleases = new RecentReleasesCache(line);
  const report = new ReportRecorder({
    store: line,
    recentReleases,
    clock,
    log,
    retentionMs: room.reportRetentionHours * 3_600_000,
    perMinute: () => policy.current.perMinute,
    sessions: () => policy.current,
  });
  const releases = new Releases({
    room: room.name,
    store: line,
    clock,
    log,
    policy,
    operator,
    events,
    publisher,
    queueChannel: names.queueChannel,
    meter: parts.meter,
    report,
  });
  return {
    name: room.name,
    protect: room.protect,
    store: line,
    releases,
    get limits() {
      return policy.current;
    },
    configured,
    operator,
    admission,
    events,
    botCheck: new RoomBotCheck(line, { mode: room.botChallenge, difficulty: config.botCheck.difficulty }, clock, events),
    report,
    recentReleases,
    routes: names.routes,
    queueChannel: names.queueChannel,
    message: new RoomMessage({
      store: line,
      clock,
      publisher,
      queueChannel: names.queueChannel,
      locale: room.locale ?? config.languages.defaultLocale,
      find: (tag) => LOCALES.find((locale) => locale.toLowerCase() === tag.toLowerCase()),
    }),
    locale: room.locale,
    codeMs: room.codeMinutes * 60_000,
  };
}
