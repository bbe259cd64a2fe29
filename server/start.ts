import type { AddressInfo } from 'node:net';
import { CHANNELS } from '@waiting-room/streams/contract';
import { createFastify, registerRoutes, type LogStream } from './app';
import { systemClock, type Clock } from './clock';
import type { RoomConfig, ServerConfig } from './config';
import { Rooms, roomRoutes, type Room } from './rooms';
import { createLanguages } from './languages';
import { loadWaitingPage } from './page';
import { fanoutPublisher, pusherOptions, pusherPublisher, type ReleasePublisher } from './publish';
import { createFanout } from './realtime/create-fanout';
import type { Fanout } from './realtime/fanout';
import { RealtimeServer, type DeliveryListener, type UpgradeListener } from './realtime/server';
import { startDemoOrigin } from '../demo/origin';
import { ELEMENTS_ENTRY } from './page';
import { EventSchedule } from './events/schedule';
import { startReleaseLoop } from './release-loop';
import { Releases } from './releases';
import { RoomBotCheck } from './bot-check/room-check';
import { ErrorLog } from './sink/error-log';
import { StateFileError, forgetStateFile, prepareStateFile, readStateFile, writeStateFile } from './state-file';
import { createStore } from './store/create';
import { MemoryStore } from './store/memory';
import type { QueueStore, ReleasePolicy } from './store/types';
import { Metrics } from './metrics/metrics';
import { Sampler } from './console/sampler';
import { consolePublisher } from './console/publish';
import { createAdmission } from './admission/create';
import { consoleStateOf } from './admission/view';
import { closeRedis, connectRedis } from './redis/connection';
import { redisTargetOf } from './redis/target';
import { onceAvailable } from './store/once-available';
import type { TurnBudget } from './http/turn-budget';

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

