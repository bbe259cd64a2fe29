import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the site behind the Worker served. */
export interface Served {
  readonly method: string;
  readonly url: string;
  readonly cookie: string | undefined;
  readonly body: string;
}

/** The site behind the Worker, on loopback, recording every request its handlers run for. */
export interface WorkerOrigin {
  readonly url: string;
  readonly served: Served[];
  /** Requests to the checkout it served (the Worker lets only admitted ones through). */
  admitted(): number;
  close(): Promise<void>;
}

/**
 * A plain site knowing nothing of the waiting room but its revoke command: `/` is home,
 * `/checkout…` a page counting its visits, and `/checkout/done` (or `/revoke`, open) ends the
 * visitor's admission by answering with `Waiting-Room-Command: revoke`, as an origin behind the
 * gateway does.
 */
export async function startWorkerOrigin(): Promise<WorkerOrigin> {
  const served: Served[] = [];
  let admitted = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      served.push({ method: request.method ?? '', url: request.url ?? '', cookie: request.headers.cookie, body: Buffer.concat(chunks).toString() });
      response.setHeader('content-type', 'text/html; charset=utf-8');
      if (request.url === '/checkout/done' || request.url === '/revoke') {
        response.setHeader('waiting-room-command', 'revoke');
        response.end('<h1>Thank you</h1>');
      } else if (request.url?.startsWith('/checkout')) {
        admitted += 1;
        response.end(`<h1>Checkout</h1><p id="admitted">admitted ${admitted}</p>`);
      } else {
        response.end('<h1>Home</h1>');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    served,
    admitted: () => admitted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
