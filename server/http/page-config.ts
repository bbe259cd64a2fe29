import {
  AUTH_ENDPOINT,
  CHANNELS,
  ERROR_REPORTING,
  ROUTES,
  type AltchaChallenge,
  type EventFactsJson,
  type PageConfigJson,
  type RoomMessageJson,
  type Routes,
} from '@waiting-room/streams/contract';
import type { ServerConfig } from '../process/config';
import type { RequestOrigin } from './request-origin';
import type { ServedLanguage } from './languages';
import type { Session } from './session';
import type { Entry, ReleasePolicy } from '../store/types';

export type { RequestOrigin } from './request-origin';

/** What a page config says of the visitor's room: the routes its page calls, and the channel of its line's moves. */
export interface RoomPage {
  readonly routes: Routes;
  readonly queueChannel: string;
  /** The room's configured release policy: its away time is told to the visitor. */
  readonly configured?: Pick<ReleasePolicy, 'abandonMs'>;
}

/** Where a page asks for a link that moves its place to another browser (`routes/handoff.ts`). */
export const HANDOFF_ROUTE = '/queue/handoff';

/** The first room's: the contract's routes and line-wide channel, as a single line has always had. */
const FIRST_ROOM: RoomPage = { routes: ROUTES, queueChannel: CHANNELS.queue };

/** The config of one visitor's waiting page (its realtime server: `realtimeFor`). */
export function pageConfigFor(
  entry: Entry,
  position: number,
  session: Session,
  config: ServerConfig,
  origin: RequestOrigin,
  listeningPort: number,
  /** The visitor's room (`room-factory.ts`). */
  room: RoomPage = FIRST_ROOM,
  /** The visitor's language (`languages.ts`): its messages go in the config, so the page needs no other request for them. */
  language?: ServedLanguage,
  /** The scheduled event whose pre-queue the visitor entered (`events/schedule.ts`). */
  event?: EventFactsJson,
  /** The bot check's challenge, while the place waits for it. */
  altcha?: AltchaChallenge,
  /** The operator's message to those waiting in the room, once one was ever set. */
  message?: RoomMessageJson,
): PageConfigJson {
  return {
    queue: { uuid: entry.uuid, uri: entry.request.uri, method: entry.request.method, position },
    user: { id: entry.userId },
    csrfToken: session.csrfToken,
    // The channel is written only when it is not the default, so that the first room's config stays as it was.
    realtime: { ...realtimeFor(config, origin, listeningPort), ...(room.queueChannel !== CHANNELS.queue && { queueChannel: room.queueChannel }) },
    routes: room.routes,
    errorReporting: {
      dsn: config.sentryDsn ?? `${origin.secure ? 'https' : 'http'}://public@${origin.host}/1`,
      sampleRate: config.sentrySampleRate,
      release: ERROR_REPORTING.release,
    },
    ...(config.pageTimings ? { timings: config.pageTimings } : {}),
    ...(language ? { language: language.json } : {}),
    ...(event && { event }),
    ...(altcha && { altcha }),
    // Whole minutes, rounded down: the page never promises more than the room keeps.
    ...(room.configured && { awayMinutes: Math.max(1, Math.floor(room.configured.abandonMs / 60_000)) }),
    ...(message && { message }),
    // A room's query (`?room=`) as its named routes carry it.
    handoff: { route: HANDOFF_ROUTE + (/\?.*$/.exec(room.routes.queue_request)?.[0] ?? '') },
  };
}

/**
 * Where a browser reaches the realtime server. Without an outside one, the embedded server on
 * the host the browser reached us by and on the port we listen on (PUSHER_CLIENT_HOST/PORT
 * override both, e.g. behind a reverse proxy).
 */
export function realtimeFor(config: ServerConfig, origin: RequestOrigin, listeningPort: number): PageConfigJson['realtime'] {
  const { pusher, pusherClient } = config;
  const where = pusher.embedded
    ? {
        host: pusherClient.host ?? origin.hostname,
        port: pusherClient.port ?? listeningPort,
        forceTLS: origin.secure,
      }
    : {
        host: pusherClient.host ?? pusher.host ?? `ws-${pusher.cluster}.pusher.com`,
        port: pusherClient.port ?? pusher.port ?? (pusher.useTLS ? 443 : 80),
        forceTLS: pusher.useTLS,
      };
  // The channel authorization is ours whichever realtime server the page connects to.
  return { key: pusher.key, cluster: pusher.cluster, ...where, authEndpoint: AUTH_ENDPOINT };
}
