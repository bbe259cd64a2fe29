import type { Started } from '../../server/process/start';
import { REPORT_CSV_COLUMNS, csvField } from '../../server/http/admin/report-csv';
import { ManualClock } from './support/manual-clock';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';

const MINUTE = 60_000;

async function report(server: Started, query = ''): Promise<Response> {
  return admin(server, 'GET', `report${query}`);
}

describe('GET /admin/report', () => {
  let server: Started;
  let clock: ManualClock;
  const uuids: string[] = [];

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', REPORT_RETENTION_HOURS: '1', AWAY_SECONDS: '180' }, { clock });
    uuids.length = 0;
    // The first visitor is let in at once (nobody waits); the next three wait, one each 10 s.
    await new Visitor(server.url).get('/checkout');
    for (let i = 0; i < 3; i++) {
      uuids.push((await new Visitor(server.url).hold()).queue.uuid);
      await clock.advance(10_000);
    }
  });
  afterEach(() => server.close());

  /** Releases the first after 2 minutes of the clock, the two others a minute later. */
  async function serve(): Promise<void> {
    await clock.advance(2 * MINUTE - 30_000);
    await admin(server, 'POST', 'release', { count: 1 });
    await clock.advance(MINUTE);
    await admin(server, 'POST', 'release', { count: 2 });
    await clock.advance(1000);
  }

  it("should answer the line's figures, exact on a known clock", async () => {
    await serve();
    const answer = await report(server);
    const body = await answer.json();

    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    // Arrived at 0, 10 and 20 s; released at 2 min, 3 min and 3 min: waits of 2, 2.83 and 2.67 min.
    expect(body).toMatchObject({
      room: 'default',
      event: null,
      retentionHours: 1,
      arrivals: 3,
      peakLine: 3,
      admitted: 3,
      abandoned: 0,
      waiting: 0,
      revoked: 0,
      replays: 0,
      botChecks: { solved: 0, failed: 0 },
      waits: { p50: 2.67, p90: 2.83, p99: 2.83 },
    });
    expect(body.estimateError.atArrival.samples).toBe(3);
    expect(body.timeline[0]).toMatchObject({ at: new Date(Date.UTC(2030, 0, 1)).toISOString(), arrivals: 3, admitted: 0, line: 3 });
    expect(body.waitsByMinute).toEqual([0, 0, 3]);
  });

  it('should count those still waiting, then those gone unreleased', async () => {
    const during = await (await report(server)).json();
    expect(during).toMatchObject({ arrivals: 3, admitted: 0, waiting: 3, abandoned: 0, waits: null });
    // Nobody polls: past AWAY_SECONDS (180 s here) the sweep drops them.
    await clock.advance(4 * MINUTE);
    expect(await (await report(server)).json()).toMatchObject({ arrivals: 3, admitted: 0, waiting: 0, abandoned: 3 });
  });

  it('should give one CSV row a place, without uuid, session or address', async () => {
    await serve();
    const answer = await report(server, '?format=csv');
    const text = await answer.text();

    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="report-default.csv"');
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(REPORT_CSV_COLUMNS.join(','));
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe('');
    expect(lines[1]).toMatch(/^1,2030-01-01T00:00:00\.000Z,1,\d+,[\d ]*,2030-01-01T00:02:00\.000Z,2,admitted$/);
    expect(lines[3].split(',')).toHaveLength(REPORT_CSV_COLUMNS.length);
    for (const uuid of uuids) expect(text).not.toContain(uuid);
    expect(text).not.toMatch(/127\.0\.0\.1|::1/);
  });

  it('should quote a CSV field only where it must', () => {
    expect(csvField('4 3 2')).toBe('4 3 2');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
  });

  it('should refuse a bad format, an unknown room or event, and a call without the token', async () => {
    const format = await report(server, '?format=xml');
    const room = await report(server, '?room=nope');
    const event = await report(server, '?event=nope');
    const anonymous = await fetch(`${server.url}/admin/report`);

    expect([format.status, room.status, event.status, anonymous.status]).toEqual([400, 404, 404, 401]);
    expect((await format.json()).error).toEqual({ code: 'bad_format', message: '"format" must be json or csv.' });
    expect((await room.json()).error.code).toBe('unknown_room');
    expect((await event.json()).error.code).toBe('unknown_event');
  });

  it("should cover an event's places only, from its pre-queue to its end", async () => {
    await serve();
    const t0 = Date.UTC(2030, 0, 1);
    const created = await admin(server, 'POST', 'events', {
      name: 'Later drop',
      prequeueStartTime: new Date(t0 + 10 * MINUTE).toISOString(),
      eventStartTime: new Date(t0 + 20 * MINUTE).toISOString(),
      eventEndTime: new Date(t0 + 60 * MINUTE).toISOString(),
    });
    expect(created.status).toBe(201);
    const { id } = await created.json();
    const answer = await (await report(server, `?event=${id}`)).json();
    expect(answer).toMatchObject({ event: { id, name: 'Later drop' }, arrivals: 0, admitted: 0, from: new Date(t0 + 10 * MINUTE).toISOString() });
  });

  it('should be kept REPORT_RETENTION_HOURS after its last change, then forgotten', async () => {
    await serve();
    await clock.advance(59 * MINUTE);
    expect(await (await report(server)).json()).toMatchObject({ arrivals: 3, admitted: 3 });
    await clock.advance(2 * MINUTE);
    expect(await (await report(server)).json()).toMatchObject({ arrivals: 0, admitted: 0, peakLine: 0, waits: null, timeline: [] });
  });
});

describe('the estimate a report records', () => {
  it('should be the one a room its sessions pace gives its pages', async () => {
    // One admitted at once for a minute: one release a minute, though the loop could release 60.
    const clock = new ManualClock();
    const server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '60', SESSION_SECONDS: '60', AWAY_SECONDS: '600' }, { clock });
    try {
      await new Visitor(server.url).get('/checkout');
      for (let i = 0; i < 3; i++) await new Visitor(server.url).hold();
      const rows = (await (await report(server, '?format=csv')).text()).split('\r\n').slice(1, 4);
      const column = REPORT_CSV_COLUMNS.indexOf('estimate_at_arrival_min');
      // Positions 1, 2 and 3: a minute each, not a second each at the rate of 60.
      expect(rows.map((row) => row.split(',')[column])).toEqual(['1', '2', '3']);
    } finally {
      await server.close();
    }
  });
});
