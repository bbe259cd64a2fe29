import type { Started } from '../../server/start';
import { ManualClock } from './support/manual-clock';
import { admin, startServer } from './support/server';
import { Visitor } from './support/visitor';
import type { PageConfig } from '../../server/page-config';

describe('replay of held requests', () => {
  let server: Started;

  beforeEach(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    await new Visitor(server.url).get('/checkout');
  });
  afterEach(() => server.close());

  const release = () => admin(server, 'POST', 'release', { count: 1 });

  /** The hidden form the page submits (spec section 4). */
  const replayForm = (page: PageConfig, extra: Record<string, string> = {}) => ({
    form: {
      uuid: page.queue.uuid,
      _token: page.csrfToken,
      ...(page.queue.method === 'POST' ? {} : { _method: page.queue.method }),
      ...extra,
    },
  });

  it('should let a released GET through on the session', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout?item=42');
    await release();

    const replay = await ada.get(page.queue.uri);

    expect(replay.status).toBe(200);
    expect(replay.page).toBeUndefined();
    expect(replay.text).toContain('<th>item</th><td>42</td>');
  });

  it('should restore a held POST exactly once, with its body, and refuse a second replay', async () => {
    const ada = new Visitor(server.url);
    const token = (await ada.hold('/checkout')).csrfToken;
    const page = await ada.hold('/checkout?item=42', {
      form: { quantity: '3', note: '<b>gift</b> & "card"', _token: token },
    });
    await release();

    const first = await ada.post(page.queue.uri, replayForm(page));
    const second = await ada.post(page.queue.uri, replayForm(page));

    expect(first.status).toBe(200);
    expect(first.text).toContain('replayed from the waiting room');
    expect(first.text).toContain('<th>quantity</th><td>3</td>');
    expect(first.text).toContain('<th>note</th><td>&lt;b&gt;gift&lt;/b&gt; &amp; &quot;card&quot;</td>');
    expect(first.text).not.toContain('<b>gift</b>');
    expect(second.status).toBe(409);
    expect(second.json).toEqual({
      error: { code: 'already_replayed', message: 'This held request was already replayed.' },
    });
  });

  it('should execute a held POST once when two replays race', async () => {
    const ada = new Visitor(server.url);
    const token = (await ada.hold('/checkout')).csrfToken;
    const page = await ada.hold('/checkout', { form: { quantity: '1', _token: token } });
    await release();

    const answers = await Promise.all([1, 2, 3].map(() => ada.post(page.queue.uri, replayForm(page))));

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
  });

  it('should replay another verb with _method and a JSON body', async () => {
    const ada = new Visitor(server.url);
    const token = (await ada.hold('/checkout')).csrfToken;
    const held = await ada.send('PUT', '/checkout?item=7', { json: { quantity: 5, _token: token } });
    const page = held.page!;
    expect(page.queue.method).toBe('PUT');
    await release();

    const replay = await ada.post(page.queue.uri, replayForm(page));

    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<strong>PUT</strong>');
    expect(replay.text).toContain('<th>quantity</th><td>5</td>');
  });

  it('should refuse a replay before release and keep the place', async () => {
    const ada = new Visitor(server.url);
    const token = (await ada.hold('/checkout')).csrfToken;
    const page = await ada.hold('/checkout', { form: { quantity: '1', _token: token } });

    const early = await ada.post(page.queue.uri, replayForm(page));

    expect(early.status).toBe(409);
    expect(early.json.error.code).toBe('not_released');
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(1);
  });

  it("should refuse another session's uuid, a forged uuid, a wrong CSRF token, verb or target", async () => {
    const ada = new Visitor(server.url);
    const token = (await ada.hold('/checkout')).csrfToken;
    const page = await ada.hold('/checkout', { form: { quantity: '1', _token: token } });
    await release();
    const eve = new Visitor(server.url);
    const eveToken = (await eve.hold('/checkout')).csrfToken;

    const stolen = await eve.post('/checkout', { form: { uuid: page.queue.uuid, _token: eveToken } });
    const forged = await ada.post('/checkout', replayForm(page, { uuid: '00000000-0000-4000-8000-000000000000' }));
    const garbage = await ada.post('/checkout', replayForm(page, { uuid: 'not-a-uuid' }));
    const badToken = await ada.post('/checkout', replayForm(page, { _token: 'nope' }));
    const badVerb = await ada.post('/checkout', replayForm(page, { _method: 'DELETE' }));
    const badTarget = await ada.post('/checkout/other', replayForm(page));

    expect([stolen, forged, garbage, badToken, badVerb, badTarget].map((answer) => answer.status)).toEqual([
      403, 404, 400, 419, 400, 400,
    ]);
    expect(stolen.json.error.code).toBe('not_your_place');
    expect(forged.json.error.code).toBe('unknown_uuid');
    expect(badToken.json.error.code).toBe('csrf_mismatch');
    // None of these used up the held request: the real replay still works, once.
    expect((await ada.post('/checkout', replayForm(page))).status).toBe(200);
  });

  it('should refuse to replay a held GET through a form', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout?item=1');
    await release();

    const answer = await ada.post('/checkout?item=1', { form: { uuid: page.queue.uuid, _token: page.csrfToken } });

    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('get_replay');
  });
});
