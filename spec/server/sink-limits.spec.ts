import { gzipSync } from 'node:zlib';
import type { Started } from '../../server/process/start';
import { sentryScopeFor } from './support/sentry';
import { admin, startServer } from './support/server';

/** A Sentry envelope carrying `events`, each an `event` item with its length. */
function envelopeOf(...events: object[]): string {
  const lines = [JSON.stringify({ event_id: 'a'.repeat(32), sent_at: new Date().toISOString() })];
  for (const event of events) {
    const payload = JSON.stringify(event);
    lines.push(JSON.stringify({ type: 'event', length: Buffer.byteLength(payload) }), payload);
  }
  return lines.join('\n');
}

function post(server: Started, body: string | Buffer<ArrayBuffer>, headers: Record<string, string> = {}, path = '/api/1/envelope/'): Promise<Response> {
  return fetch(server.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/x-sentry-envelope', ...headers },
    body,
  });
}

/** `GET /admin/errors` as sent, and as read. */
async function listing(server: Started): Promise<{ bytes: number; reports: any[] }> {
  const response = await admin(server, 'GET', 'errors');
  const text = await response.text();
  return { bytes: Buffer.byteLength(text), reports: JSON.parse(text) };
}

/** The server's log, line by line (JSON, as pino writes it). */
class LogLines {
  readonly lines: string[] = [];
  write(line: string): void {
    this.lines.push(line);
  }
  text(): string {
    return this.lines.join('');
  }
}

const occurrences = (text: string, part: string) => text.split(part).length - 1;

/** The message of the attack that found the defect: 0.9 MB. */
const ATTACK_BYTES = 900_000;

