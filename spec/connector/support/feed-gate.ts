import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { REVOKED_ROUTE } from '@waiting-room/connector';

/**
 * The waiting room as a connector reaches it, through a forwarder on loopback that can hold the
 * answers of the revocation feed: a feed slow to answer, while the waiting room itself is not.
 */
export interface FeedGate {
  readonly url: string;
  /** Reads of the feed that came through, answered or held. */
  reads(): number;
  /** Holds the feed's answers from now on. */
  hold(): void;
  /** Answers the held reads, and those that come after. */
  open(): void;
  close(): Promise<void>;
}

export async function startFeedGate(waitingRoom: string): Promise<FeedGate> {
  let reads = 0;
  let opened: Promise<void> = Promise.resolve();
  let open = () => {};
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const feed = request.url?.startsWith(REVOKED_ROUTE) === true;
      if (feed) reads += 1;
      void (feed ? opened : Promise.resolve())
        .then(async () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(request.headers)) if (name !== 'host' && typeof value === 'string') headers.set(name, value);
          const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
          const answer = await fetch(`${waitingRoom}${request.url}`, { method: request.method, headers, body, redirect: 'manual' });
          const out: Record<string, string | string[]> = {};
          answer.headers.forEach((value, name) => {
            if (name !== 'set-cookie' && name !== 'content-encoding' && name !== 'content-length' && name !== 'transfer-encoding') out[name] = value;
          });
          const cookies = answer.headers.getSetCookie();
          if (cookies.length > 0) out['set-cookie'] = cookies;
          response.writeHead(answer.status, out);
          response.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    reads: () => reads,
    hold() {
      opened = new Promise((resolve) => (open = resolve));
    },
    open() {
      open();
      opened = Promise.resolve();
    },
    close: () =>
      new Promise((resolve) => {
        open();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
