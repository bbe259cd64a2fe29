import type { AddressInfo } from 'node:net';
import { CHANNELS } from '@waiting-room/streams/contract';
import { createFastify, registerRoutes, type LogStream } from '../http/app';
import { systemClock, type Clock } from '../domain/clock';
import { ConfigError, type ServerConfig } from './config';
import { Rooms } from '../domain/rooms';
import { buildRoom, roomNames } from './room-factory';
import { createLanguages } from '../http/languages';
import { loadWaitingPage } from '../http/page';
import { loadRoomPages } from '../http/page-template';
import type { ReleasePublisher } from '../domain/release-publisher';
import { fanoutPublisher, pusherOptions, pusherPublisher } from '../realtime/publish';
import { createFanout } from '../realtime/create-fanout';
import type { Fanout } from '../realtime/fanout';
import { RealtimeServer, type DeliveryListener, type UpgradeListener } from '../realtime/server';
import { ELEMENTS_ENTRY } from '../http/page';
import { startReleaseLoop } from '../domain/release-loop';
import { ErrorLog } from '../http/sink/error-log';
import { StateFileError, forgetStateFile, prepareStateFile, readStateFile, writeStateFile } from './state-file';
import { MemoryStore } from '../store/memory';
import type { QueueStore } from '../store/types';
import { Metrics } from '../http/metrics';
import { Sampler } from '../domain/console/sampler';
import { consolePublisher } from '../realtime/console-publish';
import { consoleStateOf } from '../domain/admission/view';
import { closeRedis, connectRedis } from '../redis/connection';
import { redisTargetOf } from '../redis/target';
import { onceAvailable } from '../store/once-available';
import type { TurnBudget } from '../http/turn-budget';

/** A running server. */
export interface Started {
  /** Base URL, e.g. `http://127.0.0.1:8080`. */
  readonly url: string;
  readonly port: number;
  readonly adminToken: string;
  /**
   * Stops the release loop, tells every realtime client to reconnect (elsewhere, or here once
   * restarted), lets requests under way finish, closes the store, and with STATE_FILE on the
   * memory store writes the line for the next start.
   */
  close(): Promise<void>;
}

/** A site started beside the server when UPSTREAM is not set (`npm start`: the demo shop). */
export interface DefaultOrigin {
  /** What the start-up line calls it. */
  readonly name: string;
  /** Starts it on a free loopback port, told where the waiting room's script is, as a site is by its operator. */
  start(site: { readonly logLevel: string; readonly waitingRoomScript: string }): Promise<{ readonly url: string; close(): Promise<void> }>;
}

/** Parts a test or a scaled-out deployment may replace. */
export interface StartOptions {
  /** The origin when UPSTREAM is not set; without either, the server does not start. */
  readonly defaultOrigin?: DefaultOrigin;
  /** Time for the queue (holds, releases, abandonment); defaults to the real clock. */
  readonly clock?: Clock;
  /** Defaults to the store `config.redisUrl` asks for; a given store is closed by `close()` too. */
  readonly store?: QueueStore;
  /** Carries realtime events between instances; defaults to Redis pub/sub when REDIS_URL is set, else this process only. */
  readonly fanout?: Fanout;
  /** How releases are announced; defaults to the `pusher` SDK against the configured server. */
  readonly publisher?: ReleasePublisher;
  /** Where the log goes instead of stdout (tests). */
  readonly logStream?: LogStream;
  /** Hears what each realtime event's delivery to this instance's sockets took (the embedded server only). */
  readonly onDelivered?: DeliveryListener;
  /** Bounds the queue_info answers written in one turn of the event loop; defaults to `TURN_BUDGET_MS` on the real clock. */
  readonly answerBudget?: TurnBudget;
}

/**
 * Starts the whole server on `config.port` (0: a free port): the default origin when UPSTREAM is not set, waiting-room routes,
 * admin API, error sink, the embedded realtime server (unless an outside one is configured)
 * and the release loop. Fails before listening when the waiting page is not built.
 */