describe('the local error sink, bounded in bytes and in rate', () => {
  let server: Started | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('should keep a 0.9 MB message cut to ERROR_MESSAGE_BYTES, on a character boundary, marked as cut', async () => {
    server = await startServer();
    // 3 bytes a character: the 1024-byte cap cannot fall on a boundary by chance.
    const message = '€'.repeat(ATTACK_BYTES / 3);
    const level = 'warning'.repeat(1000);
    const release = 'r'.repeat(100_000);

    const response = await post(server, envelopeOf({ message, level, release }));

    expect(response.status).toBe(200);
    const [report] = (await listing(server)).reports;
    expect(Buffer.byteLength(report.message)).toBeLessThanOrEqual(1024);
    expect(report.message).toMatch(/^€+… \[cut, 900000 bytes in all\]$/);
    expect(report.cut).toBe(true);
    expect(Buffer.byteLength(report.level)).toBeLessThanOrEqual(16);
    expect(Buffer.byteLength(report.release)).toBeLessThanOrEqual(128);
    expect(Object.keys(report).sort()).toEqual(['cut', 'level', 'message', 'receivedAt', 'release']);
  });

  it.each([
    ['the defaults (1 KiB a message, 256 KiB in all, 100 reports)', {}],
    ['16 KiB messages: the byte cap binds before the count', { ERROR_MESSAGE_BYTES: '16384' }],
    ['a small log', { ERROR_LOG_BYTES: '8192' }],
  ])(
    'should keep GET /admin/errors within ERROR_LOG_BYTES after 120 reports of 0.9 MB, the newest kept: %s',
    async (_name, env: Record<string, string>) => {
      // Each report from its own address: the rate limit is not what bounds the log here.
      server = await startServer({ TRUST_PROXY: 'true', ...env });
      const totalBytes = Number(env.ERROR_LOG_BYTES ?? 256 * 1024);
      const filler = 'x'.repeat(ATTACK_BYTES);

      for (let i = 0; i < 120; i++) {
        const response = await post(server, envelopeOf({ message: `report ${i}: ${filler}` }), {
          'x-forwarded-for': `10.0.${i >> 8}.${i & 255}`,
        });
        expect(response.status).toBe(200);
      }

      const { bytes, reports } = await listing(server);
      expect(bytes).toBeLessThanOrEqual(totalBytes + 64);
      expect(reports.length).toBeGreaterThan(0);
      expect(reports.length).toBeLessThanOrEqual(100);
      const numbers = reports.map((report) => Number(/^report (\d+): /.exec(report.message)?.[1]));
      // The newest, in order, with nothing missing between them.
      expect(numbers).toEqual(Array.from({ length: reports.length }, (_, k) => 120 - reports.length + k));
      expect(reports.every((report) => report.cut === true)).toBe(true);
    },
    60_000,
  );

  it('should log each report once, with its message as kept', async () => {
    const log = new LogLines();
    server = await startServer({ LOG_LEVEL: 'warn' }, { logStream: log });
    const long = `long-report-7f3a ${'y'.repeat(50_000)}`;

    await post(server, envelopeOf({ message: long }, { message: 'short-report-91c2' }));

    const text = log.text();
    expect(occurrences(text, 'long-report-7f3a')).toBe(1);
    expect(occurrences(text, 'short-report-91c2')).toBe(1);
    const line = log.lines.find((entry) => entry.includes('long-report-7f3a'))!;
    expect(line.length).toBeLessThan(1024 + 512);
    expect(line).toContain('[cut, 50017 bytes in all]');
    expect(JSON.parse(line)).toMatchObject({ level: 40, report: { level: 'error', release: null, cut: true } });
  });

  it('should answer the 11th envelope a minute from one address 429 with Retry-After and the error contract, while another address gets through', async () => {
    server = await startServer({ TRUST_PROXY: 'true' });
    const from = (address: string) => ({ 'x-forwarded-for': address });

    for (let i = 0; i < 10; i++) {
      expect((await post(server, envelopeOf({ message: `report ${i}` }), from('203.0.113.7'))).status).toBe(200);
    }
    const refused = await post(server, envelopeOf({ message: 'one too many' }), from('203.0.113.7'));
    // The other URL the SDK may use counts for the same address.
    const otherUrl = await post(server, envelopeOf({ message: 'one too many' }), from('203.0.113.7'), '/api/1/envelope');
    const other = await post(server, envelopeOf({ message: 'another visitor' }), from('203.0.113.8'));

    expect(refused.status).toBe(429);
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(await refused.json()).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    expect(otherUrl.status).toBe(429);
    expect(other.status).toBe(200);
    const messages = (await listing(server)).reports.map((report) => report.message);
    expect(messages).toHaveLength(11);
    expect(messages).not.toContain('one too many');
    expect(messages.at(-1)).toBe('another visitor');
  });

  it('should not let X-Forwarded-For escape the limit when the proxy is not trusted', async () => {
    server = await startServer({ ERROR_REPORTS_PER_MINUTE: '3' });

    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push((await post(server, envelopeOf({ message: `m${i}` }), { 'x-forwarded-for': `198.51.100.${i}` })).status);
    }

    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  it('should count an envelope of many events as one POST and keep its first 10 events', async () => {
    server = await startServer({ ERROR_REPORTS_PER_MINUTE: '2' });
    const events = Array.from({ length: 25 }, (_, i) => ({ message: `event ${i}` }));

    const first = await post(server, envelopeOf(...events));
    const second = await post(server, envelopeOf({ message: 'second envelope' }));
    const third = await post(server, envelopeOf({ message: 'third envelope' }));

    expect(await first.json()).toEqual({ received: 10 });
    expect([second.status, third.status]).toEqual([200, 429]);
    expect((await listing(server)).reports.map((report) => report.message)).toEqual([...events.slice(0, 10).map((event) => event.message), 'second envelope']);
  });

  it("should make the Sentry SDK back off: it obeys the 429's Retry-After", async () => {
    server = await startServer();
    let sent = 0;
    const countingFetch: typeof fetch = (input, init) => {
      sent++;
      return fetch(input, init);
    };
    const scope = sentryScopeFor(server, countingFetch);

    for (let i = 0; i < 13; i++) {
      scope.captureMessage(`Websoket KO - unavailable ${i}`, 'error');
      await scope.getClient()!.flush(5000);
    }

    // 10 taken, the 11th answered 429, the last two never sent.
    expect(sent).toBe(11);
    expect((await listing(server)).reports).toHaveLength(10);
  });

  describe('what parsing one envelope may cost', () => {
    const QUICKLY_MS = 1500;

    const timed = async (send: () => Promise<Response>) => {
      const began = performance.now();
      const response = await send();
      const body = await response.json();
      return { status: response.status, body, ms: performance.now() - began };
    };

    it('should refuse a gzip bomb with 413 as soon as it inflates past 4 MiB', async () => {
      server = await startServer();
      // 800 MiB in 50 gzip members of 16 MiB each, under the 1 MiB body limit.
      const member = gzipSync(Buffer.alloc(16 * 1024 * 1024, ' '), { level: 9 });
      const bomb = Buffer.concat(Array.from({ length: 50 }, () => member));
      expect(bomb.length).toBeLessThan(1024 * 1024);

      const answer = await timed(() => post(server!, bomb, { 'content-encoding': 'gzip' }));

      expect(answer.status).toBe(413);
      expect(answer.body.error.code).toBe('payload_too_large');
      expect(answer.ms).toBeLessThan(QUICKLY_MS);
      expect((await listing(server)).reports).toEqual([]);
    });

    it('should refuse an envelope of 100,000 tiny items quickly, having parsed only the first ones', async () => {
      server = await startServer();
      const item = `${JSON.stringify({ type: 'event' })}\n${JSON.stringify({ message: 'tiny' })}\n`;
      const envelope = gzipSync(`{}\n${item.repeat(100_000)}`);

      const answer = await timed(() => post(server!, envelope, { 'content-encoding': 'gzip' }));

      expect(answer.status).toBe(400);
      expect(answer.body.error).toEqual({ code: 'bad_envelope', message: expect.stringMatching(/at most 100 items/) });
      expect(answer.ms).toBeLessThan(QUICKLY_MS);
      expect((await listing(server)).reports).toEqual([]);
    });

    it('should refuse an item header of 900 KB without parsing it', async () => {
      server = await startServer();
      const header = JSON.stringify({ type: 'attachment', filename: 'f'.repeat(ATTACK_BYTES) });
      const envelope = `{}\n${header}\n${JSON.stringify({ type: 'event' })}\n{"message":"behind a huge header"}`;

      const answer = await timed(() => post(server!, envelope));

      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('bad_envelope');
      expect(answer.ms).toBeLessThan(QUICKLY_MS);
      expect((await listing(server)).reports).toEqual([]);
    });
  });
});
