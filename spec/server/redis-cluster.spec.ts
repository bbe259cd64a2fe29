import Redis from 'ioredis';
import type Pusher from 'pusher-js';
import type { RedisTarget } from '../../server/redis/connection';
import { roomPrefix } from '../../server/redis/target';
import { RedisFanout } from '../../server/realtime/redis-fanout';
import type { ChannelMessage } from '../../server/realtime/fanout';
import { RedisStore } from '../../server/store/redis/redis-store';
import { PartedLine } from '../../server/store/redis/parted-line';
import { partPrefix } from '../../server/store/redis/parts';
import { partOf } from '../../server/domain/lanes';
import { eventually } from '../support/eventually';
import { startRedisCluster, type RedisCluster } from '../support/redis-topologies';
import { adminRelease, sameBrowserOn, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { connectPusher, record, subscribe } from './support/realtime';
import { describeQueueStore } from './store-contract';
import { describeHandoffStore } from './store-handoff-contract';
import { describeEventStore } from './store-events-contract';
import { describeReportStore } from './store-report-contract';
import { describePartedLine } from './parted-line-contract';
import { expectLineKeptAfterFailover } from './support/failover';
import { Visitor } from './support/visitor';

jest.setTimeout(120_000);

/** The room the gateways run (the default one) and the prefix its keys take on a Cluster. */
const PREFIX = 'wr:{default}:';

/** One command to one node, on a connection of its own. */
async function on(port: number, ...command: string[]): Promise<unknown> {
  const client = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 0, lazyConnect: true });
  client.on('error', () => undefined);
  try {
    return await client.call(command[0], ...command.slice(1));
  } finally {
    client.disconnect();
  }
}

let cluster: RedisCluster;
let origin: TestOrigin;
const clients: Pusher[] = [];
const stores: (RedisStore | PartedLine)[] = [];
let rooms = 0;
beforeAll(async () => {
  [cluster, origin] = await Promise.all([startRedisCluster(), startTestOrigin()]);
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((store) => store.close()));
});
afterAll(async () => {
  for (const client of clients.splice(0)) client.disconnect();
  await stopAllServerProcesses();
  await Promise.all([cluster?.close(), origin?.close()]);
});

const clusterNodes = () => cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port }));
const clusterTarget = (): RedisTarget => ({ kind: 'cluster', nodes: clusterNodes(), tls: false });

/** A store of a room of its own on the Cluster, with the prefix the server gives it there. */
function clusterStore(): RedisStore {
  const store = new RedisStore(clusterTarget(), { prefix: roomPrefix({ name: `room${++rooms}`, primary: true }, true) });
  stores.push(store);
  return store;
}

/** The entry key of place `uuid` of room `drop` split in three parts on the Cluster. */
const partKeyOf = (uuid: string) => `${partPrefix(roomPrefix({ name: 'drop', primary: true }, true), partOf(uuid, 3), 3)}e:${uuid}`;

/** Room `room`'s line split in three parts on the Cluster, under the prefix the server gives the room there. */
function partedLine(room: string): PartedLine {
  const line = new PartedLine(clusterTarget(), 3, { prefix: roomPrefix({ name: room, primary: true }, true) });
  stores.push(line);
  return line;
}

// Every script, on a Cluster: each names keys of one slot only, or Redis would refuse it.
describeQueueStore('redis cluster', async () => clusterStore());
describeEventStore('redis cluster', async () => clusterStore());
describeReportStore('redis cluster', async () => clusterStore());
describeHandoffStore('redis cluster', async () => clusterStore());
describePartedLine('on a Cluster of three primaries', partedLine);

