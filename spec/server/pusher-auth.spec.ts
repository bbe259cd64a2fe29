import { createHmac } from 'node:crypto';
import type { Started } from '../../server/process/start';
import { ManualClock } from './support/manual-clock';
import { startServer } from './support/server';
import { Visitor } from './support/visitor';

const SECRET = 'pusher-auth-secret';

describe('POST /pusher/auth', () => {
  let server: Started;

  beforeAll(async () => {
    server = await startServer(
      { ACTIVE_LIMIT: '1', RELEASE_PER_MINUTE: '0', PUSHER_SECRET: SECRET },
      {
        clock: new ManualClock(),
      },
    );
    await new Visitor(server.url).get('/checkout');
  });
  afterAll(() => server.close());

  const auth = (visitor: Visitor, token: string, fields: Record<string, string>) => visitor.post('/pusher/auth', { form: fields }, { 'x-csrf-token': token });

  it("should sign the session's own private channel with HMAC-SHA256 of socket_id:channel_name", async () => {
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const page = await ada.hold();
    const channel = `private-App.User.${page.user.id}.${page.queue.uuid}`;

    const answer = await auth(ada, page.csrfToken, { socket_id: '123.456', channel_name: channel });

    const signature = createHmac('sha256', SECRET).update(`123.456:${channel}`).digest('hex');
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({ auth: `waiting-room-key:${signature}` });
  });

  it('should refuse any other channel with 403', async () => {
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const page = await ada.hold();
    const anonymous = new Visitor(server.url);
    const anonymousPage = await anonymous.hold();
    const other = `private-App.User.${page.user.id + 1}.${page.queue.uuid}`;
    const statusFor = async (visitor: Visitor, token: string, channel: string) =>
      (await auth(visitor, token, { socket_id: '1.2', channel_name: channel })).status;

    expect(
      await Promise.all([
        statusFor(ada, page.csrfToken, other),
        statusFor(ada, page.csrfToken, `private-App.User.${page.user.id}.00000000-0000-4000-8000-000000000000`),
        statusFor(ada, page.csrfToken, `private-App.User.${page.user.id}.${anonymousPage.queue.uuid}`),
        statusFor(ada, page.csrfToken, 'private-admin'),
        statusFor(anonymous, anonymousPage.csrfToken, `private-App.User.0.${anonymousPage.queue.uuid}`),
      ]),
    ).toEqual([403, 403, 403, 403, 403]);
  });

  it('should refuse a missing CSRF token, session or socket id', async () => {
    const ada = new Visitor(server.url);
    await ada.signIn('Ada');
    const page = await ada.hold();
    const channel = `private-App.User.${page.user.id}.${page.queue.uuid}`;

    const noToken = await auth(ada, 'forged', { socket_id: '1.2', channel_name: channel });
    const noSession = await auth(new Visitor(server.url), page.csrfToken, { socket_id: '1.2', channel_name: channel });
    const badSocket = await auth(ada, page.csrfToken, { socket_id: 'abc', channel_name: channel });
    const noChannel = await auth(ada, page.csrfToken, { socket_id: '1.2' });

    expect([noToken, noSession, badSocket, noChannel].map((answer) => [answer.status, answer.json.error.code])).toEqual([
      [419, 'csrf_mismatch'],
      [419, 'session_expired'],
      [400, 'bad_socket_id'],
      [400, 'bad_channel'],
    ]);
  });
});
