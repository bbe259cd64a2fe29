import type Pusher from 'pusher-js';
import type { PageConfigJson, RoomMessageJson } from '@waiting-room/streams/contract';
import { CODE_GUESSES } from '../../server/domain/codes';
import { eventually } from '../support/eventually';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { sameBrowserOn, startInstance, type Instance } from '../support/scale-out';
import { stopAllServerProcesses } from '../support/server-process';
import { startTestOrigin, type TestOrigin } from './support/origin';
import { connectPusher, record, subscribe } from './support/realtime';
import { Visitor, type Answer } from './support/visitor';

jest.setTimeout(30_000);

/** How long a place released while its visitor is away is kept for the replay, in the room `away`. */
const CLAIM_SECONDS = 4;
/** How long a silent place is kept, in the room `gone`. */
const AWAY_SECONDS = 2;

/**
 * One room for each feature, so that each test has a line of its own: its positions and its
 * releases are nobody else's. Each admits one session, which a filler takes, and releases
 * nobody by itself: only the admin API releases, on the instance a test names.
 */
const ROOMS = [
  { name: 'message', protect: ['/checkout-message'] },
  { name: 'handoff', protect: ['/checkout-handoff'] },
  { name: 'codes', protect: ['/checkout-codes'] },
  { name: 'away', protect: ['/checkout-away'], claimSeconds: CLAIM_SECONDS },
  { name: 'gone', protect: ['/checkout-gone'], awaySeconds: AWAY_SECONDS },
].map((room) => ({ ...room, activeLimit: 1, releasePerMinute: 0 }));

const FORM = 'application/x-www-form-urlencoded';

/** A page's room query (`?room=…`, or nothing for the first room), as its routes carry it. */
const roomQuery = (page: PageConfigJson) => /\?.*$/.exec(page.routes.queue_request)?.[0] ?? '';

/** queue_info for `page`'s place, in its room, through `visitor`'s instance. */
const queueInfo = (visitor: Visitor, page: PageConfigJson, uuid = page.queue.uuid): Promise<Answer> =>
  visitor.get(page.routes.queue_info.replace('{uuid}', uuid));

/** The hidden form the page submits to replay a held POST (the specification's section 4). */
const replayForm = (page: PageConfigJson) => ({ form: { uuid: page.queue.uuid, _token: page.csrfToken } });
/** The bodies of the POSTs `origin` was sent at `path`. */
const postsAt = (origin: TestOrigin, path: string) =>
  origin
    .at(path)
    .filter((one) => one.method === 'POST')
    .map((one) => one.body.toString());

/** An admin call's status and JSON. */
async function adminCall(instance: Instance, method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown) {
  const answer = await instance.admin(method, route, body);
  return { status: answer.status, json: await answer.json() };
}

/** The uuids an admin release of `count` in `room` on `instance` released. */
async function release(instance: Instance, room: string, count: number): Promise<string[]> {
  const { status, json } = await adminCall(instance, 'POST', 'release', { count, room });
  expect(status).toBe(200);
  return json.released as string[];
}

/**
 * Two server processes (`a` and `b`) on one redis-server, in front of one test origin: what a
 * visitor does with their place on one instance holds on the other. Neither releases by itself.
 */
