import { eventually } from '../support/eventually';
import { command, startSentinelSet, type SentinelSet } from '../support/redis-topologies';
import { adminRelease, startInstance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { cutOffReplica, untilPromoted } from './support/lost-writes';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { Visitor } from './support/visitor';

/**
 * A release a failover undid (the replica promoted without it), seen from the visitors: the one
 * told of it is let in, once, and nobody behind moves back. With no release loop rate, nothing
 * but the gateway's memory of the release gives it again.
 */
jest.setTimeout(90_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a client of the Redis on `port` blocks on a stream: a gateway's copy of the line, loaded and following its log. */
const followed = async (port: number) => String(await command(port, 'CLIENT', 'LIST')).includes('cmd=xread');

let sentinels: SentinelSet;
let origin: TestOrigin;
beforeAll(async () => {
  [sentinels, origin] = await Promise.all([startSentinelSet(), startTestOrigin()]);
});
afterAll(async () => {
  await stopAllServerProcesses();
  await Promise.all([sentinels?.close(), origin?.close()]);
});

it('should let in once the visitor whose release a failover undid, and move nobody back', async () => {
  const gateway = await startInstance({
    REDIS_SENTINELS: sentinels.sentinels.map(({ host, port }) => `${host}:${port}`).join(','),
    REDIS_SENTINEL_NAME: sentinels.name,
    ACTIVE_LIMIT: '1',
    RELEASE_PER_MINUTE: '0',
    UPSTREAM: origin.url,
  });
  await new Visitor(gateway.url).get('/checkout');
  const ada = new Visitor(gateway.url);
  const adaPage = await ada.hold('/checkout?item=ada', { form: { item: 'ada' } });
  const bob = new Visitor(gateway.url);
  const bobPage = await bob.hold('/checkout?item=bob', { form: { item: 'bob' } });
  const bobAt = async () => ((await bob.queueInfo(bobPage.queue.uuid).catch(() => undefined))?.json as { position?: number } | undefined)?.position;
  expect(await bobAt()).toBe(2);
  // The gateway's copy of the line, made at the first poll, holds the line before the release.
  await eventually('the copy of the line following its log', () => followed(sentinels.primary.port), Boolean);
  await sentinels.inSync();

  await cutOffReplica(sentinels);
  expect(await adminRelease(gateway, 1)).toEqual([adaPage.queue.uuid]);
  await eventually('Bob moved up', bobAt, (position) => position === 1);
  // The gateway's copy of the line follows the log on a connection of its own.
  await pause(300);

  // Bob's every position, through the failover and after it.
  const told: number[] = [];
  let polling = true;
  const polls = (async () => {
    while (polling) {
      const position = await bobAt();
      if (position !== undefined) told.push(position);
      await pause(50);
    }
  })();
  try {
    await sentinels.primary.kill();
    sentinels.replica.resume();
    await untilPromoted(sentinels);
    const replay = await eventually(
      "Ada's replay answered by the promoted replica",
      () => ada.post(adaPage.queue.uri, { form: { uuid: adaPage.queue.uuid, _token: adaPage.csrfToken } }),
      (answer) => answer.status !== 503,
      20_000,
      100,
    );
    expect(replay.status).toBe(200);
  } finally {
    polling = false;
    await polls;
  }
  expect(origin.at('/checkout').filter((one) => one.method === 'POST' && one.url.includes('item=ada'))).toHaveLength(1);
  expect(told.length).toBeGreaterThan(0);
  expect(told.every((position) => position === 1)).toBe(true);
});
