import { ManualClock } from './support/manual-clock';
import { startServer, stats, type StartedWithOrigin } from './support/server';
import { Visitor, type Answer } from './support/visitor';
import type { PageConfigJson } from '@waiting-room/streams/contract';

/** Every bad request gets a JSON error with the right status, and costs nobody their place. */
describe('bad input', () => {
  let server: StartedWithOrigin;
  let ada: Visitor;
  let page: PageConfigJson;
  /** Places in line once the test is done: Ada's, and any a test gives a visitor of its own. */
  let waiting: number;

  beforeEach(async () => {
    waiting = 1;
    server = await startServer({ ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0' }, { clock: new ManualClock() });
    await new Visitor(server.url).get('/checkout');
    ada = new Visitor(server.url);
    page = await ada.hold();
  });
  afterEach(async () => {
    // Whatever happened, the server still serves and Ada still has her place. The server is
    // closed even when that check fails, or jest would wait for it for ever.
    try {
      expect((await ada.queueInfo(page.queue.uuid)).json).toEqual({ position: 1, estimated: 1, ticket: 1, served: 0 });
      expect(await stats(server)).toMatchObject({ waiting });
    } finally {
      await server.close();
    }
  });

  const expectError = (answer: Answer, status: number, code: string) => {
    expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status, code });
    expect(typeof answer.json.error.message).toBe('string');
    // No stack frame ("at fn (file:line:column)"), nothing of the server's files.
    expect(answer.text).not.toMatch(/\bat .*\(.*:\d+:\d+\)|node_modules|\.ts:\d+/);
  };

  it('should answer malformed JSON and non-object bodies with 400', async () => {
    expectError(await ada.post('/queue/request', { raw: '{"uuid": ', type: 'application/json' }), 400, 'malformed_json');
    expectError(await ada.post('/queue/request', { raw: '', type: 'application/json' }), 400, 'malformed_json');
    expectError(await ada.post('/queue/request', { json: [page.queue.uuid] }), 400, 'bad_request');
    expectError(await ada.post('/queue/request', { json: 'text' }), 400, 'bad_request');
    expectError(await ada.post('/queue/request', { json: { _token: page.csrfToken, uuid: '../42' } }), 400, 'bad_uuid');
  });

  it('should refuse a body too large, held or not, with 413', async () => {
    const big = 'x'.repeat(70 * 1024);
    expectError(await ada.post('/checkout', { form: { note: big } }), 413, 'payload_too_large');
    expectError(await ada.post('/queue/request', { json: { note: big } }), 413, 'payload_too_large');
    expect(server.origin.at('/checkout')).toHaveLength(1);
  });

  it('should refuse unsupported body types on its own routes with 415, and hold a protected request whatever its type', async () => {
    expectError(await ada.post('/queue/request', { raw: '<order/>', type: 'application/xml' }), 415, 'unsupported_media_type');
    const held = await ada.post('/checkout', { raw: '<order/>', type: 'application/xml' });

    expect(held.page?.queue).toEqual({ ...page.queue, uri: '/checkout', method: 'POST' });
    // Only the first visitor's GET, admitted, reached the origin.
    expect(server.origin.at('/checkout').map((one) => one.method)).toEqual(['GET']);
  });

  it('should answer queue_request with 419, 404 and 403 as the contract says', async () => {
    const request = (visitor: Visitor, fields: Record<string, unknown>) =>
      visitor.post('/queue/request', { json: { _token: page.csrfToken, user_id: 0, uuid: page.queue.uuid, ...fields } });
    // A stranger with a session (and a place) of their own, behind Ada.
    const stranger = new Visitor(server.url);
    const strangerToken = (await stranger.hold()).csrfToken;
    waiting = 2;

    expectError(await request(ada, { _token: 'forged' }), 419, 'csrf_mismatch');
    expectError(await request(ada, { _token: undefined }), 419, 'csrf_mismatch');
    expectError(await request(new Visitor(server.url), {}), 419, 'session_expired');
    expectError(await request(ada, { uuid: '00000000-0000-4000-8000-000000000000' }), 404, 'unknown_uuid');
    expectError(await request(stranger, { _token: strangerToken }), 403, 'not_your_place');
    expectError(await request(ada, { user_id: 7 }), 403, 'wrong_user');
    expect((await ada.queueRequest(page)).status).toBe(202);
  });

  it('should answer queue_info for unknown uuids with 404', async () => {
    expectError(await ada.queueInfo('00000000-0000-4000-8000-000000000000'), 404, 'unknown_uuid');
    expectError(await ada.queueInfo('not-a-uuid'), 404, 'unknown_uuid');
  });

  it('should treat a tampered session cookie as no session', async () => {
    const eve = new Visitor(server.url);
    eve.cookie = ada.cookie.replace(/.(.)$/, (_, last: string) => `.${last === 'A' ? 'B' : 'A'}`);

    const answer = await eve.post('/queue/request', {
      json: { _token: page.csrfToken, user_id: 0, uuid: page.queue.uuid },
    });
    const held = await eve.get('/checkout');
    waiting = 2;

    expectError(answer, 419, 'session_expired');
    expect(held.status).toBe(200);
    expect(held.headers.getSetCookie()).toHaveLength(1);
    expect(eve.cookie).not.toBe(ada.cookie);
    // A session of her own: a new place behind Ada's, never Ada's.
    expect(held.page?.queue.uuid).not.toBe(page.queue.uuid);
    expect(held.page?.queue.position).toBe(2);
  });

  it('should answer unknown paths of its own with JSON errors, and hold or forward any other form without checking its token', async () => {
    expectError(await ada.get('/queue/nowhere'), 404, 'not_found');
    expectError(await ada.post('/admin/nowhere', { form: { name: 'Ada' } }), 404, 'not_found');
    const elsewhere = await ada.get('/nowhere');
    const forged = await ada.post('/nowhere', { form: { name: 'Ada', _token: 'forged' } });
    const checkout = await ada.post('/checkout', { form: { quantity: '1' } });
    // Neither this session's token nor a uuid of its own: not the page's replay form.
    const forgedReplay = await ada.post('/checkout', { form: { uuid: '0b7c5e1a-3f4d-4c2b-9a8e-123456789abc', _token: 'forged' } });

    expect(server.origin.at('/queue/nowhere')).toEqual([]);
    expect(server.origin.at('/admin/nowhere')).toEqual([]);
    expect({ status: elsewhere.status, text: elsewhere.text }).toEqual({ status: 200, text: 'origin: GET /nowhere' });
    expect({ status: forged.status, text: forged.text }).toEqual({ status: 200, text: 'origin: POST /nowhere' });
    expect(server.origin.at('/nowhere').at(-1)?.body.toString()).toBe('name=Ada&_token=forged');
    // Not the page's replay form (not this session's token): an ordinary request, held like any other.
    expect(checkout.page?.queue).toEqual({ ...page.queue, uri: '/checkout', method: 'POST' });
    expect(forgedReplay.page?.queue).toEqual({ ...page.queue, uri: '/checkout', method: 'POST' });
    expect(server.origin.at('/checkout').map((one) => one.method)).toEqual(['GET']);
  });
});
