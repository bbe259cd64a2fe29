import type { Started } from '../../server/process/start';
import { CODE_ALPHABET, CODE_GUESSES } from '../../server/domain/codes';
import { ManualClock } from './support/manual-clock';
import { admin, startServer, stats } from './support/server';
import { Visitor } from './support/visitor';

describe('priority codes over HTTP', () => {
  let server: Started;
  let clock: ManualClock;

  beforeEach(async () => {
    clock = new ManualClock();
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', CODE_MINUTES: '1', ABANDON_SECONDS: '600' }, { clock });
  });
  afterEach(() => server.close());

  const issue = async (count: unknown) => admin(server, 'POST', 'codes', { count });
  const enter = async (visitor: Visitor, csrf: string, code: string) => visitor.post('/queue/code', { json: { _token: csrf, code } });

  it('should issue typable codes for the admin only, and refuse a count out of bounds', async () => {
    const answer = await issue(3);
    expect(answer.status).toBe(200);
    const body = (await answer.json()) as { codes: string[]; expiresAt: string; room: string };
    expect(body.codes).toHaveLength(3);
    for (const code of body.codes) expect(code).toMatch(new RegExp(`^[${CODE_ALPHABET}]{5}-[${CODE_ALPHABET}]{5}$`));
    expect(new Set(body.codes).size).toBe(3);
    expect(Date.parse(body.expiresAt) - clock.now()).toBe(60_000);
    for (const count of [0, 1001, 'x', 1.5]) {
      const refused = await issue(count);
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('bad_count');
    }
    const none = await fetch(`${server.url}/admin/codes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"count":1}' });
    expect(none.status).toBe(401);
    expect(await stats(server)).toMatchObject({ codes: { issued: 3, used: 0 } });
  });

  it('should move a waiting visitor ahead with a code, once, and say when a code is wrong, used or expired', async () => {
    await new Visitor(server.url).get('/checkout');
    const [first, second, third] = [new Visitor(server.url), new Visitor(server.url), new Visitor(server.url)];
    const pages = [await first.hold(), await second.hold(), await third.hold()];
    const {
      codes: [code, late],
    } = (await (await issue(2)).json()) as { codes: string[] };

    const moved = await enter(third, pages[2].csrfToken, code.toLowerCase().replace('-', ' '));
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({ position: 1, ahead: false });
    expect(((await first.queueInfo(pages[0].queue.uuid)).json as { position: number }).position).toBe(2);

    const used = await enter(second, pages[1].csrfToken, code);
    expect(used.status).toBe(404);
    expect((used.json as { error: { code: string } }).error.code).toBe('unknown_code');
    expect((await enter(second, pages[1].csrfToken, 'hello')).status).toBe(400);
    expect((await enter(second, 'wrong-token', late)).status).toBe(419);
    await clock.advance(60_000);
    expect((await enter(second, pages[1].csrfToken, late)).status).toBe(404);
    expect(await stats(server)).toMatchObject({ codes: { issued: 2, used: 1 } });

    const released = (await (await admin(server, 'POST', 'release', { count: 3 })).json()) as { released: string[] };
    expect(released.released).toEqual([pages[2].queue.uuid, pages[0].queue.uuid, pages[1].queue.uuid]);
  });

  it('should answer 429 past the wrong codes a place may send', async () => {
    await new Visitor(server.url).get('/checkout');
    const visitor = new Visitor(server.url);
    const page = await visitor.hold();
    for (let i = 0; i < CODE_GUESSES.perPlace; i++) expect((await enter(visitor, page.csrfToken, 'AAAAA-AAAA2')).status).toBe(404);
    const limited = await enter(visitor, page.csrfToken, 'AAAAA-AAAA2');
    expect(limited.status).toBe(429);
    expect((limited.json as { error: { code: string; message: string } }).error).toMatchObject({ code: 'too_many_codes' });
  });

  it('should answer 409 to a visitor already released, and 419 without a session', async () => {
    await new Visitor(server.url).get('/checkout');
    const visitor = new Visitor(server.url);
    const page = await visitor.hold();
    await admin(server, 'POST', 'release', { count: 1 });
    const answer = await enter(visitor, page.csrfToken, 'AAAAA-AAAA2');
    expect(answer.status).toBe(409);
    expect((answer.json as { error: { code: string } }).error.code).toBe('not_waiting');
    expect((await enter(new Visitor(server.url), page.csrfToken, 'AAAAA-AAAA2')).status).toBe(419);
  });
});
