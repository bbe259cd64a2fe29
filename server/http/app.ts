import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { installBodyParsers } from './body';
import type { Clock } from '../domain/clock';
import { logsEveryRequest, type ServerConfig } from '../process/config';
import { installErrorHandlers } from './errors';
import { AJV_OPTIONS } from './openapi';
import { compilersFactory } from './schema-compilers';
import { edgeOptions, installEdge } from './edge';
import type { WaitingPage } from './page';
import type { Languages } from './languages';
import type { AppCredentials } from '../realtime/signature';
import type { Fanout } from '../realtime/fanout';
import { eventsApiRoutes } from './routes/pusher-events-api';
import { createGate, createRoomGate } from './gateway/gate';
import { handoffRoutes } from './routes/handoff';
import { connectorRoutes, revokedSlotMs } from './routes/connector';
import { PassIssuer } from './pass';
import { HeldBodyTally } from './gateway/held-body';
import { HeldBodyBudget } from './gateway/held-body-budget';
import { isOriginAnswer, registerOrigin } from './gateway/origin';
import { installSecurityHeaders, pagePolicy } from './security-headers';
import { ERROR_PAGE_STYLES } from './error-page';
import type { Rooms } from '../domain/rooms';
import { adminRoutes } from './routes/admin';
import { drawRoutes } from './routes/events';
import { assetRoutes } from './routes/assets';
import { pusherAuthRoutes } from './routes/pusher-auth';
import { queueRoutes } from './routes/queue';
import { codeRoutes } from './routes/codes';
import { languageRoutes } from './routes/language';
import { sinkRoutes } from './routes/sink';
import { metricsRoutes } from './routes/metrics';
import type { Metrics } from './metrics';
import type { Sampler } from '../domain/console/sampler';
import { installOpenApi } from './openapi';
import path from 'node:path';
import { SESSION_COOKIE_MIN_SECONDS, installSessions } from './session';
import { AdminFailures } from './admin/failures';
import { BotChallenges } from '../domain/bot-check/challenge';
import type { ErrorLog } from './sink/error-log';
import type { TurnBudget } from './turn-budget';

export interface AppParts {
  readonly config: ServerConfig;
  readonly rooms: Rooms;
  readonly clock: Clock;
  readonly page: WaitingPage;
  /** The rooms' own pages, by room name (the others show `page`). */
  readonly roomPages?: ReadonlyMap<string, WaitingPage>;
  readonly fanout: Fanout;
  readonly errors: ErrorLog;
  readonly metrics: Metrics;
  /** The console's samples. */
  readonly sampler: Sampler;
  /** The port this instance listens on (known once listening). */
  readonly port: () => number;
  /** Bounds the queue_info answers written in one turn of the event loop (the route's own when absent). */
  readonly answerBudget?: TurnBudget;
}

/** Where log lines go instead of stdout (tests read the server's log through one). */
export interface LogStream {
  write(line: string): void;
}

/**
 * The HTTP server with its logger (to stdout, or to `logStream`), before any route; its edge
 * (timeouts, the request target parsed once, errors met before routing) is `http/edge.ts`.
 */
export function createFastify(config: ServerConfig, languages: Languages, logStream?: LogStream): FastifyInstance {
  const app = Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    logController: new LogController({ disableRequestLogging: !logsEveryRequest(config.logLevel) }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    ajv: AJV_OPTIONS,
    schemaController: { compilersFactory },
    ...edgeOptions(config.http),
  });
  // Every error page is written in the visitor's language, even before routing (`errors.ts`).
  app.decorate('languages', languages);
  return app;
}

/**
 * The HTTP side of the server: the waiting room's own routes, each parsing the bodies it
 * accepts, and in front of everything else the gate and the origin (`upstream`), to which
 * bodies stream untouched.
 */
