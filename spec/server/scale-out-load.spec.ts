import PusherServer from 'pusher';
import type Pusher from 'pusher-js';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { RedisStore } from '../../server/store/redis/redis-store';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { adminRelease, SHARED_SECRETS, setPaused, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor } from './support/visitor';

jest.setTimeout(60_000);

const VISITORS = 200;
const CLIENTS = 20;
const ADMIN_CALLS_PER_INSTANCE = 4;
const ADMIN_COUNT = 15;

/** Runs `work` on every item, at most `width` at a time, keeping the order of the results. */
async function inParallel<T, R>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

interface Waiting {
  readonly visitor: Visitor;
  readonly page: PageConfigJson;
  /** Where it was held (and sends queue_request). */
  readonly heldOn: Instance;
  /** Its place in line when held: its ticket, as nobody had been released yet. */
  readonly ticket: number;
  released: unknown[];
  sentinels: unknown[];
}

/** What one pass over the whole line saw, from the last ticket to the first. */
interface Sweep {
  readonly positions: Array<{ ticket: number; position: number }>;
}

/**
 * Many visitors held at once across two instances, released by both release loops and by
 * admin releases on both at the same time, each hearing its release over a pusher-js client
 * connected to one instance or the other.
 */
describe('scale-out: many concurrent holds and releases on two instances', () => {
  let redis: RedisServer;
  let first: Instance;
  let second: Instance;
  let seedStore: RedisStore;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    // Each of the CLIENTS sockets listens on VISITORS / CLIENTS visitors' channels, past the page's default of 4.
    const env = {
      REDIS_URL: redis.url,
      ACTIVE_LIMIT: '1000',
      RELEASE_PER_MINUTE: '600',
      REALTIME_MAX_SUBSCRIPTIONS: String(VISITORS / CLIENTS),
    };
    [first, second] = await Promise.all([startInstance(env), startInstance(env)]);
    seedStore = new RedisStore(redis.url);
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await seedStore?.close();
    await stopAllServerProcesses();
    await redis?.close();
  });

  it('should give every visitor one ticket, and release each exactly once, in ticket order, with no one lost', async () => {
    const instances = [first, second];
    await setPaused(first, true);
    // With room for a thousand, nobody would wait: one visitor already in line (held through
    // the store, as any instance holds) makes everyone after it wait.
    await seedStore.hold('seed-session', 0, { method: 'GET', uri: '/checkout?item=seed' }, Date.now());

    const waiting: Waiting[] = await inParallel(Array.from({ length: VISITORS }), 40, async (_, index) => {
      const heldOn = instances[index % 2];
      const visitor = new Visitor(heldOn.url);
      const page = await visitor.hold(`/checkout?item=${index}`);
      return { visitor, page, heldOn, ticket: page.queue.position, released: [], sentinels: [] };
    });
    const byTicket = [...waiting].sort((a, b) => a.ticket - b.ticket);

    // Unique, gapless tickets after the seed's, whichever instance held whom.
    expect(new Set(waiting.map((w) => w.page.queue.uuid)).size).toBe(VISITORS);
    expect(byTicket.map((w) => w.ticket)).toEqual(Array.from({ length: VISITORS }, (_, i) => i + 2));

    // Half the clients on each instance; visitor i listens on client i % CLIENTS, so that many
    // hear their release through the instance they were not held on.
    for (let i = 0; i < CLIENTS; i++) clients.push(await connectPusher(instances[i < CLIENTS / 2 ? 0 : 1]));
    await inParallel(waiting, 40, async (w, index) => {
      const client = clients[index % CLIENTS];
      const { channel, error } = await subscribe(client, `App.Client.${w.page.queue.uuid}`);
      if (error) throw new Error(`Subscription refused: ${JSON.stringify(error)}`);
      w.released = record(channel, 'RequestUnqueud');
      w.sentinels = record(channel, 'sentinel');
      const asked = await w.visitor.queueRequest(w.page);
      if (asked.json?.state !== 'waiting') throw new Error(`queue_request answered ${asked.status}: ${asked.text}`);
    });

    // Go: both release loops, and admin releases on both instances at the same moment.
    await setPaused(second, false);
    const adminBatches = Promise.all(Array.from({ length: ADMIN_CALLS_PER_INSTANCE * 2 }, (_, i) => adminRelease(instances[i % 2], ADMIN_COUNT)));
    const lookers = instances.map((instance) => new Visitor(instance.url));
    const sweeps: Sweep[] = [];
    for (let done = false; !done;) {
      // From the last ticket to the first, alternating instances: releases only ever move the
      // head forward, so a pass that sees someone released must see everyone before released.
      const positions = [];
      for (const [index, w] of [...byTicket].reverse().entries()) {
        const answer = await lookers[index % 2]?.queueInfo(w.page.queue.uuid);
        if (answer?.status !== 200) throw new Error(`queue_info answered ${answer?.status}: ${answer?.text}`);
        positions.push({ ticket: w.ticket, position: answer.json.position as number });
      }
      sweeps.push({ positions });
      done = positions.every((p) => p.position === 0);
      if (sweeps.length > 200) throw new Error('The line did not empty after 200 passes.');
    }
    const batches = await adminBatches;

    await eventually(
      'every release event',
      async () => waiting.filter((w) => w.released.length === 0).length,
      (n) => n === 0,
      20_000,
    );
    const stats = (await (await second.admin('GET', 'stats')).json()) as Record<string, unknown>;
    expect(stats).toMatchObject({ waiting: 0, released: VISITORS + 1, paused: false });

    // Everything published before this marker reaches each subscriber before it: once every
    // channel has both markers, any second release event would already be there.
    for (const instance of instances) {
      const trigger = new PusherServer({
        appId: 'waiting-room',
        key: 'waiting-room-key',
        secret: SHARED_SECRETS.PUSHER_SECRET,
        host: '127.0.0.1',
        port: String(instance.port),
      });
      for (let i = 0; i < VISITORS; i += 100) {
        const channels = waiting.slice(i, i + 100).map((w) => `App.Client.${w.page.queue.uuid}`);
        await trigger.trigger(channels, 'sentinel', { from: instance.url });
      }
    }
    await eventually(
      'both markers on every channel',
      async () => waiting.filter((w) => w.sentinels.length < 2).length,
      (n) => n === 0,
      20_000,
    );

    // Exactly once each.
    for (const w of waiting) expect(w.released).toEqual([{ uuid: w.page.queue.uuid }]);

    // Each admin release took the next visitors in ticket order, and no one twice.
    const ticketOf = new Map(waiting.map((w) => [w.page.queue.uuid, w.ticket]));
    const adminReleased = batches.flat();
    expect(new Set(adminReleased).size).toBe(adminReleased.length);
    expect(adminReleased.length).toBe(ADMIN_CALLS_PER_INSTANCE * 2 * ADMIN_COUNT);
    for (const batch of batches) {
      const tickets = batch.map((uuid) => ticketOf.get(uuid) ?? 1);
      expect(tickets).toEqual(tickets.map((_, i) => tickets[0] + i));
    }

    // In every pass, the released are a prefix of the line and the others' positions are
    // their tickets less the visitors served so far, which only grows.
    for (const { positions } of sweeps) {
      let served = 0;
      let sawReleased = false;
      for (const { ticket, position } of positions) {
        if (position === 0) sawReleased = true;
        else {
          expect(sawReleased).toBe(false);
          expect(ticket - position).toBeGreaterThanOrEqual(served);
          served = ticket - position;
        }
      }
    }
    // Not a vacuous check: some passes saw the line part released.
    const mixed = sweeps.filter(({ positions }) => positions.some((p) => p.position === 0) && positions.some((p) => p.position > 0));
    expect(mixed.length).toBeGreaterThan(0);
  });
});