describe("one room's line split across the shards", () => {
  it('should keep each part on a primary of its own, and each part’s keys in its slot', async () => {
    const line = partedLine('spread');
    const held = await Promise.all(Array.from({ length: 12 }, (_, i) => line.hold(`spread-${i}`, 0, { method: 'GET', uri: '/checkout' }, 1_800_000_000_000)));
    const admin = new Redis.Cluster(clusterNodes());
    try {
      await admin.ping();
      const keys = line.parts.map((part) => `${part.prefix}waiting`);
      const owners = await Promise.all(keys.map(async (key) => (admin.slots[Number(await admin.cluster('KEYSLOT', key))] ?? [])[0]));
      expect(new Set(owners).size).toBe(3);
      const waiting = await Promise.all(keys.map((key) => admin.zcard(key)));
      expect(waiting.reduce((sum, count) => sum + count, 0)).toBe(held.length);
      expect(waiting.every((count) => count > 0)).toBe(true);
    } finally {
      admin.disconnect();
    }
  });
});

describe('the fan-out of several rooms on a Cluster', () => {
  it("should carry each room's messages on its own shard to the other instances", async () => {
    // Two rooms whose hash tags are served by different primaries.
    const byPrimary = new Map<number, string>();
    for (const name of ['north', 'south', 'east', 'west', 'centre', 'harbour', 'market', 'station']) {
      const { port } = await cluster.primaryOf(roomPrefix({ name, primary: false }, true));
      if (!byPrimary.has(port)) byPrimary.set(port, name);
      if (byPrimary.size === 2) break;
    }
    const [[firstPort, first], [secondPort, second]] = [...byPrimary];
    const roomPrefixes = new Map([first, second].map((name) => [name, roomPrefix({ name, primary: false }, true)]));
    const target: RedisTarget = { kind: 'cluster', nodes: cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })), tls: false };
    const [one, two] = [0, 1].map(() => new RedisFanout(target, { prefix: roomPrefixes.get(first), roomPrefixes }));
    // What each shard itself carries, heard on its own primary.
    const heard = new Map<string, string[]>([
      [first, []],
      [second, []],
    ]);
    const watchers = [
      [firstPort, first],
      [secondPort, second],
    ].map(([port, name]) => {
      const watcher = new Redis({ port: Number(port), host: '127.0.0.1' });
      watcher.on('smessage', (_channel: string, text: string) => heard.get(String(name))?.push(text));
      return { watcher, subscribed: watcher.ssubscribe(`${roomPrefixes.get(String(name))}fanout`) };
    });
    try {
      const received: ChannelMessage[] = [];
      two.onMessage((message) => received.push(message));
      await Promise.all([one.ready(10_000), two.ready(10_000), ...watchers.map(({ subscribed }) => subscribed)]);

      await one.publish({ channel: `App.Queue.${second}`, event: 'QueueMoved', data: '{"served":1}', room: second });

      await eventually(
        'the other instance',
        async () => received.length,
        (count) => count === 1,
        10_000,
      );
      expect(received[0]).toMatchObject({ channel: `App.Queue.${second}`, data: '{"served":1}' });
      // The watcher has its own connection to the shard: the message may reach it after the instance.
      await eventually(
        'the second shard to carry it',
        async () => heard.get(second)!.length,
        (count) => count === 1,
        10_000,
      );
      expect(heard.get(first)).toHaveLength(0);
    } finally {
      watchers.forEach(({ watcher }) => watcher.disconnect());
      await Promise.all([one.close(), two.close()]);
    }
  });
});

