import { gzipSync } from 'node:zlib';
import type { Started } from '../../server/process/start';
import { sentryScopeFor } from './support/sentry';
import { admin, startServer, waitFor } from './support/server';

describe('the local error-report sink', () => {
  let server: Started;

  beforeEach(async () => {
    server = await startServer();
  });
  afterEach(() => server.close());

  const errors = async () => (await admin(server, 'GET', 'errors')).json() as Promise<any[]>;

  it("should receive the Sentry SDK's envelopes and list their messages", async () => {
    // The page's setup: the DSN the server hands it, sample rate and release as in its config.
    const scope = sentryScopeFor(server);

    scope.captureMessage('Websoket KO - unavailable', 'error');
    scope.captureException(new TypeError('config is malformed'));
    expect(await scope.getClient()!.flush(5000)).toBe(true);
    await waitFor(async () => (await errors()).length === 2, 'both reports');

    expect(await errors()).toEqual([
      { message: 'Websoket KO - unavailable', level: 'error', release: '1.0.0', receivedAt: expect.any(String) },
      { message: 'TypeError: config is malformed', level: 'error', release: '1.0.0', receivedAt: expect.any(String) },
    ]);
  });

  it('should accept a gzipped envelope and ignore items that are not events', async () => {
    const envelope = [
      JSON.stringify({ event_id: 'a'.repeat(32), sent_at: new Date().toISOString() }),
      JSON.stringify({ type: 'client_report' }),
      JSON.stringify({ timestamp: 1, discarded_events: [] }),
      JSON.stringify({ type: 'event', length: Buffer.byteLength('{"message":"é\\nà","level":"warning"}') }),
      '{"message":"é\\nà","level":"warning"}',
    ].join('\n');

    const response = await fetch(`${server.url}/api/1/envelope/`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-sentry-envelope', 'content-encoding': 'gzip' },
      body: gzipSync(envelope),
    });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: 1 });
    expect((await errors()).map(({ message, level, release }) => ({ message, level, release }))).toEqual([
      { message: 'é\nà', level: 'warning', release: null },
    ]);
  });

  it('should refuse a malformed envelope with 400 and keep serving', async () => {
    const post = (body: string) => fetch(`${server.url}/api/1/envelope/`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });

    const notJson = await post('not an envelope');
    const badLength = await post('{}\n{"type":"event","length":999}\n{}');
    const badEvent = await post('{}\n{"type":"event"}\n[1,2]');

    expect([notJson.status, badLength.status, badEvent.status]).toEqual([400, 400, 400]);
    expect((await notJson.json()).error.code).toBe('bad_envelope');
    expect(await errors()).toEqual([]);
  });
});