describe('scale-out: a visitor keeps their place across instances', () => {
  let redis: RedisServer;
  let origin: TestOrigin;
  let a: Instance;
  let b: Instance;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    [redis, origin] = await Promise.all([startRedisServer(), startTestOrigin()]);
    const env = { REDIS_URL: redis.url, UPSTREAM: origin.url, ROOMS: JSON.stringify(ROOMS) };
    [a, b] = await Promise.all([startInstance(env), startInstance(env)]);
    // Every room is full from now on: whoever comes next waits.
    for (const { protect } of ROOMS) expect((await new Visitor(a.url).get(protect[0])).page).toBeUndefined();
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await stopAllServerProcesses();
    await Promise.all([redis?.close(), origin?.close()]);
  });

  /** A pusher-js client connected to `instance`'s embedded realtime server, subscribed to `channel`, recording `event`. */
  const listen = async (instance: Instance, channel: string, event: string): Promise<unknown[]> => {
    const client = await connectPusher(instance);
    clients.push(client);
    const subscribed = await subscribe(client, channel);
    expect(subscribed.error).toBeUndefined();
    return record(subscribed.channel, event);
  };

  it("should push the operator's message set on one instance to the pages of the other, and clear it from either", async () => {
    const ada = new Visitor(a.url);
    const page = await ada.hold('/checkout-message?item=1');
    const bob = new Visitor(b.url);
    const bobs = await bob.hold('/checkout-message?item=2');
    const [heardOnA, heardOnB] = await Promise.all([listen(a, 'App.Queue', 'QueueMessage'), listen(b, 'App.Queue', 'QueueMessage')]);

    const set = await adminCall(b, 'PUT', 'message', { text: 'Doors open at 10.' });

    expect(set).toEqual({ status: 200, json: { version: expect.any(Number), text: 'Doors open at 10.' } });
    await eventually(
      'QueueMessage on a page connected to the other instance',
      async () => heardOnA.length,
      (n) => n > 0,
      1500,
    );
    expect(heardOnA).toEqual([set.json]);
    // The other instance reads the store again at most a second after it last did.
    const told = (answer: Answer) => (answer.json as { message?: RoomMessageJson } | undefined)?.message;
    await eventually(
      'the message in queue_info on the other instance',
      async () => told(await queueInfo(ada, page)),
      (m) => m?.version === set.json.version,
      3000,
    );
    expect(told(await queueInfo(ada, page))).toEqual(set.json);
    expect((await new Visitor(a.url).hold('/checkout-message?item=3')).message).toEqual(set.json);
    const api = await new Visitor(a.url).get('/checkout-message?item=4', { accept: 'application/json' });
    expect(api.status).toBe(503);
    expect((api.json as PageConfigJson).message).toEqual(set.json);

    const cleared = await adminCall(a, 'DELETE', 'message');

    expect(cleared.status).toBe(200);
    expect(cleared.json).toEqual({ version: expect.any(Number) });
    expect(cleared.json.version).toBeGreaterThan(set.json.version);
    await eventually(
      'the clearing on a page connected to the other instance',
      async () => heardOnB.length,
      (n) => n > 1,
      1500,
    );
    expect(heardOnB).toEqual([set.json, cleared.json]);
    await eventually(
      'the clearing in queue_info on the other instance',
      async () => told(await queueInfo(bob, bobs)),
      (m) => m?.version === cleared.json.version,
      3000,
    );
    expect(told(await queueInfo(bob, bobs))).toEqual(cleared.json);
    expect((await new Visitor(b.url).hold('/checkout-message?item=5')).message).toEqual(cleared.json);
    expect(await adminCall(b, 'GET', 'message')).toEqual({ status: 200, json: cleared.json });
  });

  it('should move a place with a link made on one instance and opened on the other, once, and tell the first browser through the first', async () => {
    const ahead = new Visitor(a.url);
    await ahead.hold('/checkout-handoff?item=1');
    const ada = new Visitor(a.url);
    const body = 'quantity=3&note=gift';
    const page = await ada.hold('/checkout-handoff?item=42', { raw: body, type: FORM });
    expect(page.queue.position).toBe(2);
    const told = await listen(a, `App.Client.${page.queue.uuid}`, 'PlaceHandedOff');

    const offered = await ada.post(page.handoff?.route ?? '', { json: { _token: page.csrfToken, uuid: page.queue.uuid } });
    expect(offered.status).toBe(200);
    const link = new URL(offered.json.url as string);
    expect(link.pathname).toMatch(/^\/queue\/handoff\/[A-Za-z0-9_-]{43}$/);
    expect(link.search).toBe('?room=handoff');

    // Another browser, with no cookie, opens the link on the other instance.
    const phone = new Visitor(b.url);
    const opened = await phone.get(link.pathname + link.search);
    expect(opened.status).toBe(303);
    const moved = await phone.get(opened.headers.get('location') ?? '');
    const there = moved.page as PageConfigJson;

    expect(moved.status).toBe(200);
    expect(there.queue).toEqual({ uuid: expect.any(String), uri: page.queue.uri, method: 'POST', position: 2 });
    expect(there.queue.uuid).not.toBe(page.queue.uuid);
    expect((await queueInfo(new Visitor(a.url), there)).json).toMatchObject({ position: 2 });
    await eventually(
      'PlaceHandedOff on the first browser’s channel, on the first instance',
      async () => told.length,
      (n) => n > 0,
      1500,
    );
    expect(told).toEqual([{ uuid: page.queue.uuid }]);
    // The first browser, asking either instance, learns that its place moved.
    for (const asking of [ada, sameBrowserOn(ada, b)]) {
      const asked = await queueInfo(asking, page);
      expect([asked.status, asked.json?.error?.code]).toEqual([410, 'place_moved']);
    }

    // Opened again, by a third browser on the first instance: nothing moves, and it says why.
    const again = await new Visitor(a.url).get(link.pathname + link.search, { accept: 'application/json' });
    expect([again.status, again.json?.error?.code]).toEqual([410, 'handoff_used']);
    expect((await queueInfo(phone, there)).json).toMatchObject({ position: 2 });

    // The release replays the held POST, body and all, on the browser that took the place; once.
    const released = await release(a, 'handoff', 2);
    expect(released).toHaveLength(2);
    expect(released).toContain(there.queue.uuid);
    expect(released).not.toContain(page.queue.uuid);
    const replay = await phone.post(there.queue.uri, replayForm(there));
    const twice = await sameBrowserOn(phone, a).post(there.queue.uri, replayForm(there));
    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<th>quantity</th><td>3</td>');
    expect([twice.status, twice.json?.error?.code]).toEqual([409, 'already_replayed']);
    expect(postsAt(origin, '/checkout-handoff')).toEqual([body]);
  });

  it('should move a place ahead with a code issued on one instance and entered on the other, once, and bound wrong codes across both', async () => {
    const waiting = [new Visitor(a.url), new Visitor(a.url), new Visitor(a.url)];
    const pages: PageConfigJson[] = [];
    for (const visitor of waiting) pages.push(await visitor.hold('/checkout-codes?item=1'));
    const [first, second, third] = waiting as [Visitor, Visitor, Visitor];
    const issued = await adminCall(a, 'POST', 'codes', { count: 2, room: 'codes' });
    expect(issued.status).toBe(200);
    const [code, spare] = issued.json.codes as [string, string];
    const enter = (visitor: Visitor, instance: Instance, page: PageConfigJson, typed: string) =>
      sameBrowserOn(visitor, instance).post(`/queue/code${roomQuery(page)}`, { json: { _token: page.csrfToken, code: typed } });
    const status = async (answer: Promise<Answer>) => {
      const { status: code, json } = await answer;
      return code === 200 ? 200 : `${code} ${json?.error?.code}`;
    };

    // The third in line enters the code on the second instance: first in line, read on the first.
    const moved = await enter(third, b, pages[2], code);
    expect([moved.status, moved.json]).toEqual([200, { position: 1, ahead: false }]);
    expect((await queueInfo(new Visitor(a.url), pages[2])).json).toMatchObject({ position: 1 });
    expect((await queueInfo(new Visitor(a.url), pages[0])).json).toMatchObject({ position: 2 });
    expect((await queueInfo(new Visitor(a.url), pages[1])).json).toMatchObject({ position: 3 });

    // The same code, entered again on the first instance, moves nothing: it is a wrong code now.
    expect(await status(enter(second, a, pages[1], code))).toBe('404 unknown_code');

    // Wrong codes of one place are counted in Redis, whichever instance they reach.
    for (let i = 1; i < CODE_GUESSES.perPlace; i++) {
      expect(await status(enter(second, i % 2 ? b : a, pages[1], 'AAAAA-AAAA2'))).toBe('404 unknown_code');
    }
    // Past the bound, even a good code is not checked, on either instance, and stays unused.
    expect(await status(enter(second, b, pages[1], spare))).toBe('429 too_many_codes');
    expect(await status(enter(second, a, pages[1], spare))).toBe('429 too_many_codes');
    const spent = await enter(first, b, pages[0], spare);
    expect([spent.status, spent.json]).toEqual([200, { position: 2, ahead: false }]);

    // So are those of one address (every visitor here is 127.0.0.1), across places and instances.
    const guessers = [new Visitor(a.url), new Visitor(b.url), new Visitor(a.url)];
    let wrong = CODE_GUESSES.perPlace;
    for (const guesser of guessers) {
      const held = await guesser.hold('/checkout-codes?item=2');
      for (let i = 0; i < CODE_GUESSES.perPlace && wrong < CODE_GUESSES.perAddress; i++, wrong++) {
        expect(await status(enter(guesser, wrong % 2 ? a : b, held, 'AAAAA-AAAA3'))).toBe('404 unknown_code');
      }
    }
    expect(wrong).toBe(CODE_GUESSES.perAddress);
    const fresh = new Visitor(b.url);
    const freshPage = await fresh.hold('/checkout-codes?item=3');
    expect(await status(enter(fresh, b, freshPage, 'AAAAA-AAAA4'))).toBe('429 too_many_codes');
    expect(await status(enter(fresh, a, freshPage, 'AAAAA-AAAA4'))).toBe('429 too_many_codes');
  });

  it('should keep the place of a visitor away from the first instance while the second releases, and replay it there once', async () => {
    const ahead = new Visitor(a.url);
    await ahead.hold('/checkout-away?item=1');
    const ada = new Visitor(a.url);
    const body = 'quantity=1&note=back';
    const page = await ada.hold('/checkout-away?item=42', { raw: body, type: FORM });
    const late = new Visitor(a.url);
    const latePage = await late.hold('/checkout-away?item=7');
    expect([page.queue.position, latePage.queue.position]).toEqual([2, 3]);

    // Ada is away: not a poll. The second instance releases the one ahead.
    expect(await release(b, 'away', 1)).toHaveLength(1);
    // Back through the second instance (a load balancer's choice): moved up meanwhile.
    const back = sameBrowserOn(ada, b);
    expect((await queueInfo(back, page)).json).toMatchObject({ position: 1 });

    // Away again, and released while away, with the one behind; back within the claim window.
    expect(await release(b, 'away', 2)).toEqual([page.queue.uuid, latePage.queue.uuid]);
    const releasedAt = Date.now();
    expect((await queueInfo(back, page)).json).toMatchObject({ position: 0 });
    const replay = await back.post(page.queue.uri, replayForm(page));
    const twice = await ada.post(page.queue.uri, replayForm(page));
    expect(Date.now() - releasedAt).toBeLessThan(CLAIM_SECONDS * 1000);

    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<th>note</th><td>back</td>');
    expect([twice.status, twice.json?.error?.code]).toEqual([409, 'already_replayed']);
    expect(postsAt(origin, '/checkout-away')).toEqual([body]);

    // The one behind comes back past the claim window: the place is gone, on either instance.
    await new Promise((resolve) => setTimeout(resolve, CLAIM_SECONDS * 1000 - (Date.now() - releasedAt)));
    const lost = await eventually(
      'the unclaimed place forgotten',
      async () => queueInfo(sameBrowserOn(late, b), latePage),
      (answer) => answer.status !== 200,
      5000,
    );
    expect([lost.status, lost.json?.error?.code]).toEqual([404, 'unknown_uuid']);
    expect((await queueInfo(late, latePage)).status).toBe(404);
    // Its admission still lasts SESSION_SECONDS from the release, claimed or not: its held GET, asked again, goes through.
    const again = await late.get(latePage.queue.uri);
    expect([again.status, again.page]).toEqual([200, undefined]);
    expect(again.text).toContain('<th>item</th><td>7</td>');
  });

  it('should give up a place silent on the first instance past the away time, while the one behind, polling the second, moves up', async () => {
    const gone = new Visitor(a.url);
    const gonePage = await gone.hold('/checkout-gone?item=1');
    const stays = new Visitor(b.url);
    const page = await stays.hold('/checkout-gone?item=2');
    expect(page.queue.position).toBe(2);

    // The page that stays polls, far more often than the away time; the other says nothing.
    const answer = await eventually(
      'the silent place given up',
      async () => (await queueInfo(stays, page)).json,
      (json) => json?.position === 1,
      AWAY_SECONDS * 1000 + 5000,
      200,
    );

    expect(answer).toMatchObject({ position: 1 });
    const lost = await queueInfo(gone, gonePage);
    expect([lost.status, lost.json?.error?.code]).toEqual([404, 'unknown_uuid']);
  });

  it('should have logged no warning or error on either instance', () => {
    expect(a.process.output()).not.toMatch(/"level":(40|50|60)/);
    expect(b.process.output()).not.toMatch(/"level":(40|50|60)/);
  });
});