/** Parts a test or a scaled-out deployment may replace. */
export interface StartOptions {
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

/** The release policy the configuration sets for `room` (the first room's by default). */
export function releasePolicy(config: ServerConfig, room: RoomConfig = config.rooms[0]): ReleasePolicy {
  return {
    activeLimit: room.activeLimit,
    sessionMs: config.sessionSeconds * 1000,
    perMinute: room.releasePerMinute,
    abandonMs: config.abandonSeconds * 1000,
  };
}

/** Where a room's line is kept across a restart with STATE_FILE: the first room's in the file itself. */
function stateFileOf(file: string, room: RoomConfig, primary: boolean): string {
  return primary ? file : `${file}.${room.name}`;
}

/**
 * Starts the whole server on `config.port` (0: a free port): demo site, waiting-room routes,
 * admin API, error sink, the embedded realtime server (unless an outside one is configured)
 * and the release loop. Fails before listening when the waiting page is not built.
 */
export async function start(requested: ServerConfig, options: StartOptions = {}): Promise<Started> {
  const { stateFile } = requested;
  // Found now rather than at SIGTERM, when the line would be lost.
  if (stateFile !== undefined) requested.rooms.forEach((room, i) => prepareStateFile(stateFileOf(stateFile, room, i === 0)));
  // Each room's saved line; none for the first when the caller gives its store.
  const saved = requested.rooms.map((room, i) =>
    stateFile === undefined || (options.store && i === 0) ? undefined : readStateFile(stateFileOf(stateFile, room, i === 0)),
  );
  const savedSecret = saved.find((one) => one !== undefined)?.sessionSecret;
  // A session secret made up at start dies with the process; the saved one keeps visitors' cookies valid.
  const config = savedSecret && requested.sessionSecretGenerated ? { ...requested, sessionSecret: savedSecret } : requested;
  const languages = createLanguages(config.languages);
  const page = loadWaitingPage(config.pageHtmlPath, languages);
  const clock = options.clock ?? systemClock;
  const errors = new ErrorLog({ messageBytes: config.sink.messageBytes, totalBytes: config.sink.totalBytes });
  const app = createFastify(config, languages, options.logStream);
  const fanout = options.fanout ?? (await createFanout(config, app.log));
  const metrics = new Metrics(
    () => rooms.all.map((room) => ({ name: room.name, stats: (now: number) => room.store.stats(now), limits: room.releases.policy })),
    clock,
  );
  // One connection carries the decisions of every adaptive room of this process.
  const redisTarget = redisTargetOf(config);
  const admissionRedis =
    redisTarget && config.rooms.some((room) => room.admission.mode === 'adaptive') ? connectRedis(redisTarget, { autoPipelining: true }) : undefined;
  const rooms = new Rooms(
    config.rooms.map((room, i): Room => {
      const primary = i === 0;
      const store = (primary ? options.store : undefined) ?? saved[i]?.store ?? createStore(config, { name: room.name, primary });
      const releases = new Releases(store, clock, releasePolicy(config, room), app.log, primary, room.name, metrics);
      // The configuration with the operator's limits and a running event's: in force, or the adaptive controller's ceilings.
      const admission = createAdmission(room, { primary, store, clock, log: app.log, redis: admissionRedis, operated: () => releases.operated });
      releases.admitWith(admission);
      const events = new EventSchedule({
        room: room.name,
        store,
        clock,
        log: app.log,
        openingPollsPerSecond: config.openingPollsPerSecond,
        maxEvents: config.maxEventsPerRoom,
      });
      releases.useEvents(events);
      return {
        name: room.name,
        store,
        releases,
        admission,
        events,
        // The policy in force: `releases` follows the operator's limits, a running event's and the admission.
        get limits() {
          return releases.policy;
        },
        botCheck: new RoomBotCheck(store, { mode: room.botChallenge, difficulty: config.botCheck.difficulty }, clock, events),
        primary,
        routes: roomRoutes(room.name, primary),
        locale: room.locale,
      };
    }),
    config.rooms,
  );
  metrics.track(rooms.all.map((room) => room.name));
  const closeStores = () => Promise.allSettled([...rooms.all.map((room) => room.store.close()), admissionRedis && closeRedis(admissionRedis)]);
  // No UPSTREAM: the demo shop, on a loopback port of its own, is the origin.
  // The shop is told where the waiting room's script is, as a site is by its operator.
  const demo = config.gateway.upstream
    ? undefined
    : await startDemoOrigin({ host: '127.0.0.1', port: 0, logLevel: config.logLevel, waitingRoomScript: `/assets/${ELEMENTS_ENTRY}` });
  const upstream = config.gateway.upstream ?? (demo as { url: string }).url;
  let port = config.port;
  let publishSample: ReturnType<typeof consolePublisher> | undefined;
  const sampler = new Sampler({
    rooms: rooms.all,
    clock,
    log: app.log,
    counts: () => metrics.instanceCounts(),
    publish: (sample) => publishSample?.(sample) ?? Promise.resolve(),
    admission: (room) => consoleStateOf(room.admission.view()),
  });
  registerRoutes(app, { config, rooms, clock, page, fanout, errors, metrics, sampler, port: () => port, answerBudget: options.answerBudget }, upstream);
  const realtime = config.pusher.embedded
    ? new RealtimeServer({
        ...config.realtime,
        app: config.pusher,
        fanout,
        log: app.log,
        onDelivered: options.onDelivered,
        // A page keeps the largest `served` it heard: a move still on its way is worth nothing once a newer one is out.
        latestOf: (message) => (message.channel === CHANNELS.queue && message.event === CHANNELS.movedEvent ? 'QueueMoved' : undefined),
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
    await Promise.allSettled([app.close(), closeStores(), fanout.close(), demo?.close()]);
    throw error;
  }
  config.rooms.forEach((room, i) => {
    if (saved[i] && config.stateFile) forgetStateFile(stateFileOf(config.stateFile, room, i === 0));
  });
  const address = app.server.address() as AddressInfo;
  port = address.port;
  const ownHost = reachableHost(address);
  const ownUrlHost = ownHost.includes(':') ? `[${ownHost}]` : ownHost;
  const publisher = options.publisher ?? (config.pusher.embedded ? fanoutPublisher(fanout) : pusherPublisher(pusherOptions(config.pusher)));
  // The operator's limits a previous run (or another instance) left in the store, and the events
  // (those the configuration declares put there the first time), before the first visitor.
  await Promise.all(
    rooms.all.map(async (room) => {
      await onceAvailable(() => room.releases.followLimits()).catch((error: unknown) => app.log.warn({ err: error }, 'limits not read'));
      const declared = config.events.filter((event) => event.room === room.name).map(({ room: _room, ...event }) => event);
      await onceAvailable(() => room.events.declare(declared).then(() => room.events.step())).catch((error: unknown) =>
        app.log.warn({ err: error, room: room.name }, 'events not read'),
      );
    }),
  );
  const loops = rooms.all.map((room) => {
    room.releases.usePublisher(publisher);
    room.events.useAnnouncer(publisher);
    return startReleaseLoop(room.releases, clock, config.releaseIntervalMs, app.log, room.events);
  });
  publishSample = consolePublisher(config.pusher, fanout, pusherOptions(config.pusher));
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
        await Promise.allSettled([closeStores(), fanout.close(), demo?.close()]);
        // Last, once nothing can change the lines any more; a file that fails leaves the others written.
        const failures: string[] = [];
        rooms.all.forEach((room, i) => {
          const file = config.stateFile && stateFileOf(config.stateFile, config.rooms[i], room.primary);
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
