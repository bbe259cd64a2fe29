import { UUID_PATTERN } from '@waiting-room/streams/contract';
import { ADMIN_TOKEN, startServer, type StartedWithOrigin } from './support/server';
import { Visitor } from './support/visitor';

/** Every route of the waiting room's own, by method and OpenAPI path. */
const OWN_ROUTES = [
  'post /queue/request',
  'get /queue/info/{uuid}',
  'post /pusher/auth',
  'get /assets/{*}',
  'post /api/{projectId}/envelope/',
  'post /apps/{appId}/events',
  'post /apps/{appId}/batch_events',
  'get /metrics',
  'get /admin/',
  'post /admin/session',
  'get /admin/session',
  'delete /admin/session',
  'get /admin/live',
  'post /admin/pusher/auth',
  'get /admin/openapi.json',
  'get /admin/stats',
  'get /admin/rooms',
  'post /admin/release',
  'post /admin/pause',
  'post /admin/resume',
  'post /admin/limits',
  'get /admin/errors',
];

describe('the OpenAPI document', () => {
  let server: StartedWithOrigin;
  beforeAll(async () => {
    server = await startServer({ ACTIVE_LIMIT: '1' });
  });
  afterAll(() => server.close());

  const document = async () => {
    const answer = await fetch(`${server.url}/admin/openapi.json`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(answer.status).toBe(200);
    return (await answer.json()) as { openapi: string; paths: Record<string, Record<string, any>> };
  };

  it('should be served to admins only', async () => {
    expect((await fetch(`${server.url}/admin/openapi.json`)).status).toBe(401);
  });

  it('should describe every route of its own, each with its error answers in the contract', async () => {
    const doc = await document();
    expect(doc.openapi).toMatch(/^3\./);
    const described = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(described).toEqual(expect.arrayContaining(OWN_ROUTES));
    for (const route of OWN_ROUTES) {
      const [method, path] = route.split(' ') as [string, string];
      const operation = doc.paths[path][method]!;
      expect({ route, summary: typeof operation.summary }).toEqual({ route, summary: 'string' });
    }
    const queueRequest = doc.paths['/queue/request'].post;
    expect(Object.keys(queueRequest.responses).sort()).toEqual(['202', '400', '403', '404', '419']);
    expect(queueRequest.responses['419'].content['application/json'].schema.properties.error.required).toEqual(['code', 'message']);
    expect(queueRequest.requestBody.content['application/json'].schema.properties.uuid.pattern).toBe(UUID_PATTERN.source);
  });

  it('should describe the forwarded routes without a body schema, so that no body is read for the origin', async () => {
    const doc = await document();
    const forwarded = doc.paths['/{*}'];
    expect(Object.keys(forwarded)).toEqual(expect.arrayContaining(['get', 'post', 'put', 'delete']));
    expect(forwarded.post.summary).toBe('Forwarded to the origin');
    expect(forwarded.post.requestBody).toBeUndefined();
    const sent = JSON.stringify({ any: 'json', at: ['all'] });
    await new Visitor(server.url).post('/orders', { raw: sent, type: 'application/json' });
    expect(server.origin.at('/orders').at(-1)?.body.toString()).toBe(sent);
  });

  it('should answer input its schemas refuse in the error contract, naming the field', async () => {
    const ada = new Visitor(server.url);
    await new Visitor(server.url).get('/checkout');
    const page = await ada.hold();
    const badUuid = await ada.post('/queue/request', { json: { _token: page.csrfToken, uuid: 'not a uuid' } });
    const noUuid = await ada.post('/queue/request', { form: { _token: page.csrfToken } });
    const events = await fetch(`${server.url}/admin/release`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ count: 2, extra: true }),
    });

    expect([badUuid.status, noUuid.status, events.status]).toEqual([400, 400, 400]);
    expect(badUuid.json).toEqual({ error: { code: 'bad_uuid', message: "The uuid field must be 1 to 100 letters, digits, '-' or '_'." } });
    expect(noUuid.json).toEqual({ error: { code: 'bad_uuid', message: "The uuid field must be 1 to 100 letters, digits, '-' or '_'." } });
    expect(await events.json()).toEqual({ error: { code: 'bad_request', message: 'The body has a field this route does not take: "extra".' } });
  });
});
