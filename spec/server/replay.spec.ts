import type { PageConfigJson } from '@waiting-room/streams/contract';
import { ManualClock } from './support/manual-clock';
import type { Received } from './support/origin';
import { admin, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

describe('replay of held requests', () => {
  let server: StartedWithOrigin;

  beforeEach(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    await new Visitor(server.url).get('/checkout');
  });
  afterEach(() => server.close());

  const release = () => admin(server, 'POST', 'release', { count: 1 });

  /** What reached the origin at `path` other than GETs (the filler's and navigations). */
  const sentToOrigin = (path = '/checkout'): Received[] => server.origin.at(path).filter((one) => one.method !== 'GET');

  /** The hidden form the page submits (spec section 4). */
  const replayForm = (page: PageConfigJson, extra: Record<string, string> = {}) => ({
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
    const body = new URLSearchParams({ quantity: '3', note: '<b>gift</b> & "card"' }).toString();
    const page = await ada.hold('/checkout?item=42', { raw: body, type: 'application/x-www-form-urlencoded' });
    await release();

    const first = await ada.post(page.queue.uri, replayForm(page));
    const second = await ada.post(page.queue.uri, replayForm(page));

    expect(first.status).toBe(200);
    expect(first.text).toContain('a <strong>POST</strong> request');
    expect(first.text).toContain('<th>item</th><td>42</td>');
    expect(first.text).toContain('<th>quantity</th><td>3</td>');
    expect(first.text).toContain('<th>note</th><td>&lt;b&gt;gift&lt;/b&gt; &amp; &quot;card&quot;</td>');
    expect(first.text).not.toContain('<th>uuid</th>');
    expect(second.status).toBe(409);
    expect(second.json).toEqual({
      error: { code: 'already_replayed', message: 'This held request was already replayed.' },
    });
    // The origin got the held request once, byte for byte, and never the replay form itself.
    const received = sentToOrigin();
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/checkout?item=42' });
    expect(received[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(received[0].body.toString()).toBe(body);
  });

  it('should execute a held POST once when two replays race', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '1' } });
    await release();

    const answers = await Promise.all([1, 2, 3].map(() => ada.post(page.queue.uri, replayForm(page))));

    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect(sentToOrigin().map((one) => one.body.toString())).toEqual(['quantity=1']);
  });

  it('should replay another verb with _method and a JSON body', async () => {
    const ada = new Visitor(server.url);
    const held = await ada.send('PUT', '/checkout?item=7', { json: { quantity: 5 } });
    const page = held.page!;
    expect(page.queue.method).toBe('PUT');
    await release();

    const replay = await ada.post(page.queue.uri, replayForm(page));

    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<strong>PUT</strong>');
    expect(replay.text).toContain('Content-Type: application/json');
    expect(replay.text).toContain('<th>item</th><td>7</td>');
    const received = sentToOrigin();
    expect(received.map((one) => [one.method, one.url, one.headers['content-type'], one.body.toString()])).toEqual([
      ['PUT', '/checkout?item=7', 'application/json', '{"quantity":5}'],
    ]);
  });

  it('should refuse a replay before release and keep the place', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '1' } });

    const early = await ada.post(page.queue.uri, replayForm(page));

    expect(early.status).toBe(409);
    expect(early.json.error.code).toBe('not_released');
    expect((await ada.queueInfo(page.queue.uuid)).json.position).toBe(1);
    expect(sentToOrigin()).toEqual([]);
  });

  it("should refuse another session's uuid, a forged uuid, a wrong verb or target, and keep the held request", async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '1' } });
    await release();
    const eve = new Visitor(server.url);
    const eveToken = (await eve.hold('/checkout')).csrfToken;

    const stolen = await eve.post('/checkout', { form: { uuid: page.queue.uuid, _token: eveToken } });
    const forged = await ada.post('/checkout', replayForm(page, { uuid: '00000000-0000-4000-8000-000000000000' }));
    const badVerb = await ada.post('/checkout', replayForm(page, { _method: 'DELETE' }));
    const badTarget = await ada.post('/checkout/other', replayForm(page));

    expect([stolen, forged, badVerb, badTarget].map((answer) => answer.status)).toEqual([403, 404, 400, 400]);
    expect([stolen, forged, badVerb, badTarget].map((answer) => answer.json.error.code)).toEqual([
      'not_your_place',
      'unknown_uuid',
      'method_mismatch',
      'replay_target_mismatch',
    ]);
    expect(sentToOrigin()).toEqual([]);
    expect(sentToOrigin('/checkout/other')).toEqual([]);
    // None of these used up the held request: the real replay still works, once.
    const replay = await ada.post('/checkout', replayForm(page));
    expect(replay.status).toBe(200);
    expect(sentToOrigin().map((one) => one.body.toString())).toEqual(['quantity=1']);
  });

  it("should send a form with neither the session's token nor a uuid of its own, or with a malformed uuid, to the origin as it is, not as a replay, and keep the held request", async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '1' } });
    await release();
    const stranger = '0b7c5e1a-3f4d-4c2b-9a8e-123456789abc';

    const badToken = await ada.post('/checkout', replayForm(page, { uuid: stranger, _token: 'nope' }));
    const garbage = await ada.post('/checkout', replayForm(page, { uuid: 'not a uuid' }));

    // Ordinary requests of an admitted visitor: the origin answers them, and its own checks apply.
    expect(badToken.status).toBe(200);
    expect(badToken.text).toContain('<th>_token</th><td>nope</td>');
    expect(garbage.status).toBe(200);
    expect(garbage.text).toContain('<th>uuid</th><td>not a uuid</td>');
    expect(sentToOrigin().map((one) => one.body.toString())).toEqual([
      new URLSearchParams({ uuid: stranger, _token: 'nope' }).toString(),
      new URLSearchParams({ uuid: 'not a uuid', _token: page.csrfToken }).toString(),
    ]);
    // The held request was not given to either: the page's own replay still gets it, once.
    const replay = await ada.post('/checkout', replayForm(page));
    const again = await ada.post('/checkout', replayForm(page));
    expect(replay.status).toBe(200);
    expect(replay.text).toContain('<th>quantity</th><td>1</td>');
    expect(again.status).toBe(409);
    expect(
      sentToOrigin()
        .map((one) => one.body.toString())
        .slice(2),
    ).toEqual(['quantity=1']);
  });

  it("should replay a uuid of the session's own whatever the token, as a page opened before the visitor signed in at the site sends it", async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout', { form: { quantity: '4' } });
    await release();

    const replay = await ada.post('/checkout', replayForm(page, { _token: 'a-token-of-the-session-before' }));
    const again = await ada.post('/checkout', replayForm(page, { _token: 'a-token-of-the-session-before' }));

    expect(replay.status).toBe(200);
    expect(again.status).toBe(409);
    expect(sentToOrigin().map((one) => one.body.toString())).toEqual(['quantity=4']);
  });

  it('should refuse to replay a held GET through a form', async () => {
    const ada = new Visitor(server.url);
    const page = await ada.hold('/checkout?item=1');
    await release();

    const answer = await ada.post('/checkout?item=1', { form: { uuid: page.queue.uuid, _token: page.csrfToken } });

    expect(answer.status).toBe(400);
    expect(answer.json.error.code).toBe('get_replay');
    expect(sentToOrigin()).toEqual([]);
  });
});
