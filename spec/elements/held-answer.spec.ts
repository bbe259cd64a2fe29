/**
 * @jest-environment node
 */
import { readHeldAnswer } from '../../elements/held-answer';

const config = {
  queue: { uuid: '1f0e3dad-9990-4c42-9b6d-4b2f2a6c6f10', uri: '/checkout', method: 'GET', position: 3 },
  csrfToken: 'token',
  routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
  realtime: { key: 'key', cluster: 'mt1' },
};

const answer = (status: number, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(config), { status, headers: { 'content-type': 'application/json', ...headers } });

describe('readHeldAnswer: which answers are the gateway holding the request', () => {
  it.each([200, 202, 429, 503])('should take a %i marked Waiting-Room: held as held', async (status) => {
    const held = await readHeldAnswer(answer(status, { 'waiting-room': 'held' }), 'https://shop.example/checkout');

    expect(held?.config.queue.uuid).toBe(config.queue.uuid);
    expect(held?.origin).toBe('https://shop.example');
  });

  it('should take an unmarked 503 with a page config as held, as gateways before the header answered', async () => {
    expect(await readHeldAnswer(answer(503), 'https://shop.example/checkout')).not.toBeNull();
  });

  it.each([200, 202, 429])("should leave an unmarked %i alone: the site's own answer", async (status) => {
    expect(await readHeldAnswer(answer(status), 'https://shop.example/checkout')).toBeNull();
  });
});
