/** The load generator's HTTP side: keep-alive requests with their timing, and error counts. */
import http from 'node:http';

/** `ms`: from the request going out on a socket to the end of the answer; `queuedMs`: how long it waited here for a free socket. */
export type Answer = { status: number; headers: http.IncomingHttpHeaders; body: string; ms: number; queuedMs: number };

/**
 * One request over `agent`'s keep-alive sockets, read whole. An idempotent request that met a
 * kept-alive socket the server had just closed (it closes idle ones after its keep-alive timeout,
 * and the page's own pace leaves sockets idle about that long) is sent again, as browsers do: that
 * is the client's race, not the server's failure. After a stall several pooled sockets may have
 * gone idle together, so it is sent again as long as it meets another, up to 8 times.
 */
export async function request(
  agent: http.Agent,
  base: URL,
  method: string,
  path: string,
  headers: http.OutgoingHttpHeaders = {},
  body?: string,
): Promise<Answer> {
  for (let retries = 0; ; retries++) {
    try {
      return await new Promise<Answer>((resolve, reject) => {
        const created = performance.now();
        let sent = created;
        const length = body === undefined ? {} : { 'content-length': Buffer.byteLength(body) };
        const outgoing = http.request({ host: base.hostname, port: base.port, method, path, agent, headers: { ...headers, ...length } }, (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk)).on('error', reject);
          response.on('end', () => {
            const [status, body, ms] = [response.statusCode ?? 0, Buffer.concat(chunks).toString(), performance.now() - sent];
            resolve({ status, headers: response.headers, body, ms, queuedMs: sent - created });
          });
        });
        outgoing.once('socket', () => (sent = performance.now()));
        outgoing.on('error', (error) => reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket })));
        outgoing.end(body);
      });
    } catch (error) {
      const stale = (error as { reusedSocket?: boolean }).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
      if (!stale || (method !== 'GET' && method !== 'HEAD') || retries >= 8) throw error;
    }
  }
}

/** Counts errors by kind, keeping one example of each. */
export class Errors {
  /** By kind; over IPC, a copy. */
  readonly counts: Record<string, { count: number; example: string }> = {};
  total = 0;

  add(kind: string, example = ''): void {
    this.total++;
    (this.counts[kind] ??= { count: 0, example: example.slice(0, 300) }).count++;
  }
}

/** An error's code (ECONNRESET…) or message, to group errors by kind; a kept-alive socket's said so. */
export const errorKind = (error: unknown): string =>
  ((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error)) +
  ((error as { reusedSocket?: boolean })?.reusedSocket ? ' (on a kept-alive socket)' : '');

/** What the poller needs to poll queue_info as a visitor: its uuid, its session cookie, and the origin of the server that holds it. */
export type PolledVisitor = { readonly uuid: string; readonly cookie: string; readonly target: string };

/** queue_info for one visitor, with its cookie, as the page's fetch sends it. */
export function queueInfo(agent: http.Agent, base: URL, visitor: PolledVisitor): Promise<Answer> {
  return request(agent, base, 'GET', `/queue/info/${visitor.uuid}`, { cookie: visitor.cookie, accept: 'application/json' });
}
