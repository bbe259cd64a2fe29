import { useWaitingRoom } from '../support/waiting-room-scenario';

const ACTIVE_LIMIT = 1;

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly type: string | null;
  readonly body: string;
}

describe("a single-page app's fetch to a protected path, through the gateway", () => {
  const room = useWaitingRoom({ ACTIVE_LIMIT: String(ACTIVE_LIMIT), RELEASE_PER_MINUTE: '0' });

  test('gets 503 with Retry-After and the waiting page config as JSON while held, and passes to the shop once released', async () => {
    const { server } = room;
    const { page } = await room.visit();
    await page.goto(server.at('/'));
    await server.fill(ACTIVE_LIMIT);

    const call = (): Promise<Answer> =>
      page.evaluate(async () => {
        const response = await fetch('/checkout?item=7', { headers: { accept: 'application/json' } });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          type: response.headers.get('content-type'),
          body: await response.text(),
        };
      });

    const held = await call();
    expect(held.status).toBe(503);
    expect(Number(held.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(held.type).toBe('application/json; charset=utf-8');
    const config = JSON.parse(held.body) as { queue: { uuid: string; uri: string; method: string; position: number } };
    expect(config.queue).toMatchObject({ uri: '/checkout?item=7', method: 'GET', position: 1 });

    const info = await page.evaluate(async (uuid) => (await fetch(`/queue/info/${uuid}`)).json(), config.queue.uuid);
    expect(info).toMatchObject({ position: 1 });

    expect(await server.release(1)).toEqual([config.queue.uuid]);
    const through = await call();
    expect(through.status).toBe(200);
    expect(through.body).toContain('<h1>Checkout</h1>');
    expect(through.body).toContain('<th>item</th><td>7</td>');
  }, 60_000);
});
