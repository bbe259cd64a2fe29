import type { PageConfigJson } from '@waiting-room/streams/contract';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

describe('admin API', () => {
  let server: Started;

  beforeEach(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '4' }, { clock: new ManualClock() });
  });
  afterEach(() => server.close());

  it('should refuse calls without the bearer token', async () => {
    const none = await fetch(`${server.url}/admin/stats`);
    const wrong = await fetch(`${server.url}/admin/release`, {
      method: 'POST',
      headers: { authorization: 'Bearer wrong', 'content-type': 'application/json' },
      body: '{"count": 5}',
    });

    expect([none.status, wrong.status]).toEqual([401, 401]);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await none.json()).error.code).toBe('unauthorized');
    expect(await stats(server)).toMatchObject({ released: 0 });
  });

  it('should report the line', async () => {
    await new Visitor(server.url).get('/checkout');
    await new Visitor(server.url).hold();
    await new Visitor(server.url).hold();

    expect(await stats(server)).toEqual({
      waiting: 2,
      pending: 0,
      active: 1,
      released: 0,
      arrived: 2,
      releasePerMinute: 4,
      activeLimit: 1,
      configured: { releasePerMinute: 4, activeLimit: 1 },
      paused: false,
      codes: { issued: 0, used: 0 },
      heldBodies: { count: 0, bytes: 0, refused: 0 },
    });
  });

  it('should release the next count visitors in order, whatever the limits', async () => {
    await new Visitor(server.url).get('/checkout');
    const pages: PageConfigJson[] = [];
    for (let i = 0; i < 3; i++) pages.push(await new Visitor(server.url).hold());

    const answer = await admin(server, 'POST', 'release', { count: 2 });

    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ released: [pages[0].queue.uuid, pages[1].queue.uuid], silent: false });
    expect(await stats(server)).toMatchObject({ waiting: 1, active: 3, released: 2 });
  });

  it('should release one without a body, and silently when asked', async () => {
    await new Visitor(server.url).get('/checkout');
    const ada = new Visitor(server.url);
    const page = await ada.hold();
    await new Visitor(server.url).hold();

    const silent = await admin(server, 'POST', 'release', { count: 1, silent: true });
    const plain = await fetch(`${server.url}/admin/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}` },
    });

    expect(await silent.json()).toEqual({ released: [page.queue.uuid], silent: true });
    expect((await plain.json()).released).toHaveLength(1);
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(0);
  });

  it('should refuse a bad count or body with a clear error', async () => {
    const answers = await Promise.all(
      [{ count: 0 }, { count: -1 }, { count: 1.5 }, { count: 'many' }, { count: 1e9 }, { count: 1, silent: 'maybe' }, [1]].map((body) =>
        admin(server, 'POST', 'release', body),
      ),
    );
    const malformed = await fetch(`${server.url}/admin/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: '{"count": ',
    });

    expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 400, 400]);
    expect((await answers[0].json()).error).toEqual({
      code: 'bad_count',
      message: '"count" must be a whole number from 1 to 10000.',
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error.code).toBe('malformed_json');
  });

  it('should pause and resume', async () => {
    expect(await (await admin(server, 'POST', 'pause')).json()).toEqual({ paused: true });
    expect(await stats(server)).toMatchObject({ paused: true });
    expect(await (await admin(server, 'POST', 'resume')).json()).toEqual({ paused: false });
    expect(await stats(server)).toMatchObject({ paused: false });
  });
});
