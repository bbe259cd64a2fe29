import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { installBodyParsers } from './body';
import type { Clock } from './clock';
import type { ServerConfig } from './config';
import { installErrorHandlers } from './errors';
import { edgeOptions, installEdge } from './http/edge';
import type { WaitingPage } from './page';
import type { AppCredentials } from './realtime/signature';
import type { Fanout } from './realtime/fanout';
import { eventsApiRoutes } from './realtime/events-api';
import { createGate } from './gateway/gate';
import { HeldBodyTally } from './gateway/held-body';
import { registerOrigin } from './gateway/origin';
import type { Rooms } from './rooms';
import { adminRoutes } from './routes/admin';
import { assetRoutes } from './routes/assets';
import { pusherAuthRoutes } from './routes/pusher-auth';
import { queueRoutes } from './routes/queue';
import { sinkRoutes } from './routes/sink';
import { installSessions } from './session';
import type { ErrorLog } from './sink/error-log';

export interface AppParts {
  readonly config: ServerConfig;
  readonly rooms: Rooms;
  readonly clock: Clock;
  readonly page: WaitingPage;
  readonly fanout: Fanout;
  readonly errors: ErrorLog;
  /** The port this instance listens on (known once listening). */
  readonly port: () => number;
}

/** Where log lines go instead of stdout (tests read the server's log through one). */
export interface LogStream {
  write(line: string): void;
}

/**
 * The HTTP server with its logger (to stdout, or to `logStream`), before any route; its edge
 * (timeouts, the request target parsed once, errors met before routing) is `http/edge.ts`.
 */
export function createFastify(config: ServerConfig, logStream?: LogStream): FastifyInstance {
  const verbose = config.logLevel === 'debug' || config.logLevel === 'trace';
  return Fastify({
    logger: { level: config.logLevel, ...(logStream ? { stream: logStream } : {}) },
    logController: new LogController({ disableRequestLogging: !verbose }),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    ...edgeOptions(config.http),
  });
}

/**
 * The HTTP side of the server: the waiting room's own routes, each parsing the bodies it
 * accepts, and in front of everything else the gate and the origin (`upstream`), to which
 * bodies stream untouched.
 */
export function registerRoutes(app: FastifyInstance, parts: AppParts, upstream: string): void {
  const { config, rooms, clock } = parts;
  const heldBodies = new HeldBodyTally();
  const pusherApp: AppCredentials = config.pusher;

  // First: a refused request target is answered before any other hook sees it.
  installEdge(app);
  installSessions(app, config.sessionSecret);
  installErrorHandlers(app);

  app.register(async (own) => {
    installBodyParsers(own);
    own.register(queueRoutes, { rooms, clock });
    own.register(pusherAuthRoutes, { app: pusherApp, rooms });
    own.register(adminRoutes, { prefix: '/admin', token: config.adminToken, rooms, clock, errors: parts.errors, heldBodies });
    own.register(sinkRoutes, { errors: parts.errors, limits: config.sink });
    own.register(assetRoutes, { dir: config.assetsDir, publicSourceMaps: config.publicSourceMaps });
    if (config.pusher.embedded) {
      own.register(async (scope) => eventsApiRoutes(scope, { app: pusherApp, fanout: parts.fanout }));
    }
  });
  app.register(async (gateway) =>
    registerOrigin(gateway, { ...config.gateway, upstream }, rooms, (origin) =>
      createGate({ config, rooms, clock, page: parts.page, origin, heldBodies, port: parts.port }),
    ),
  );
}
