import type { Started } from '../../server/start';
import { ManualClock } from './support/manual-clock';
import { startServer, stats } from './support/server';
import { Visitor, type Answer } from './support/visitor';
import type { PageConfig } from '../../server/page-config';

/** Every bad request gets a JSON error with the right status, and costs nobody their place. */
describe('bad input', () => {
  let server: Started;
  let ada: Visitor;
  let page: PageConfig;

  beforeEach(async () => {
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
      expect(await stats(server)).toMatchObject({ waiting: 1 });
    } finally {
      await server.close();
    }
  });

  const expectError = (answer: Answer, status: number, code: string) => {
    expect({ status: answer.status, code: answer.json?.error?.code }).toEqual({ status, code });
    expect(typeof answer.json.error.message).toBe('string');
    expect(answer.text).not.toMatch(/\bat .*\(|node_modules|\.ts:\d+/);
  };

  it('should answer malformed JSON and non-object bodies with 400', async () => {
    expectError(await ada.post('/queue/request', { raw: '{"uuid": ', type: 'application/json' }), 400, 'malformed_json');
    expectError(await ada.post('/queue/request', { raw: '', type: 'application/json' }), 400, 'malformed_json');
    expectError(await ada.post('/queue/request', { json: [page.queue.uuid] }), 400, 'bad_request');
    expectError(await ada.post('/queue/request', { json: 'text' }), 400, 'bad_request');
    expectError(
      await ada.post('/queue/request', { json: { _token: page.csrfToken, uuid: 42 } }),
      400,
      'bad_uuid',
    );
  });

  it('should refuse a body too large, held or not, with 413', async () => {
    const big = 'x'.repeat(70 * 1024);
    expectError(await ada.post('/checkout', { form: { note: big, _token: page.csrfToken } }), 413, 'payload_too_large');
    expectError(await ada.post('/queue/request', { json: { note: big } }), 413, 'payload_too_large');
  });

  it('should refuse unsupported body types with 415', async () => {
    expectError(await ada.post('/checkout', { raw: '<order/>', type: 'application/xml' }), 415, 'unsupported_media_type');
  });

  it('should answer queue_request with 419, 404 and 403 as the contract says', async () => {
    const request = (visitor: Visitor, fields: Record<string, unknown>) =>
      visitor.post('/queue/request', { json: { _token: page.csrfToken, user_id: 0, uuid: page.queue.uuid, ...fields } });
    const stranger = new Visitor(server.url);
    const strangerToken = await stranger.csrfToken();

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
    const home = await eve.get('/');

    expectError(answer, 419, 'session_expired');
    expect(home.status).toBe(200);
    expect(home.headers.getSetCookie()).toHaveLength(1);
    expect(eve.cookie).not.toBe(ada.cookie);
  });

  it('should answer unknown routes and the demo forms with JSON errors', async () => {
    expectError(await ada.get('/nowhere'), 404, 'not_found');
    expectError(await ada.post('/login', { form: { name: 'Ada', _token: 'forged' } }), 419, 'csrf_mismatch');
    expectError(await ada.post('/login', { form: { name: '', _token: page.csrfToken } }), 400, 'bad_name');
    expectError(await ada.post('/logout', { form: {} }), 419, 'csrf_mismatch');
    expectError(await ada.post('/checkout', { form: { quantity: '1' } }), 419, 'csrf_mismatch');
  });
});
