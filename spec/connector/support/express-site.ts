import type { AddressInfo } from 'node:net';
import express, { type RequestHandler } from 'express';
import { waitingRoom } from '@waiting-room/connector/express';

/** A site of Express 5 protected by the connector, counting the requests it served admitted. */
export interface ExpressSite {
  readonly url: string;
  /** Requests to the checkout served with a pass. */
  readonly admitted: () => number;
  close(): Promise<void>;
}

/**
 * The Express app of docs/adopt.md: `/checkout` needs a pass, `/checkout/done` ends the
 * admission (`revoke()`), `/` is open. Listens on loopback, on a free port. `waitingRoom` gives
 * the room's address at the first request: a site is allowed by the room by its address, known
 * once it listens, and the room's own address is known once the room listens.
 */
export async function startExpressSite(options: {
  waitingRoom: () => string;
  secret: string;
  room?: string;
  /** The name the site is reached by (`localhost` makes it another site than the room's 127.0.0.1). */
  hostname?: string;
}): Promise<ExpressSite> {
  let admitted = 0;
  const app = express();
  let protect: RequestHandler | undefined;
  app.use((request, response, next) => {
    protect ??= waitingRoom({
      waitingRoom: options.waitingRoom(),
      room: options.room ?? 'default',
      secret: options.secret,
      protect: ['/checkout'],
    });
    return protect(request, response, next);
  });
  app.get('/', (_request, response) => {
    response.send('<h1>Home</h1>');
  });
  app.get('/checkout', (request, response) => {
    admitted += 1;
    response.send(`<h1>Checkout</h1><p id="admitted">admitted ${admitted} until ${request.waitingRoom?.pass.expiresAt}</p>`);
  });
  app.get('/checkout/done', async (request, response) => {
    const revoked = await request.waitingRoom!.revoke();
    response.send(`<h1>Thank you</h1><p id="revoked">${revoked}</p>`);
  });
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.hostname ?? '127.0.0.1'}:${port}`,
    admitted: () => admitted,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
