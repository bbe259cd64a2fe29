import type Pusher from 'pusher-js';
import type { PageConfigJson, RoomMessageJson } from '@waiting-room/streams/contract';
import { RedisFanout } from '../../server/realtime/redis-fanout';
import type { Started } from '../../server/process/start';
import { RedisStore } from '../../server/store/redis/redis-store';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { ManualClock } from './support/manual-clock';
import { connectPusher, record, subscribe } from './support/realtime';
import { startServer, waitFor } from './support/server';
import { Visitor } from './support/visitor';

jest.setTimeout(20_000);

const ROOMS = JSON.stringify([
  { name: 'checkout', protect: ['/checkout'], activeLimit: 1, releasePerMinute: 0 },
  { name: 'tokyo', protect: ['/tokyo'], activeLimit: 1, releasePerMinute: 0, locale: 'ja' },
]);

/** Calls `/admin/message` with the test token. */
async function message(server: Started, method: 'GET' | 'PUT' | 'DELETE', body?: unknown, query = ''): Promise<{ status: number; json: any }> {
  const answer = await fetch(`${server.url}/admin/message${query}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: answer.status, json: await answer.json() };
}

describe('the operator’s message', () => {
  let server: Started;
  const clients: Pusher[] = [];

  beforeEach(async () => {
    server = await startServer({ ROOMS }, { clock: new ManualClock() });
    // Fill both rooms, so that those who come next wait.
    await new Visitor(server.url).get('/checkout');
    await new Visitor(server.url).get('/tokyo');
  });
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server.close();
  });

  it('should be none until set, then in the config of every page held, in queue_info and in the held JSON', async () => {
    const waiting = new Visitor(server.url);
    const before = await waiting.hold();
    expect(before.message).toBeUndefined();
    expect((await message(server, 'GET')).json).toEqual({ version: 0 });
    expect((await waiting.queueInfo(before.queue.uuid)).json).not.toHaveProperty('message');

    const set = await message(server, 'PUT', { text: '  Doors open at 10: stay with us.  ', texts: { FR: 'Ouverture à 10 h.', en: 'Doors open at 10.' } });

    expect(set.status).toBe(200);
    const expected = {
      version: expect.any(Number),
      text: 'Doors open at 10: stay with us.',
      texts: { fr: 'Ouverture à 10 h.', en: 'Doors open at 10.' },
      locale: 'en',
    };
    expect(set.json).toEqual(expected);
    expect((await message(server, 'GET')).json).toEqual(set.json);
    expect((await new Visitor(server.url).hold()).message).toEqual(set.json);
    expect((await waiting.queueInfo(before.queue.uuid)).json).toEqual({ position: 1, estimated: expect.any(Number), ticket: 1, served: 0, message: set.json });
    const api = await new Visitor(server.url).get('/checkout', { accept: 'application/json' });
    expect(api.status).toBe(503);
    expect((api.json as PageConfigJson).message).toEqual(set.json);
  });

  it('should clear it with a larger version, which every answer carries', async () => {
    const set = await message(server, 'PUT', { text: 'Back soon' });
    const cleared = await message(server, 'DELETE');

    expect(cleared.status).toBe(200);
    expect(cleared.json).toEqual({ version: set.json.version + 1 });
    const visitor = new Visitor(server.url);
    const page = await visitor.hold();
    expect(page.message).toEqual(cleared.json);
    expect(((await visitor.queueInfo(page.queue.uuid)).json as { message: RoomMessageJson }).message).toEqual(cleared.json);
  });

  it('should push each change on the room’s line-wide channel, and on no other room’s', async () => {
    const client = await connectPusher(server);
    clients.push(client);
    const first = await subscribe(client, 'App.Queue');
    const tokyo = await subscribe(client, 'App.Queue.tokyo');
    const heardFirst = record(first.channel, 'QueueMessage');
    const heardTokyo = record(tokyo.channel, 'QueueMessage');

    const set = await message(server, 'PUT', { texts: { ja: '10時に開場します' } }, '?room=tokyo');
    await waitFor(() => heardTokyo.length === 1, 'the message pushed');
    expect(heardTokyo).toEqual([set.json]);
    expect(set.json).toEqual({ version: expect.any(Number), texts: { ja: '10時に開場します' }, locale: 'ja' });
    const cleared = await message(server, 'DELETE', { room: 'tokyo' });
    await waitFor(() => heardTokyo.length === 2, 'the clearing pushed');
    expect(heardTokyo).toEqual([set.json, cleared.json]);

    expect(heardFirst).toEqual([]);
    expect((await message(server, 'GET')).json).toEqual({ version: 0 });
  });

  it.each([
    [{}, 'bad_message', 'Send "text", or "texts"'],
    [{ text: '' }, 'bad_message', '"text" must be 1 to 500 characters'],
    [{ text: '   ' }, 'bad_message', '"text" must be 1 to 500 characters'],
    [{ text: 'x'.repeat(501) }, 'bad_message', '"text" must be 1 to 500 characters'],
    [{ text: 'Hello <b>there</b>' }, 'bad_message', 'without control characters or HTML tags'],
    [{ text: 'Bell\u0007' }, 'bad_message', 'without control characters or HTML tags'],
    [{ texts: { xx: 'Hi' } }, 'bad_message_language', '"xx" is not a language this server speaks'],
    [{ texts: { fr: 'Bonjour' } }, 'bad_message', "must have the room's language (en)"],
    [{ texts: ['en', 'Hi'] }, 'bad_message', '"texts" must map language tags'],
    [{ texts: { en: 'Hi' }, colour: 'red' }, 'bad_request', 'a field this route does not take: "colour"'],
    [{ text: 'Hi', room: 'nowhere' }, 'unknown_room', 'There is no room of this name.'],
  ])('should refuse %j with a clear error', async (body, code, why) => {
    const answer = await message(server, 'PUT', body);

    expect(answer.status).toBe(code === 'unknown_room' ? 404 : 400);
    expect(answer.json.error.code).toBe(code);
    expect(answer.json.error.message).toContain(why);
    expect((await message(server, 'GET')).json).toEqual({ version: 0 });
  });

  it('should refuse a message over 8 KB in all, and calls without the admin token', async () => {
    const texts = Object.fromEntries(['en', 'fr', 'de', 'es', 'it', 'ja', 'ko', 'ru', 'uk', 'el'].map((tag) => [tag, 'é'.repeat(500)]));
    const large = await message(server, 'PUT', { texts });
    const anonymous = await fetch(`${server.url}/admin/message`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: '{"text":"Hi"}' });

    expect(large.status).toBe(400);
    expect(large.json.error.message).toContain('over 8192 bytes');
    expect(anonymous.status).toBe(401);
    expect((await message(server, 'GET')).json).toEqual({ version: 0 });
  });
});

describe('the operator’s message across gateways on one Redis', () => {
  let redis: RedisServer;
  let first: Started;
  let second: Started;
  const clients: Pusher[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', SESSION_SECRET: 's'.repeat(32), PUSHER_SECRET: 'shared-secret' };
    const instance = () => ({ store: new RedisStore(redis.url, { prefix: 'said:' }), fanout: new RedisFanout(redis.url, { prefix: 'said:' }) });
    const one = instance();
    const two = instance();
    first = await startServer(env, one);
    second = await startServer(env, two);
    await Promise.all([one.fanout.ready(5000), two.fanout.ready(5000)]);
    await new Visitor(first.url).get('/checkout');
  });
  afterAll(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await first?.close();
    await second?.close();
    await redis?.close();
  });

  it('should reach the pages on the other gateway at once, and its answers within a second', async () => {
    const visitor = new Visitor(second.url);
    const page = await visitor.hold();
    const client = await connectPusher(second);
    clients.push(client);
    const heard = record((await subscribe(client, 'App.Queue')).channel, 'QueueMessage');

    const set = await message(first, 'PUT', { text: 'Restocking: ten minutes.' });

    await waitFor(() => heard.length === 1, 'the message pushed through the other gateway', 1000);
    expect(heard).toEqual([set.json]);
    // The other gateway reads the store again at most a second after it last did.
    await waitFor(async () => (await new Visitor(second.url).hold()).message?.version === set.json.version, 'the other gateway’s pages to carry it', 2000);
    expect(((await visitor.queueInfo(page.queue.uuid)).json as { message?: RoomMessageJson }).message).toEqual(set.json);

    const cleared = await message(second, 'DELETE');
    await waitFor(() => heard.length === 2, 'the clearing pushed', 1000);
    expect(heard).toEqual([set.json, cleared.json]);
    await waitFor(async () => (await message(first, 'GET')).json.version === cleared.json.version, 'the first gateway to read the clearing', 2000);
    expect(cleared.json.version).toBeGreaterThan(set.json.version);
  });
});