describe('REDIS_REPLAY_REPLICAS on a Cluster', () => {
  it("should wait for a replica of the line's own shard before a replay goes out", async () => {
    const prefix = roomPrefix({ name: 'acknowledged', primary: true }, true);
    const target: RedisTarget = { kind: 'cluster', nodes: cluster.nodes.map(({ port }) => ({ host: '127.0.0.1', port })), tls: false };
    const store = new RedisStore(target, { prefix, replayReplicas: 1, localLine: false });
    stores.push(store);
    const held = { method: 'GET', uri: '/checkout' };
    const policy = { activeLimit: 10, sessionMs: 300_000, perMinute: 0, abandonMs: 300_000 };
    // The shard's replica in sync first (a new cluster's replicas start theirs after a few seconds).
    await cluster.readyForFailover(prefix);
    const [a, b] = [await store.hold('a', 0, held, Date.now()), await store.hold('b', 0, held, Date.now())];
    await store.release(2, Date.now(), policy);
    // A replay refused while the shard's replica has not acknowledged it (a busy machine can hold
    // it past the store's 250 ms) is given back, and taken on a next try, as a page retries.
    const takenOnAcknowledgement = (what: string, uuid: string, session: string) =>
      eventually(
        what,
        () => store.takeHeld(uuid, session),
        () => true,
        20_000,
        200,
      );
    expect(await takenOnAcknowledgement('the replica acknowledging', a.uuid, 'a')).toEqual(held);
    expect(await store.takeHeld(a.uuid, 'a')).toBeUndefined();

    // The shard's own replica frozen: the other shards' replicas, healthy, must not count.
    const primary = await cluster.readyForFailover(prefix);
    const [, , replicas] = (await on(primary.port, 'ROLE')) as [string, number, [string, string, string][]];
    const replica = cluster.nodes.find((node) => replicas.some(([, port]) => Number(port) === node.port));
    expect(replica).toBeDefined();
    replica!.pause();
    try {
      await expect(store.takeHeld(b.uuid, 'b')).rejects.toThrow(/No replica acknowledged/);
    } finally {
      replica!.resume();
    }
    expect(await takenOnAcknowledgement('the replica back', b.uuid, 'b')).toEqual(held);
    expect(await store.takeHeld(b.uuid, 'b')).toBeUndefined();
  });
});

describe('two gateways running a room split in three parts on a Cluster', () => {
  it('should spread its places over three primaries, tell positions over the parts, move a place ahead with a code, release the earliest once each, and keep a place through sign-in', async () => {
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes.map(({ port }) => `127.0.0.1:${port}`).join(','),
      ROOMS: JSON.stringify([{ name: 'drop', protect: ['/drop'], parts: 3 }]),
      ACTIVE_LIMIT: '1',
      RELEASE_PER_MINUTE: '0',
      UPSTREAM: origin.url,
    };
    const gateways: Instance[] = await Promise.all([startInstance(env), startInstance(env)]);
    // The parts together admit one at once: whoever comes first with nobody ahead in its part, once.
    const arrivals: { visitor: Visitor; page?: Awaited<ReturnType<Visitor['hold']>> }[] = [];
    for (let i = 0; i < 12; i++) {
      const visitor = new Visitor(gateways[i % 2].url);
      const answer = await visitor.send('POST', `/drop?item=${i}`, { form: { item: String(i) } });
      arrivals.push({ visitor, page: answer.page });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const held = arrivals.filter((arrival) => arrival.page !== undefined) as { visitor: Visitor; page: Awaited<ReturnType<Visitor['hold']>> }[];
    expect(held.length).toBeGreaterThanOrEqual(11);

    const positions = async () =>
      Promise.all(held.map(async ({ page }) => ((await new Visitor(gateways[1].url).queueInfo(page.queue.uuid)).json as { position: number }).position));
    expect(await positions()).toEqual(held.map((_, rank) => rank + 1));
    const admin = new Redis.Cluster(clusterNodes());
    try {
      await admin.ping();
      const owners = new Set<string>();
      for (const { page } of held) owners.add((admin.slots[Number(await admin.cluster('KEYSLOT', partKeyOf(page.queue.uuid)))] ?? [])[0]);
      expect(owners.size).toBe(3);
    } finally {
      admin.disconnect();
    }

    // Signed in while waiting: a new session id in the old one's lane keeps the place in its part.
    const before = held[3].visitor.cookie;
    await held[3].visitor.signIn('ada');
    expect(held[3].visitor.cookie).not.toBe(before);
    expect(((await held[3].visitor.queueInfo(held[3].page.queue.uuid)).json as { position: number }).position).toBe(4);

    // A priority code issued on one gateway, used on the other: the last place goes ahead of the
    // whole room, whatever its part; everyone it passed moves back one.
    const [code] = ((await (await gateways[0].admin('POST', 'codes', { count: 1, room: 'drop' })).json()) as { codes: string[] }).codes;
    const last = held[held.length - 1];
    const onOther = sameBrowserOn(last.visitor, gateways[1]);
    const used = await onOther.post('/queue/code?room=drop', { json: { _token: last.page.csrfToken, code } });
    expect(used.json).toEqual({ position: 1, ahead: false });
    expect(await positions()).toEqual(held.map((_, rank) => (rank === held.length - 1 ? 1 : rank + 2)));

    const released = await adminRelease(gateways[0], 2, false, 'drop');
    const first = [last, held[0]];
    expect(released).toEqual(first.map(({ page }) => page.queue.uuid));
    // The other gateway's copies of the parts hear of the release within their reads' spacing.
    const after = held.map((_, rank) => (rank === 0 || rank === held.length - 1 ? 0 : rank));
    expect(await eventually('the release heard on the other gateway', positions, (told) => told.every((position, i) => position === after[i]), 5000)).toEqual(
      after,
    );
    for (const { visitor, page } of first) {
      const replay = () => visitor.post(page.queue.uri, { form: { uuid: page.queue.uuid, _token: page.csrfToken } });
      expect((await replay()).status).toBe(200);
      expect((await replay()).status).not.toBe(200);
    }
    expect(origin.at('/drop').filter((one) => one.method === 'POST')).toHaveLength(12 - held.length + 2);
    expect(await (await gateways[1].admin('GET', 'stats?room=drop')).json()).toMatchObject({ codes: { issued: 1, used: 1 } });
  });
});

