import type Pusher from 'pusher-js';
import { CHANNELS, parsePageConfig, type PageConfigJson } from '@waiting-room/streams/contract';
import { CHALLENGE_LIFETIME_MS } from '../../server/domain/bot-check/challenge';
import type { Started } from '../../server/process/start';
import { eventually } from '../support/eventually';
import { solveAltcha } from '../support/solve-altcha';
import { ManualClock } from './support/manual-clock';
import { connectPusher, record, subscribe } from './support/realtime';
import { admin, startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

/** A program's held request: it prefers JSON, so it gets the 503 with the page config. */
const JSON_CLIENT = { accept: 'application/json' };

/** Holds `visitor` as a program does: the 503's config. */
async function holdJson(visitor: Visitor, path = '/checkout?item=42'): Promise<PageConfigJson> {
  const answer = await visitor.get(path, JSON_CLIENT);
  expect(answer.status).toBe(503);
  return answer.json as PageConfigJson;
}

/** queue_request as the page sends it, with the solution's payload. */
function queueRequest(visitor: Visitor, page: PageConfigJson, altcha?: string) {
  return visitor.post('/queue/request', {
    json: { _token: page.csrfToken, user_id: page.user.id, uuid: page.queue.uuid, ...(altcha !== undefined && { altcha }) },
  });
}

describe('bot check (BOT_CHALLENGE=pow)', () => {
  let server: Started;
  let clock: ManualClock;
  const pushers: Pusher[] = [];

  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock();
    server = await startServer({ BOT_CHALLENGE: 'pow', BOT_CHALLENGE_DIFFICULTY: '8', ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', ...env }, { clock });
    // The one admitted session: everyone after it is held.
    await new Visitor(server.url).get('/checkout');
  };
  afterEach(async () => {
    for (const pusher of pushers.splice(0)) pusher.disconnect();
    await server?.close();
  });

  it('should hand a held visitor a challenge in the page config and in the 503 JSON, the same object the page validates', async () => {
    await start();
    const browser = await new Visitor(server.url).hold();
    const program = await holdJson(new Visitor(server.url));

    for (const config of [browser, program]) {
      expect(config.altcha?.parameters).toMatchObject({ algorithm: 'SCRYPT', data: { place: config.queue.uuid, room: 'default' } });
      const parsed = parsePageConfig(config, server.url);
      expect(parsed.ok && parsed.config.altcha).toEqual(config.altcha);
    }
  });

  it('should keep a visitor who never solves out of the line: not waiting, pending in queue_info, no position 0 and no 404', async () => {
    await start();
    const bot = new Visitor(server.url);
    const page = await holdJson(bot);

    const info = await bot.queueInfo(page.queue.uuid);

    expect(info.status).toBe(202);
    expect(info.json).toEqual({ pending: true });
    expect(info.headers.get('cache-control')).toBe('no-store');
    expect(await stats(server)).toMatchObject({ waiting: 0, pending: 1, arrived: 0 });
    expect((await queueRequest(bot, page)).json).toEqual({ error: { code: 'altcha_required', message: expect.any(String) } });
    expect((await bot.queueInfo(page.queue.uuid)).status).toBe(202);
  });

  it('should let a solved place into the line at the back, behind places solved before it, however early it came', async () => {
    await start();
    const early = new Visitor(server.url);
    const earlyPage = await holdJson(early);
    const late = new Visitor(server.url);
    const latePage = await holdJson(late);

    const lateAnswer = await queueRequest(late, latePage, await solveAltcha(latePage.altcha!));
    const earlyAnswer = await queueRequest(early, earlyPage, await solveAltcha(earlyPage.altcha!));

    expect([lateAnswer.status, lateAnswer.json]).toEqual([202, { uuid: latePage.queue.uuid, state: 'waiting' }]);
    expect(earlyAnswer.json).toEqual({ uuid: earlyPage.queue.uuid, state: 'waiting' });
    expect((await late.queueInfo(latePage.queue.uuid)).json).toMatchObject({ position: 1 });
    expect((await early.queueInfo(earlyPage.queue.uuid)).json).toMatchObject({ position: 2 });
    expect(await stats(server)).toMatchObject({ waiting: 2, pending: 0, arrived: 2 });
  });

  it('should release solved visitors over the realtime channel while bots that never solve are never released nor delay anyone', async () => {
    await start();
    const bots = Array.from({ length: 5 }, () => new Visitor(server.url));
    for (const bot of bots) await holdJson(bot);
    const visitor = new Visitor(server.url);
    const page = await holdJson(visitor);
    const pusher = await connectPusher(server);
    pushers.push(pusher);
    const { channel, error } = await subscribe(pusher, CHANNELS.client(page.queue.uuid));
    expect(error).toBeUndefined();
    const releases = record(channel, CHANNELS.releaseEvent);
    await queueRequest(visitor, page, await solveAltcha(page.altcha!));

    expect((await visitor.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
    expect((await (await admin(server, 'POST', 'release', { count: 10 })).json()).released).toEqual([page.queue.uuid]);

    await eventually(
      'the release event',
      async () => releases,
      (received) => received.length === 1,
    );
    expect(releases).toEqual([{ uuid: page.queue.uuid }]);
    expect(await stats(server)).toMatchObject({ waiting: 0, pending: 5, released: 1 });
  });

  it('should count a solution once: sent again it changes nothing, and it is no good for the session’s next place', async () => {
    await start({ ACTIVE_LIMIT: '1', SESSION_SECONDS: '60' });
    const visitor = new Visitor(server.url);
    const first = await holdJson(visitor);
    const payload = await solveAltcha(first.altcha!);
    await queueRequest(visitor, first, payload);

    expect((await queueRequest(visitor, first, payload)).json).toEqual({ uuid: first.queue.uuid, state: 'waiting' });
    expect(await stats(server)).toMatchObject({ waiting: 1, arrived: 1 });

    await admin(server, 'POST', 'release', { count: 1 });
    await clock.advance(61_000);
    // Both admissions ended: someone else takes the one place, so the visitor is held again.
    await new Visitor(server.url).get('/checkout');
    const second = await holdJson(visitor);
    expect(second.queue.uuid).not.toBe(first.queue.uuid);
    const reused = await queueRequest(visitor, second, payload);
    expect([reused.status, reused.json.error.code]).toEqual([403, 'altcha_refused']);
    expect(await stats(server)).toMatchObject({ waiting: 0, pending: 0 });
  });

  it('should bind a solution to its visitor’s session: another session cannot use it, nor that place', async () => {
    await start();
    const owner = new Visitor(server.url);
    const page = await holdJson(owner);
    const payload = await solveAltcha(page.altcha!);
    const thief = new Visitor(server.url);
    const thiefPage = await holdJson(thief);

    const onOwnersPlace = await thief.post('/queue/request', { json: { _token: thiefPage.csrfToken, user_id: 0, uuid: page.queue.uuid, altcha: payload } });
    const onOwnPlace = await queueRequest(thief, thiefPage, payload);

    expect([onOwnersPlace.status, onOwnersPlace.json.error.code]).toEqual([403, 'not_your_place']);
    expect([onOwnPlace.status, onOwnPlace.json.error.code]).toEqual([403, 'altcha_refused']);
    expect((await queueRequest(owner, page, payload)).json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });
  });

  it('should drop a place whose solution is refused, so its page learns it (404 unknown_uuid) and a held GET joins again afresh', async () => {
    await start();
    const visitor = new Visitor(server.url);
    const page = await holdJson(visitor);

    const wrong = await queueRequest(
      visitor,
      page,
      Buffer.from(JSON.stringify({ challenge: page.altcha, solution: { counter: 1, derivedKey: 'ab' } })).toString('base64'),
    );

    expect(wrong.status).toBe(403);
    expect((await visitor.queueInfo(page.queue.uuid)).json).toEqual({ error: { code: 'unknown_uuid', message: expect.any(String) } });
    const again = await holdJson(visitor);
    expect(again.queue.uuid).not.toBe(page.queue.uuid);
    expect(again.altcha).toBeDefined();
  });

  it('should refuse a solution presented after its challenge expired, and drop a pending place at that time', async () => {
    await start();
    const late = new Visitor(server.url);
    const latePage = await holdJson(late);
    const payload = await solveAltcha(latePage.altcha!);
    const idle = new Visitor(server.url);
    const idlePage = await holdJson(idle);

    await clock.advance(CHALLENGE_LIFETIME_MS - 1000);
    expect((await idle.queueInfo(idlePage.queue.uuid)).status).toBe(202);
    await clock.advance(1000);

    expect((await idle.queueInfo(idlePage.queue.uuid)).status).toBe(404);
    expect((await queueRequest(late, latePage, payload)).status).toBe(404);
    expect(await stats(server)).toMatchObject({ pending: 0, waiting: 0 });
  });

  it('should hand the same challenge to a reload, and keep the place pending until then', async () => {
    await start();
    const visitor = new Visitor(server.url);
    const first = await holdJson(visitor);
    await clock.advance(60_000);
    const reload = await holdJson(visitor);

    expect(reload.queue.uuid).toBe(first.queue.uuid);
    expect(reload.altcha).toEqual(first.altcha);
  });

  it('should let the operator raise the difficulty live, shared through the store, for the challenges issued from then on', async () => {
    await start({ BOT_CHALLENGE_DIFFICULTY: '4' });

    const before = await (await admin(server, 'GET', 'bot-check')).json();
    const raised = await admin(server, 'POST', 'bot-check', { difficulty: 40 });
    const page = await holdJson(new Visitor(server.url));
    const counter = JSON.parse(Buffer.from(await solveAltcha(page.altcha!), 'base64').toString()).solution.counter;
    const bad = await admin(server, 'POST', 'bot-check', { difficulty: 0 });
    const back = await admin(server, 'POST', 'bot-check', { difficulty: null });

    expect(before).toMatchObject({ botChallenge: 'pow', difficulty: 4, configured: { botChallenge: 'pow', difficulty: 4 }, pending: 0, placesPerAddress: 0 });
    expect(before.kdf).toEqual({ algorithm: 'SCRYPT', cost: 1024, memoryCost: 8, parallelism: 1, keyLength: 32 });
    expect(await raised.json()).toMatchObject({ difficulty: 40, configured: { difficulty: 4 } });
    expect(counter).toBeGreaterThanOrEqual(20);
    expect(counter).toBeLessThanOrEqual(40);
    expect([bad.status, (await bad.json()).error.code]).toEqual([400, 'bad_difficulty']);
    expect(await back.json()).toMatchObject({ difficulty: 4, pending: 1 });
  });
});

describe('bot check off (the default)', () => {
  let server: Started;
  afterEach(() => server?.close());

  it('should hand no challenge and take every held visitor into the line at once, as before', async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
    await new Visitor(server.url).get('/checkout');
    const visitor = new Visitor(server.url);
    const page = await holdJson(visitor);

    expect(page.altcha).toBeUndefined();
    expect((await visitor.queueInfo(page.queue.uuid)).json).toMatchObject({ position: 1 });
    expect((await queueRequest(visitor, page)).json).toEqual({ uuid: page.queue.uuid, state: 'waiting' });
    expect((await (await admin(server, 'GET', 'bot-check')).json()).botChallenge).toBe('off');
  });
});

describe('places per address (PLACES_PER_ADDRESS)', () => {
  let server: Started;
  afterEach(() => server?.close());

  const start = (env: Record<string, string>) =>
    startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PLACES_PER_ADDRESS: '2', ...env }).then(async (started) => {
      server = started;
      await new Visitor(server.url).get('/checkout');
    });

  it('should refuse a third place from one address with 429: JSON for a program, a readable page for a person, nothing taken', async () => {
    await start({});
    await holdJson(new Visitor(server.url));
    await new Visitor(server.url).hold();
    const kept = new Visitor(server.url);

    const program = await kept.get('/checkout', JSON_CLIENT);
    const person = await new Visitor(server.url).get('/checkout', { accept: 'text/html', 'accept-language': 'fr-FR,fr;q=0.9' });

    expect([program.status, program.json.error.code, program.headers.get('retry-after')]).toEqual([429, 'too_many_places', '60']);
    expect(program.json.error.message).toBe('This address already holds 2 places in line. Come back once one of them has had its turn.');
    expect(person.status).toBe(429);
    expect(person.headers.get('content-type')).toMatch(/^text\/html/);
    expect(person.text).toContain('Votre réseau occupe déjà autant de places dans la file');
    expect(person.page).toBeUndefined();
    expect(await stats(server)).toMatchObject({ waiting: 2, arrived: 2 });
  });

  it('should count a pending place, and free it when it is refused', async () => {
    await start({ BOT_CHALLENGE: 'pow', BOT_CHALLENGE_DIFFICULTY: '2' });
    const bot = new Visitor(server.url);
    const botPage = await holdJson(bot);
    await holdJson(new Visitor(server.url));

    expect((await new Visitor(server.url).get('/checkout', JSON_CLIENT)).status).toBe(429);
    await queueRequest(bot, botPage, 'garbage');
    expect((await new Visitor(server.url).get('/checkout', JSON_CLIENT)).status).toBe(503);
  });

  it('should believe X-Forwarded-For only behind TRUST_PROXY, and count IPv6 clients per /64', async () => {
    await start({});
    const forwardedFor = (ip: string) => ({ ...JSON_CLIENT, 'x-forwarded-for': ip });
    // Not trusted: every request is the socket's address, whatever the header says.
    await new Visitor(server.url).get('/checkout', forwardedFor('198.51.100.1'));
    await new Visitor(server.url).get('/checkout', forwardedFor('198.51.100.2'));
    expect((await new Visitor(server.url).get('/checkout', forwardedFor('198.51.100.3'))).status).toBe(429);
    await server.close();

    await start({ TRUST_PROXY: 'true' });
    const statuses = async (ips: string[]) => {
      const answers: number[] = [];
      for (const ip of ips) answers.push((await new Visitor(server.url).get('/checkout', forwardedFor(ip))).status);
      return answers;
    };
    expect(await statuses(['198.51.100.1', '198.51.100.1', '198.51.100.1', '198.51.100.2'])).toEqual([503, 503, 429, 503]);
    expect(await statuses(['2001:db8:0:1::1', '2001:db8:0:1:ffff::2', '2001:db8:0:1::3', '2001:db8:0:2::1'])).toEqual([503, 503, 429, 503]);
    // The client is the first address of the chain, as a proxy that replaces the header writes it.
    expect(await statuses(['203.0.113.9, 10.0.0.1', '203.0.113.9, 10.0.0.2', '203.0.113.9'])).toEqual([503, 503, 429]);
  });
});
