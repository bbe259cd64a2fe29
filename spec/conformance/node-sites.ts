import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import { waitingRoom as expressWaitingRoom } from '@waiting-room/connector/express';
import { waitingRoom as fastifyWaitingRoom } from '@waiting-room/connector/fastify';
import { DOORS } from './table';
import { FEED_UNREAD, SECRET, WAITING_ROOM } from './support';

/** A site behind a connector whose handlers answer every path and method, and record that they ran. */
export interface RecordingSite {
  readonly port: number;
  /** Requests the site's handler answered, by the raw target it saw. */
  readonly ran: string[];
  close(): Promise<void>;
}

const options = { waitingRoom: WAITING_ROOM, room: DOORS.room, secret: SECRET, protect: DOORS.protect, log: FEED_UNREAD };

/**
 * Express 5 with `trust proxy` (as behind a load balancer) and the connector, then a handler for
 * everything: it serves any path, as a site whose router maps `/tickets.json` to `/tickets` would.
 */
export async function startExpressSite(): Promise<RecordingSite> {
  const ran: string[] = [];
  const app = express();
  app.set('trust proxy', true);
  app.use(expressWaitingRoom(options));
  app.use((request, response) => {
    ran.push(request.originalUrl);
    response.status(200).send('the site');
  });
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return {
    port: (server.address() as AddressInfo).port,
    ran,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Fastify 5 with `trustProxy` and the connector's hook, then a handler for every path and method, taking any body. */
export async function startFastifySite(): Promise<RecordingSite> {
  const ran: string[] = [];
  const app = Fastify({ trustProxy: true });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  app.addHook('onRequest', fastifyWaitingRoom(options));
  app.addHttpMethod('PROPFIND');
  const handler = async (request: { raw: { url?: string } }) => {
    ran.push(request.raw.url ?? '');
    return 'the site';
  };
  app.all('/', handler);
  app.all('/*', handler);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: (app.server.address() as AddressInfo).port, ran, close: () => app.close() };
}