describe('two gateways on a Redis Cluster of three primaries and three replicas', () => {
  it("should keep a room's keys and channel on one shard, and the line through a failover of that shard", async () => {
    const env = {
      REDIS_CLUSTER_NODES: cluster.nodes
        .slice(0, 3)
        .map(({ port }) => `127.0.0.1:${port}`)
        .join(','),
      ACTIVE_LIMIT: '1',
      RELEASE_PER_MINUTE: '0',
      UPSTREAM: origin.url,
    };
    const [one, two]: Instance[] = await Promise.all([startInstance(env), startInstance(env)]);
    await new Visitor(one.url).get('/checkout');
    const ada = new Visitor(one.url);
    const adaPage = await ada.hold('/checkout?item=1', { form: { quantity: '2' } });
    const bob = new Visitor(two.url);
    const bobPage = await bob.hold('/checkout?item=2');
    // Said once it listens.
    expect(one.process.output()).toContain('Queue in Redis Cluster');
    const listening = await connectPusher(two);
    clients.push(listening);
    const received = record((await subscribe(listening, `App.Client.${adaPage.queue.uuid}`)).channel, 'RequestUnqueud');

    // Every key of the room, the per-visitor ones its scripts name included, is on the shard of its tag.
    const shard = await cluster.primaryOf(PREFIX);
    const pattern = 'wr:\\{default\\}:*';
    expect(await on(shard.port, 'KEYS', pattern)).toContain(`${PREFIX}e:${adaPage.queue.uuid}`);
    // Replication is asynchronous: wait until the shard's replica has what its primary holds.
    expect(await on(shard.port, 'WAIT', '1', '5000')).toBe(1);
    const holding = [];
    for (const node of cluster.nodes) if (((await on(node.port, 'KEYS', pattern)) as string[]).length > 0) holding.push(node);
    // The shard's primary and its replica only.
    expect(holding).toHaveLength(2);
    expect(holding).toContain(shard);
    // Both gateways listen on the room's sharded channel, on that shard.
    expect(await on(shard.port, 'PUBSUB', 'SHARDNUMSUB', `${PREFIX}fanout`)).toEqual([`${PREFIX}fanout`, 2]);

    await cluster.inSync(shard);
    await shard.kill();
    await eventually(
      'a replica promoted for the room’s slot',
      () => cluster.primaryOf(PREFIX),
      (primary) => primary !== shard,
      30_000,
    );

    await expectLineKeptAfterFailover({ one, two, ada, adaPage, bob, bobPage, received });
    const replay = await ada.post(adaPage.queue.uri, { form: { uuid: adaPage.queue.uuid, _token: adaPage.csrfToken } });
    expect(replay.status).toBe(200);
    expect(origin.at('/checkout').filter((one) => one.method === 'POST')).toHaveLength(1);
  });
});