export function registerRoutes(app: FastifyInstance, parts: AppParts, upstream: string): void {
  const { config, rooms, clock } = parts;
  const heldBodies = new HeldBodyTally();
  const bodyBudget = new HeldBodyBudget(config.gateway.heldBodies);
  app.addHook('onClose', async () => bodyBudget.close());
  const challenges = new BotChallenges(config.sessionSecret, clock);
  const pusherApp: AppCredentials = config.pusher;
  // One for the gateway and the connectors' route: a session's pass is signed once.
  const passes = config.passSecret === undefined ? undefined : new PassIssuer(config.passSecret);

  // First: a refused request target is answered before any other hook sees it.
  installEdge(app, config.trustProxy);
  // The cookie outlives the longest a place is kept away (then its claim), a day at least.
  const placeSeconds = Math.max(...config.rooms.map((room) => room.awaySeconds + config.sessionSeconds));
  installSessions(app, config.sessionSecret, Math.max(SESSION_COOKIE_MIN_SECONDS, placeSeconds));
  installErrorHandlers(app);
  installSecurityHeaders(app, pagePolicy(ERROR_PAGE_STYLES), isOriginAnswer);
  // Before any route, so that the document describes them all.
  installOpenApi(app);
  const { metrics } = parts;
  const access = {
    token: config.adminToken,
    secret: config.sessionSecret,
    sessionSeconds: config.adminSessionSeconds,
    now: () => clock.now(),
    failures: new AdminFailures(() => clock.now()),
  };

  app.register(async (own) => {
    installBodyParsers(own);
    own.register(queueRoutes, { rooms, clock, challenges, answered: (ms) => metrics.queueInfoAnswered(ms), budget: parts.answerBudget });
    own.register(codeRoutes, { rooms, clock });
    own.register(handoffRoutes, { config, serverConfig: config, rooms, clock, page: parts.page, roomPages: parts.roomPages, port: parts.port });
    own.register(languageRoutes);
    own.register(pusherAuthRoutes, { app: pusherApp, rooms });
    own.register(adminRoutes, {
      prefix: '/admin',
      access,
      rooms,
      clock,
      config,
      errors: parts.errors,
      heldBodies,
      pusherApp,
      sampler: parts.sampler,
      upstream,
      port: parts.port,
      pageFile: path.join(config.assetsDir, 'admin.html'),
    });
    own.register(metricsRoutes, { metrics, access });
    own.register(sinkRoutes, { errors: parts.errors, limits: config.sink, received: (count) => metrics.pageErrorsReceived(count) });
    own.register(assetRoutes, { dir: config.assetsDir, publicSourceMaps: config.publicSourceMaps });
    own.register(connectorRoutes, {
      config,
      rooms,
      clock,
      gate: createRoomGate({
        config,
        rooms,
        clock,
        page: parts.page,
        roomPages: parts.roomPages,
        heldBodies,
        bodyBudget,
        challenges,
        port: parts.port,
        replaceHeldFrom: 'site',
      }),
      passes,
      revoked: (room) => metrics.revoked(room),
    });
    own.register(drawRoutes, { rooms, verifyPage: path.join(config.assetsDir, 'verify.html') });
    if (config.pusher.embedded) {
      own.register(async (scope) => eventsApiRoutes(scope, { app: pusherApp, fanout: parts.fanout }));
    }
  });
  // With passes signed, a connector may hold a pass of the session too: its slot waits out the
  // revocation's bound, as for a connector's revoke.
  const keepSlotMs = revokedSlotMs(config);
  app.register(async (gateway) =>
    registerOrigin(
      gateway,
      { ...config.gateway, upstream },
      { moveSession: (from, to, userId) => rooms.moveSession(from, to, userId), revoke: (sessionId, now) => rooms.revoke(sessionId, now, keepSlotMs) },
      metrics,
      () => clock.now(),
      (origin) =>
        createGate({
          config,
          rooms,
          clock,
          page: parts.page,
          roomPages: parts.roomPages,
          origin,
          heldBodies,
          bodyBudget,
          challenges,
          port: parts.port,
          passes,
        }),
    ),
  );
}
