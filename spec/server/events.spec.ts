import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type Pusher from 'pusher-js';
import { verifyDraw, type PageConfigJson } from '@waiting-room/streams/contract';
import { drawOrder, ticketOf } from '../../server/domain/events/draw';
import type { Started } from '../../server/process/start';
import { eventually } from '../support/eventually';
import { solveAltcha } from '../support/solve-altcha';
import { ManualClock } from './support/manual-clock';
import { connectPusher, record, subscribe } from './support/realtime';
import { startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

/** The manual clock's start, and the event's times from it. */
const T0 = Date.UTC(2030, 0, 1);
const at = (seconds: number) => new Date(T0 + seconds * 1000).toISOString();

/** A shuffled drop: its pre-queue a minute in, the opening two minutes in, an hour long. */
const DROP = {
  name: 'Spring drop',
  prequeueStartTime: at(60),
  eventStartTime: at(120),
  eventEndTime: at(3600),
  shuffleAtEventStart: true,
};

describe('scheduled events on one instance, on a clock the test moves', () => {
  let server: Started;
  let clock: ManualClock;
  const clients: Pusher[] = [];

  const start = async (env: Record<string, string> = {}) => {
    clock = new ManualClock(T0);
    server = await startServer({ ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '3600', AWAY_SECONDS: '86400', ...env }, { clock });
  };
  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await server?.close();
  });

  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/${route}`, {
      method,
      headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : undefined };
  };
  const createEvent = async (fields: Record<string, unknown>) => {
    const created = await call('POST', 'events', fields);
    expect(created.status).toBe(201);
    return created.json as { id: string } & Record<string, unknown>;
  };
  const draw = async (id: string) => {
    const response = await fetch(`${server.url}/events/${id}/draw`);
    return { status: response.status, json: await response.json(), headers: response.headers };
  };
  const info = async (visitor: Visitor, page: PageConfigJson) => (await visitor.queueInfo(page.queue.uuid)).json;

  describe('the admin API', () => {
    beforeEach(() => start());

    it('should create, list, change and delete an event, answering its id', async () => {
      const created = await createEvent({ ...DROP, activeLimit: 50, releasePerMinute: 600 });
      expect(created).toMatchObject({
        id: expect.stringMatching(/^spring-drop-[0-9a-f]{6}$/),
        room: 'default',
        prequeueStartTime: at(60),
        queueingMethod: 'fifo',
        phase: 'scheduled',
        entrants: null,
        commitment: null,
        drawn: false,
      });
      expect((await call('GET', 'events')).json).toEqual([created]);
      const changed = await call('PATCH', `events/${created.id}`, { name: 'Spring drop, 10:00', activeLimit: null, queueingMethod: 'random' });
      expect(changed).toMatchObject({ status: 200, json: { name: 'Spring drop, 10:00', activeLimit: null, releasePerMinute: 600, queueingMethod: 'random' } });
      expect(await call('DELETE', `events/${created.id}`)).toEqual({ status: 204, json: undefined });
      expect((await call('GET', 'events')).json).toEqual([]);
      expect((await call('DELETE', `events/${created.id}`)).json).toMatchObject({ error: { code: 'unknown_event' } });
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['an opening before the pre-queue', { ...DROP, prequeueStartTime: at(200) }, 'prequeue_after_start'],
      ['an end before the opening', { ...DROP, eventEndTime: at(100) }, 'end_before_start'],
      ['a shuffle without a pre-queue', { ...DROP, prequeueStartTime: null }, 'shuffle_without_prequeue'],
      ['an unknown field', { ...DROP, new_users_per_minute: 200 }, 'unknown_field'],
      ['a time that is not ISO 8601', { ...DROP, eventStartTime: 'at ten' }, 'bad_event_start_time'],
      ['a missing name', { eventStartTime: at(120), eventEndTime: at(3600) }, 'bad_name'],
      ['a name with a terminal escape', { ...DROP, name: 'Drop\u001b[2J\u001b[HThe draw checks out' }, 'bad_name'],
      ['a name with a new line', { ...DROP, name: 'Drop\nThe draw checks out' }, 'bad_name'],
      ['a name with a right-to-left override', { ...DROP, name: 'Drop \u202egnirps' }, 'bad_name'],
      ['an unknown queueing method', { ...DROP, queueingMethod: 'lottery' }, 'bad_queueing_method'],
      ['an unknown bot check', { ...DROP, botChallenge: 'captcha' }, 'bad_bot_challenge'],
      ['an end already past', { name: 'Past', eventStartTime: at(-7200), eventEndTime: at(-3600) }, 'event_over'],
    ])('should refuse %s with 400 and its code', async (_what, body, code) => {
      const refused = await call('POST', 'events', body);
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ error: { code, message: expect.any(String) } });
    });

    it('should refuse an event that overlaps another of the room, and a change that makes one overlap', async () => {
      const first = await createEvent(DROP);
      const overlapping = await call('POST', 'events', {
        ...DROP,
        name: 'Second',
        prequeueStartTime: at(3000),
        eventStartTime: at(4000),
        eventEndTime: at(5000),
      });
      expect(overlapping).toMatchObject({ status: 400, json: { error: { code: 'event_overlap', message: expect.stringContaining(first.id) } } });
      const later = await createEvent({ name: 'Later', eventStartTime: at(3600), eventEndTime: at(7200) });
      expect((await call('PATCH', `events/${later.id}`, { eventStartTime: at(3500) })).json).toMatchObject({ error: { code: 'event_overlap' } });
      expect((await call('PATCH', `events/${later.id}`, { eventEndTime: at(3000) })).json).toMatchObject({ error: { code: 'end_before_start' } });
      expect((await call('PATCH', `events/${later.id}`, { id: 'mine' })).json).toMatchObject({ error: { code: 'unknown_field' } });
      expect((await call('PATCH', `events/${later.id}`, { name: 'Later\u0007' })).json).toMatchObject({ error: { code: 'bad_name' } });
    });

    it("should fix an event's start and shuffle once its pre-queue has begun, and leave the rest open to change", async () => {
      const event = await createEvent(DROP);
      await clock.advance(61_000);
      expect((await call('PATCH', `events/${event.id}`, { shuffleAtEventStart: false })).json).toMatchObject({ error: { code: 'event_begun' } });
      expect((await call('PATCH', `events/${event.id}`, { eventStartTime: at(100) })).status).toBe(409);
      expect((await call('PATCH', `events/${event.id}`, { eventEndTime: at(1800), releasePerMinute: 30 })).json).toMatchObject({
        eventEndTime: at(1800),
        releasePerMinute: 30,
        phase: 'prequeue',
      });
    });

    it("should delete an event whose pre-queue has entrants only with ?confirm=entrants, and keep them in the room's line in their order of arrival", async () => {
      await server.close();
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
      const event = await createEvent(DROP);
      await new Visitor(server.url).get('/checkout');
      await clock.advance(60_000);
      const empty = await createEvent({ ...DROP, name: 'Later', prequeueStartTime: at(4000), eventStartTime: at(5000), eventEndTime: at(6000) });
      const visitors = [new Visitor(server.url), new Visitor(server.url), new Visitor(server.url)];
      const pages: PageConfigJson[] = [];
      for (const visitor of visitors) {
        pages.push(await visitor.hold());
        await clock.advance(1000);
      }

      const refused = await call('DELETE', `events/${event.id}`);
      expect(refused).toEqual({ status: 409, json: { error: { code: 'event_has_entrants', message: expect.stringContaining('?confirm=entrants') } } });
      expect(refused.json.error.message).toContain('3 entrants');
      expect((await call('DELETE', `events/${event.id}?confirm=yes`)).json).toMatchObject({ error: { code: 'bad_confirm' } });
      expect((await call('GET', 'events')).json).toEqual([expect.objectContaining({ id: event.id, entrants: 3 }), expect.objectContaining({ id: empty.id })]);
      expect(await info(visitors[0], pages[0])).toMatchObject({ opensIn: 57_000 });
      // An event without entrants needs no confirmation.
      expect((await call('DELETE', `events/${empty.id}`)).status).toBe(204);

      expect(await call('DELETE', `events/${event.id}?confirm=entrants`)).toEqual({ status: 204, json: undefined });
      expect((await draw(event.id)).json).toMatchObject({ error: { code: 'unknown_event' } });
      const answers = await Promise.all(visitors.map((visitor, i) => info(visitor, pages[i])));
      expect(answers.map((answer) => [answer.position, answer.opensIn])).toEqual([
        [1, undefined],
        [2, undefined],
        [3, undefined],
      ]);
      // The line moves again, in their order of arrival.
      expect((await call('POST', 'release', { count: 2 })).json.released).toEqual([pages[0].queue.uuid, pages[1].queue.uuid]);
    });

    it("should keep an event's bot check, answer it, change it and clear it back to the room's", async () => {
      const created = await createEvent({ ...DROP, botChallenge: 'pow' });
      expect(created.botChallenge).toBe('pow');
      expect((await call('GET', 'events')).json).toEqual([created]);
      expect((await call('PATCH', `events/${created.id}`, { botChallenge: 'off' })).json).toMatchObject({ botChallenge: 'off' });
      expect((await call('PATCH', `events/${created.id}`, { botChallenge: 'maybe' })).json).toEqual({
        error: { code: 'bad_bot_challenge', message: expect.any(String) },
      });
      expect((await call('PATCH', `events/${created.id}`, { botChallenge: null })).json).toMatchObject({ botChallenge: null });
      expect(
        (await createEvent({ ...DROP, name: 'Later', prequeueStartTime: at(4000), eventStartTime: at(5000), eventEndTime: at(6000) })).botChallenge,
      ).toBeNull();
    });

    it('should document every events route in the OpenAPI document', async () => {
      const document = (await call('GET', 'openapi.json')).json as { paths: Record<string, Record<string, unknown>> };
      expect(Object.keys(document.paths['/admin/events'] ?? {}).sort()).toEqual(['get', 'post']);
      expect(Object.keys(document.paths['/admin/events/{id}'] ?? {}).sort()).toEqual(['delete', 'patch']);
      expect(Object.keys(document.paths['/events/{id}/draw'] ?? {})).toEqual(['get']);
    });
  });

  describe("a room's events, bounded and listed a page at a time", () => {
    /** An hour-long event opening `hours` hours in, in `room`. */
    const hourly = (hours: number, room?: string) => ({ name: `Hour ${hours}`, eventStartTime: at(hours * 3600), eventEndTime: at(hours * 3600 + 1800), room });
    /** One page of the list: the events' ids, and the next page's address (its Link header). */
    const list = async (query: string) => {
      const response = await fetch(`${server.url}/admin/events${query}`, { headers: { authorization: `Bearer ${server.adminToken}` } });
      const json = await response.json();
      const next = /^<([^>]+)>; rel="next"$/.exec(response.headers.get('link') ?? '')?.[1];
      return { status: response.status, json, ids: Array.isArray(json) ? (json as Array<{ id: string }>).map((event) => event.id) : [], next };
    };

    it('should keep at most MAX_EVENTS_PER_ROOM events in a room, ended ones included, refusing one more with 409 until one is deleted', async () => {
      await start({ MAX_EVENTS_PER_ROOM: '3' });
      const kept = [await createEvent(hourly(1)), await createEvent(hourly(2)), await createEvent(hourly(3))];
      await clock.advance(3600_000 + 1800_000);
      const refused = await call('POST', 'events', hourly(4));
      expect(refused).toEqual({ status: 409, json: { error: { code: 'too_many_events', message: expect.stringContaining('MAX_EVENTS_PER_ROOM') } } });
      expect((await call('GET', 'events')).json).toHaveLength(3);
      expect((await call('DELETE', `events/${kept[0].id}`)).status).toBe(204);
      await createEvent(hourly(4));
    });

    it('should list the events in pages of `limit`, each room by opening, following the Link header to the end, deleted ones neither repeating nor skipping others', async () => {
      await start({
        ROOMS: JSON.stringify([
          { name: 'shop', protect: ['/checkout'] },
          { name: 'tickets', protect: ['/tickets'] },
        ]),
      });
      const created: Record<string, string> = {};
      for (const [hours, room] of [
        [3, 'tickets'],
        [2, 'shop'],
        [1, 'tickets'],
        [5, 'shop'],
        [2, 'tickets'],
      ] as const) {
        created[`${room}-${hours}`] = (await createEvent(hourly(hours, room))).id;
      }
      const everything = ['shop-2', 'shop-5', 'tickets-1', 'tickets-2', 'tickets-3'].map((key) => created[key]);

      const whole = await list('');
      expect(whole).toMatchObject({ status: 200, ids: everything, next: undefined });
      const first = await list('?limit=2');
      expect(first.ids).toEqual(everything.slice(0, 2));
      // Deleted between two pages: the next one goes on from where the first ended.
      expect((await call('DELETE', `events/${created['tickets-1']}`)).status).toBe(204);
      const second = await list(first.next?.replace('/admin/events', '') ?? 'no link');
      expect(second.ids).toEqual([created['tickets-2'], created['tickets-3']]);
      expect(second.next).toBeUndefined();
      expect((await list('?room=tickets&limit=1')).ids).toEqual([created['tickets-2']]);
      expect((await list('?room=tickets&limit=1')).next).toMatch(/^\/admin\/events\?room=tickets&limit=1&after=tickets\.\d+$/);
    });

    it.each([
      ['?limit=0', 'bad_limit'],
      [`?limit=501`, 'bad_limit'],
      ['?after=garbage', 'bad_cursor'],
      ['?after=nowhere.1', 'bad_cursor'],
    ])('should refuse %s with 400 and its code', async (query, code) => {
      await start();
      expect(await list(query)).toMatchObject({ status: 400, json: { error: { code } } });
    });
  });

  describe('a shuffled pre-queue, drawn at the opening', () => {
    it('should hold everyone from its start, publish the commitment, draw at the opening as anyone can verify, and queue later arrivals behind', async () => {
      await start({ ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '60' });
      const event = await createEvent(DROP);
      // Before the pre-queue, places are free: a visitor goes through (and keeps the room's second place until the end).
      expect((await new Visitor(server.url).get('/checkout')).page).toBeUndefined();
      expect((await draw(event.id)).json).toMatchObject({ error: { code: 'draw_not_started' } });

      await clock.advance(60_000);
      const committed = await draw(event.id);
      expect(committed.status).toBe(200);
      expect(committed.json).toEqual({
        event: event.id,
        name: 'Spring drop',
        prequeueStartTime: at(60),
        eventStartTime: at(120),
        commitment: expect.stringMatching(/^[0-9a-f]{64}$/),
        entrants: 0,
      });
      expect(committed.headers.get('cache-control')).toBe('no-store');

      // A place is still free, yet everyone is held: nobody is admitted before the opening.
      const visitors = Array.from({ length: 6 }, () => new Visitor(server.url));
      const stillFree = new Visitor(server.url);
      const pages: PageConfigJson[] = [];
      for (const visitor of visitors) {
        pages.push(await visitor.hold());
        await clock.advance(1000);
      }
      expect(pages[0].event).toEqual({ id: event.id, name: 'Spring drop', opensAt: at(120), shuffle: true, commitment: committed.json.commitment });
      expect(pages.map((page) => page.queue.position).every((position) => position >= 1)).toBe(true);
      const answer = await info(visitors[0], pages[0]);
      expect(answer).toEqual({ position: 6, estimated: expect.any(Number), opensIn: 54_000 });
      expect(answer.estimated).toBeGreaterThanOrEqual(1);
      expect((await draw(event.id)).json.entrants).toBe(6);
      // The operator cannot let anyone in either.
      expect((await call('POST', 'release', { count: 1 })).json).toMatchObject({ error: { code: 'event_prequeue' } });

      const listener = await connectPusher(server);
      clients.push(listener);
      const opened = record((await subscribe(listener, `App.Event.${event.id}`)).channel, 'QueueOpened');

      // The one free place goes, at the opening, to the first drawn; the line is full after it.
      await clock.advance(60_000);
      const published = await draw(event.id);
      expect(published.headers.get('cache-control')).toBe('public, max-age=86400, immutable');
      expect(published.json).toMatchObject({ commitment: committed.json.commitment, entrants: 6, seed: expect.stringMatching(/^[0-9a-f]{64}$/) });
      const uuids = pages.map((page) => page.queue.uuid);
      expect(published.json.order).toEqual(drawOrder(published.json.seed, uuids).map((each) => each.ticket));
      for (const [i, page] of pages.entries()) {
        const verdict = await verifyDraw(published.json, { uuid: page.queue.uuid, commitment: page.event?.commitment });
        expect(verdict.ok).toBe(true);
        // The first drawn was let in at the opening; everyone else's position is their rank, less that one.
        expect((await info(visitors[i], page)).position).toBe((verdict.rank as number) - 1);
      }
      await eventually(
        'QueueOpened',
        async () => opened,
        (heard) => heard.length === 1,
        5000,
      );
      expect(opened).toEqual([{ spread: 1 }]);

      const laterPage = await stillFree.hold();
      expect(laterPage.event).toBeUndefined();
      expect((await info(stillFree, laterPage)).position).toBe(6);

      // Releases go on in draw order.
      const released = (await call('POST', 'release', { count: 2 })).json.released as string[];
      expect(released.map(ticketOf)).toEqual(published.json.order.slice(1, 3));
    });

    it('should give an API client the same facts in its 503, and queue_info no position 0 before the opening', async () => {
      await start();
      const event = await createEvent(DROP);
      await clock.advance(60_000);
      const client = new Visitor(server.url);
      const held = await client.get('/checkout', { accept: 'application/json' });
      expect(held.status).toBe(503);
      expect(held.json.event).toEqual({
        id: event.id,
        name: 'Spring drop',
        opensAt: at(120),
        shuffle: true,
        commitment: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      expect(held.json.queue.position).toBeGreaterThanOrEqual(1);
      expect(Number(held.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      for (let second = 0; second < 60; second += 15) {
        const answer = await info(client, held.json);
        expect(answer.position).toBeGreaterThanOrEqual(1);
        expect(answer.opensIn).toBe(60_000 - second * 1000);
        await clock.advance(15_000);
      }
      // Drawn at the opening, with places free: let in at once; only now a position 0.
      expect(await info(client, held.json)).toEqual({ position: 0, estimated: 0 });
    });

    it('should keep arrival order without a shuffle, and publish no draw', async () => {
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60' });
      const event = await createEvent({ ...DROP, shuffleAtEventStart: false });
      await new Visitor(server.url).get('/checkout');
      await clock.advance(60_000);
      const visitors = [new Visitor(server.url), new Visitor(server.url), new Visitor(server.url)];
      const pages: PageConfigJson[] = [];
      for (const visitor of visitors) pages.push(await visitor.hold());
      expect(pages[0].event).toEqual({ id: event.id, name: 'Spring drop', opensAt: at(120), shuffle: false });
      expect(await info(visitors[2], pages[2])).toMatchObject({ opensIn: 60_000 });
      expect((await draw(event.id)).json).toMatchObject({ error: { code: 'no_draw' } });
      await clock.advance(60_000);
      expect(await Promise.all(visitors.map((visitor, i) => info(visitor, pages[i])))).toEqual([
        expect.objectContaining({ position: 1 }),
        expect.objectContaining({ position: 2 }),
        expect.objectContaining({ position: 3 }),
      ]);
    });

    it('should keep those in line before the pre-queue ahead of it', async () => {
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
      await createEvent(DROP);
      await new Visitor(server.url).get('/checkout');
      const early = new Visitor(server.url);
      const earlyPage = await early.hold();
      await clock.advance(60_000);
      const entrant = new Visitor(server.url);
      const entrantPage = await entrant.hold();
      expect(earlyPage.event).toBeUndefined();
      expect(await info(early, earlyPage)).toMatchObject({ position: 1 });
      expect(await info(entrant, entrantPage)).toMatchObject({ position: 2, opensIn: 60_000 });
      await clock.advance(60_000);
      expect(await info(entrant, entrantPage)).toEqual(expect.objectContaining({ position: 2, ticket: 2, served: 0 }));
    });
  });

  describe('with a bot check of its own (botChallenge)', () => {
    /** A program's hold: the 503 JSON with the page config (and its challenge when checked). */
    const holdJson = async (visitor: Visitor): Promise<PageConfigJson> => {
      const held = await visitor.get('/checkout', { accept: 'application/json' });
      expect(held.status).toBe(503);
      return held.json as PageConfigJson;
    };
    const solve = async (visitor: Visitor, page: PageConfigJson) =>
      visitor.post('/queue/request', {
        json: { _token: page.csrfToken, user_id: page.user.id, uuid: page.queue.uuid, altcha: await solveAltcha(page.altcha!) },
      });

    it('should give no place in the pre-queue nor the draw to a visitor who never solves, and draw one who solves before the opening', async () => {
      // The room has no bot check; its event has one.
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', BOT_CHALLENGE_DIFFICULTY: '8' });
      const event = await createEvent({ ...DROP, botChallenge: 'pow' });
      await new Visitor(server.url).get('/checkout');
      const early = new Visitor(server.url);
      const earlyPage = await holdJson(early);
      expect(earlyPage.altcha).toBeUndefined();

      await clock.advance(60_000);
      const bots = [new Visitor(server.url), new Visitor(server.url)];
      const botPages: PageConfigJson[] = [];
      for (const bot of bots) botPages.push(await holdJson(bot));
      const solvers = [new Visitor(server.url), new Visitor(server.url), new Visitor(server.url)];
      const solverPages: PageConfigJson[] = [];
      for (const solver of solvers) solverPages.push(await holdJson(solver));
      const late = new Visitor(server.url);
      const latePage = await holdJson(late);
      for (const page of [...botPages, ...solverPages, latePage]) expect(page.altcha?.parameters).toMatchObject({ data: { place: page.queue.uuid } });
      expect((await draw(event.id)).json.entrants).toBe(0);

      for (const [i, solver] of solvers.entries()) {
        expect((await solve(solver, solverPages[i])).json).toEqual({ uuid: solverPages[i].queue.uuid, state: 'waiting' });
        await clock.advance(1000);
      }
      expect((await bots[0].queueInfo(botPages[0].queue.uuid)).status).toBe(202);
      expect(await info(solvers[0], solverPages[0])).toMatchObject({ position: 4, opensIn: 57_000 });
      expect((await draw(event.id)).json.entrants).toBe(3);
      expect(await stats(server)).toMatchObject({ waiting: 4, pending: 3 });

      await clock.advance(57_000);
      const published = (await draw(event.id)).json;
      const entrants = solverPages.map((page) => page.queue.uuid);
      expect(published).toMatchObject({ entrants: 3, seed: expect.stringMatching(/^[0-9a-f]{64}$/) });
      expect(published.order).toEqual(drawOrder(published.seed, entrants).map((each) => each.ticket));
      for (const page of [...botPages, latePage]) expect(published.order).not.toContain(ticketOf(page.queue.uuid));
      expect(await info(early, earlyPage)).toMatchObject({ position: 1 });
      for (const [i, page] of solverPages.entries()) {
        const verdict = await verifyDraw(published, { uuid: page.queue.uuid, commitment: page.event?.commitment });
        expect(verdict.ok).toBe(true);
        expect((await info(solvers[i], page)).position).toBe((verdict.rank as number) + 1);
      }

      // Solved after the opening: behind the drawn, in no draw; the bots still hold no place.
      expect((await solve(late, latePage)).json).toMatchObject({ state: 'waiting' });
      expect(await info(late, latePage)).toMatchObject({ position: 5 });
      for (const [i, bot] of bots.entries()) expect((await bot.queueInfo(botPages[i].queue.uuid)).json).toEqual({ pending: true });
      expect(await stats(server)).toMatchObject({ waiting: 5, pending: 2 });
      expect((await draw(event.id)).json).toEqual(published);
    });

    it("should lift the room's bot check while an event with botChallenge off runs, and give it back after", async () => {
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', BOT_CHALLENGE: 'pow', BOT_CHALLENGE_DIFFICULTY: '8' });
      await createEvent({ name: 'Open door', eventStartTime: at(60), eventEndTime: at(600), botChallenge: 'off' });
      await new Visitor(server.url).get('/checkout');
      const before = await holdJson(new Visitor(server.url));
      expect(before.altcha).toBeDefined();

      await clock.advance(60_000);
      const during = new Visitor(server.url);
      const duringPage = await holdJson(during);
      expect(duringPage.altcha).toBeUndefined();
      expect(await info(during, duringPage)).toMatchObject({ position: 1 });
      expect((await call('GET', 'bot-check')).json).toMatchObject({ botChallenge: 'off', configured: { botChallenge: 'pow' } });

      await clock.advance(540_000);
      expect((await holdJson(new Visitor(server.url))).altcha).toBeDefined();
      expect((await call('GET', 'bot-check')).json).toMatchObject({ botChallenge: 'pow' });
    });
  });

  describe('while an event runs', () => {
    it("should replace the room's limits and rate, and restore them after", async () => {
      await start({ ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '6' });
      await createEvent({ name: 'Busy hour', eventStartTime: at(10), eventEndTime: at(70), activeLimit: 40, releasePerMinute: 120 });
      expect(await stats(server)).toMatchObject({ activeLimit: 2, releasePerMinute: 6 });
      await clock.advance(11_000);
      expect(await stats(server)).toMatchObject({ activeLimit: 40, releasePerMinute: 120, configured: { activeLimit: 2, releasePerMinute: 6 } });
      // More than the room's two sessions are let in.
      for (let i = 0; i < 5; i++) expect((await new Visitor(server.url).get('/checkout')).page).toBeUndefined();
      await clock.advance(60_000);
      expect(await stats(server)).toMatchObject({ activeLimit: 2, releasePerMinute: 6 });
      expect((await new Visitor(server.url).get('/checkout')).page).toBeDefined();
    });

    it("should make the event's limits an adaptive room's ceilings while it runs, and give the room's back after", async () => {
      await start({ ADMISSION: 'adaptive', ORIGIN_LATENCY_TARGET_MS: '200', UPSTREAM_TIMEOUT_MS: '400', ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '6' });
      await createEvent({ name: 'Busy hour', eventStartTime: at(10), eventEndTime: at(70), activeLimit: 40, releasePerMinute: 120 });
      const ceilings = async () => ((await call('GET', 'admission')).json as { ceilings: unknown }).ceilings;
      expect(await ceilings()).toEqual({ releasePerMinute: 6, activeLimit: 2 });
      await clock.advance(11_000);
      expect(await ceilings()).toEqual({ releasePerMinute: 120, activeLimit: 40 });
      // The controller decides below them: never more than the event allows.
      const { releasePerMinute, activeLimit } = await stats(server);
      expect(releasePerMinute).toBeLessThanOrEqual(120);
      expect(activeLimit).toBeLessThanOrEqual(40);
      await clock.advance(60_000);
      expect(await ceilings()).toEqual({ releasePerMinute: 6, activeLimit: 2 });
    });

    it('should let everyone through with passthrough, those waiting included', async () => {
      await start({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' });
      await createEvent({ name: 'Open doors', eventStartTime: at(10), eventEndTime: at(70), queueingMethod: 'passthrough' });
      await new Visitor(server.url).get('/checkout');
      const waiting = new Visitor(server.url);
      const page = await waiting.hold();
      await clock.advance(11_000);
      expect((await new Visitor(server.url).get('/checkout')).page).toBeUndefined();
      expect((await info(waiting, page)).position).toBe(0);
    });

    it('should close the sale with reject: a page for a browser, JSON for a program, and those let in before still pass', async () => {
      await start({ ACTIVE_LIMIT: '5', RELEASE_PER_MINUTE: '60' });
      await createEvent({ name: 'Sold out', eventStartTime: at(10), eventEndTime: at(70), queueingMethod: 'reject' });
      const inside = new Visitor(server.url);
      expect((await inside.get('/checkout')).page).toBeUndefined();
      await clock.advance(11_000);
      const browser = await new Visitor(server.url).get('/checkout', { accept: 'text/html', 'accept-language': 'fr' });
      expect(browser.status).toBe(403);
      expect(browser.text).toContain('La vente est close');
      const program = await new Visitor(server.url).get('/checkout', { accept: 'application/json' });
      expect(program).toMatchObject({ status: 403, json: { error: { code: 'sale_closed' } } });
      expect((await inside.get('/checkout?again=1')).page).toBeUndefined();
    });

    it('should release at random with random queueing, and answer the places in line as the position', async () => {
      await start({ ACTIVE_LIMIT: '100', RELEASE_PER_MINUTE: '0' });
      await createEvent({ name: 'Lottery', eventStartTime: at(10), eventEndTime: at(3600), queueingMethod: 'random', releasePerMinute: 60 });
      for (let i = 0; i < 100; i++) await new Visitor(server.url).get('/checkout');
      const visitors = Array.from({ length: 30 }, () => new Visitor(server.url));
      const pages: PageConfigJson[] = [];
      for (const visitor of visitors) pages.push(await visitor.hold());
      await clock.advance(11_000);
      expect(await info(visitors[0], pages[0])).toEqual({ position: 30, estimated: expect.any(Number) });
      // Admissions end only after an hour: free room for the draws by letting them go.
      await call('POST', 'limits', { activeLimit: 1000 });
      await clock.advance(10_000);
      const released = (await Promise.all(visitors.map((visitor, i) => info(visitor, pages[i])))).map((answer) => answer.position === 0);
      expect(released.filter(Boolean).length).toBeGreaterThanOrEqual(5);
      expect(released.slice(0, released.filter(Boolean).length).every(Boolean)).toBe(false);
    });
  });

  it('should take the events the configuration declares, once, and survive a restart with STATE_FILE', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wr-events-'));
    const env = { EVENTS: JSON.stringify([{ ...DROP, id: 'declared-drop' }]), STATE_FILE: `${dir}/line.json`, SESSION_SECRET: 's'.repeat(32) };
    await start(env);
    expect((await call('GET', 'events')).json).toEqual([expect.objectContaining({ id: 'declared-drop', phase: 'scheduled' })]);
    await clock.advance(61_000);
    const visitor = new Visitor(server.url);
    const page = await visitor.hold();
    const commitment = (await draw('declared-drop')).json.commitment;
    await server.close();

    clock = new ManualClock(T0 + 100_000);
    server = await startServer({ ACTIVE_LIMIT: '2', RELEASE_PER_MINUTE: '60', ...env }, { clock });
    expect((await draw('declared-drop')).json).toMatchObject({ commitment, entrants: 1 });
    // The same browser, its cookie kept, on the restarted server.
    const again = new Visitor(server.url);
    again.cookie = visitor.cookie;
    expect(await info(again, page)).toMatchObject({ opensIn: 20_000 });
    await clock.advance(21_000);
    const drawn = (await draw('declared-drop')).json;
    expect(await verifyDraw(drawn, { uuid: page.queue.uuid, commitment })).toMatchObject({ ok: true, rank: 1 });
  });
});
