/** The load generator's HTTP side: keep-alive requests with their timing, and error counts. */
import http from 'node:http';

export interface Answer {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
  /** From the request going out on a socket to the end of the answer. */
  readonly ms: number;
  /** How long the request waited in the generator for a free socket. */
  readonly queuedMs: number;
}

/** Times an idempotent request is sent again after meeting a kept-alive socket the server had closed. */
const STALE_SOCKET_RETRIES = 8;

/**
 * One request over `agent`'s keep-alive sockets, read whole. An idempotent request that met a
 * kept-alive socket the server had just closed (it closes idle ones after its keep-alive timeout,
 * and the page's own pace leaves sockets idle about that long) is sent again, as browsers do: that
 * is the client's race, not a failure of the server. After a stall several pooled sockets may have
 * gone idle together, so it is sent again as long as it meets another such socket (the agent drops
 * each one), up to `STALE_SOCKET_RETRIES`, not only once.
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
      return await requestOnce(agent, base, method, path, headers, body);
    } catch (error) {
      const stale = (error as { reusedSocket?: boolean }).reusedSocket && (error as NodeJS.ErrnoException).code === 'ECONNRESET';
      if (!stale || (method !== 'GET' && method !== 'HEAD') || retries >= STALE_SOCKET_RETRIES) throw error;
    }
  }
}

function requestOnce(agent: http.Agent, base: URL, method: string, path: string, headers: http.OutgoingHttpHeaders = {}, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const created = performance.now();
    let sent = created;
    const outgoing = http.request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: Buffer.concat(chunks).toString(),
            ms: performance.now() - sent,
            queuedMs: sent - created,
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.once('socket', () => {
      sent = performance.now();
    });
    outgoing.on('error', (error) => reject(Object.assign(error, { reusedSocket: outgoing.reusedSocket })));
    outgoing.end(body);
  });
}

/** Counts errors by kind, keeping one example of each. */
export class Errors {
  private readonly counts = new Map<string, { count: number; example: string }>();

  add(kind: string, example = ''): void {
    const known = this.counts.get(kind);
    if (known) known.count++;
    else this.counts.set(kind, { count: 1, example: example.slice(0, 300) });
  }

  get total(): number {
    let sum = 0;
    for (const { count } of this.counts.values()) sum += count;
    return sum;
  }

  snapshot(): Record<string, { count: number; example: string }> {
    return Object.fromEntries(this.counts);
  }
}

/** An error's code (ECONNRESET…) or message, to group errors by kind; a kept-alive socket's said so. */
export const errorKind = (error: unknown): string =>
  ((error as NodeJS.ErrnoException)?.code ?? (error as Error)?.message ?? String(error)) +
  ((error as { reusedSocket?: boolean })?.reusedSocket ? ' (on a kept-alive socket)' : '');

/** Runs `worker` on `concurrency` lanes until it returns false. */
export async function lanes(concurrency: number, worker: () => Promise<boolean>): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (await worker()) {
        // The worker does the work; the lane only repeats it.
      }
    }),
  );
}

/** What the poller needs to poll queue_info as a visitor: its uuid, its session cookie, and the server it talks to. */
export interface PolledVisitor {
  readonly uuid: string;
  readonly cookie: string;
  /** Origin of the server that holds it (the poller's own target when unset). */
  readonly target?: string;
}

/** queue_info for one visitor, with its cookie, as the page's fetch sends it. */
export function queueInfo(agent: http.Agent, base: URL, visitor: PolledVisitor): Promise<Answer> {
  return request(agent, base, 'GET', `/queue/info/${visitor.uuid}`, { cookie: visitor.cookie, accept: 'application/json' });
}