export async function start(requested: ServerConfig, options: StartOptions = {}): Promise<Started> {
  if (!requested.gateway.upstream && !options.defaultOrigin) throw new ConfigError('UPSTREAM is not set: name the site to put the waiting room in front of.');
  const { stateFile } = requested;
  // Found now rather than at SIGTERM, when the line would be lost.
  if (stateFile !== undefined) requested.rooms.forEach((room, i) => prepareStateFile(roomNames(room.name, i === 0).stateFile(stateFile)));
  // Each room's saved line; none for the first when the caller gives its store.
  const saved = requested.rooms.map((room, i) =>
    stateFile === undefined || (options.store && i === 0) ? undefined : readStateFile(roomNames(room.name, i === 0).stateFile(stateFile)),
  );
  const savedSecret = saved.find((one) => one !== undefined)?.sessionSecret;
  // A session secret made up at start dies with the process; the saved one keeps visitors' cookies valid.
  const config = savedSecret && requested.sessionSecretGenerated ? { ...requested, sessionSecret: savedSecret } : requested;
  const languages = createLanguages(config.languages);
  const page = loadWaitingPage(config.pageHtmlPath, languages);
  const roomPages = loadRoomPages(page, config);
  const clock = options.clock ?? systemClock;
  const errors = new ErrorLog({ messageBytes: config.sink.messageBytes, totalBytes: config.sink.totalBytes });
  const app = createFastify(config, languages, options.logStream);
  const fanout = options.fanout ?? (await createFanout(config, app.log));
  // Both known before listening: the embedded server's events go into the fanout, an outside one's through its HTTP API.
  const outside = options.publisher ?? (config.pusher.embedded ? undefined : pusherPublisher(pusherOptions(config.pusher)));
  const publisher = (room: string) => outside ?? fanoutPublisher(fanout, room);
  const publishSample = consolePublisher(config.pusher, fanout, pusherOptions(config.pusher));
  const metrics = new Metrics(() => rooms.all.map((room) => ({ name: room.name, stats: (now: number) => room.store.stats(now), limits: room.limits })), clock);
  // One connection carries the decisions of every adaptive room of this process.
  const redisTarget = redisTargetOf(config);
  const admissionRedis =
    redisTarget && config.rooms.some((room) => room.admission.mode === 'adaptive') ? connectRedis(redisTarget, { autoPipelining: true }) : undefined;
  const parts = { clock, log: app.log, publisher, meter: metrics, admissionRedis };
  const rooms: Rooms = new Rooms(config.rooms.map((_room, i) => buildRoom(config, i, parts, (i === 0 ? options.store : undefined) ?? saved[i]?.store)));
  metrics.track(rooms.all.map((room) => room.name));
  const closeStores = () => Promise.allSettled([...rooms.all.map((room) => room.store.close()), admissionRedis && closeRedis(admissionRedis)]);
  // No UPSTREAM: the default origin (the demo shop for `npm start`), on a loopback port of its own.
  const origin = config.gateway.upstream
    ? undefined
    : await options.defaultOrigin?.start({ logLevel: config.logLevel, waitingRoomScript: `/assets/${ELEMENTS_ENTRY}` });
  const upstream = config.gateway.upstream ?? (origin as { url: string }).url;
  let port = config.port;
  const sampler = new Sampler({
    rooms: rooms.all,
    clock,
    log: app.log,
    counts: () => metrics.instanceCounts(),
    publish: publishSample,
    admission: (room) => consoleStateOf(room.admission.view()),
  });
  registerRoutes(
    app,
    { config, rooms, clock, page, roomPages, fanout, errors, metrics, sampler, port: () => port, answerBudget: options.answerBudget },
    upstream,
  );
  const realtime = config.pusher.embedded
    ? new RealtimeServer({
        ...config.realtime,
        app: config.pusher,
        fanout,
        log: app.log,
        onDelivered: options.onDelivered,
        // A page keeps the largest `served` it heard: a move still on its way is worth nothing once a
        // newer one of the same line is out. Only the server publishes (no client events), each line on its own channel.
        latestOf: (message) => (message.event === CHANNELS.movedEvent ? message.channel : undefined),
      })
    : undefined;

  try {
    await app.ready();
    if (realtime) {
      // The origin's WebSockets (the proxy's listener) get every upgrade the realtime server does not own.
      const origin = app.server.listeners('upgrade') as UpgradeListener[];
      app.server.removeAllListeners('upgrade');
      realtime.attach(app.server, (request, socket, head) => origin.forEach((listener) => listener(request, socket, head)));
    }
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await Promise.allSettled([app.close(), closeStores(), fanout.close(), origin?.close()]);
    throw error;
  }
  config.rooms.forEach((room, i) => {
    if (saved[i] && config.stateFile) forgetStateFile(roomNames(room.name, i === 0).stateFile(config.stateFile));
  });
  const address = app.server.address() as AddressInfo;
  port = address.port;
  const ownHost = reachableHost(address);
  const ownUrlHost = ownHost.includes(':') ? `[${ownHost}]` : ownHost;
  // The operator's limits a previous run (or another instance) left in the store, and the events
  // (those the configuration declares put there the first time), before the first visitor.
  await Promise.all(
    rooms.all.map(async (room) => {
      await onceAvailable(() => room.operator.follow()).catch((error: unknown) => app.log.warn({ err: error }, 'limits not read'));
      const declared = config.events.filter((event) => event.room === room.name).map(({ room: _room, ...event }) => event);
      await onceAvailable(() => room.events.declare(declared).then(() => room.events.step())).catch((error: unknown) =>
        app.log.warn({ err: error, room: room.name }, 'events not read'),
      );
    }),
  );
  const loops = rooms.all.map((room) => startReleaseLoop(room.releases, clock, config.releaseIntervalMs, app.log, room.events, room.report));
  sampler.start();
  const controllers = rooms.all.map((room) => room.admission.start());

  let closing: Promise<void> | undefined;
  return {
    url: `http://${ownUrlHost}:${port}`,
    port,
    adminToken: config.adminToken,
    close() {
      closing ??= (async () => {
        sampler.close();
        await Promise.all([...loops.map((loop) => loop.stop()), ...controllers.map((stop) => stop())]);
        // At once: no new connection of either kind, while pages hear "reconnect" and requests finish.
        await Promise.all([realtime?.close(), closeHttp(app)]);
        await Promise.allSettled([closeStores(), fanout.close(), origin?.close()]);
        // Last, once nothing can change the lines any more; a file that fails leaves the others written.
        const failures: string[] = [];
        rooms.all.forEach((room, i) => {
          const file = config.stateFile && roomNames(room.name, i === 0).stateFile(config.stateFile);
          if (!file || !(room.store instanceof MemoryStore)) return;
          try {
            writeStateFile(file, room.store, config.sessionSecret);
          } catch (error) {
            failures.push((error as Error).message);
          }
        });
        if (failures.length > 0) throw new StateFileError(failures.join(' '));
      })();
      return closing;
    },
  };
}

/** How long requests under way may take to finish once the server closes. */
const HTTP_CLOSE_GRACE_MS = 2000;

/**
 * Closes the HTTP server, letting requests under way finish for a short grace. Fastify only
 * closes idle keep-alive connections, and a connection it does not see as idle (a request
 * still arriving) would otherwise hold the close for up to the request timeout (30 s).
 * Requests that still arrive meanwhile are answered 503 `shutting_down` (http/edge.ts).
 */
async function closeHttp(app: ReturnType<typeof createFastify>): Promise<void> {
  const force = setTimeout(() => app.server.closeAllConnections(), HTTP_CLOSE_GRACE_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(force);
  }
}

/** Where this process can reach itself: the wildcard addresses mean loopback. */
function reachableHost(address: AddressInfo): string {
  if (address.address === '0.0.0.0') return '127.0.0.1';
  if (address.address === '::') return '::1';
  return address.address;
}
