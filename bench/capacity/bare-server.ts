/**
 * The platform's ceiling: a bare Node `http` server answering every request with one constant
 * JSON body, shaped like a queue_info answer. Same machine, same load generator as ours.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveRequests } from './ipc';
import type { ServerReady } from './server';

const body = Buffer.from(JSON.stringify({ position: 4321, estimated: 12 }));
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length, 'cache-control': 'no-store' });
  response.end(body);
});
server.keepAliveTimeout = 72_000;

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo;
  const ready: ServerReady = { url: `http://127.0.0.1:${port}`, port, pid: process.pid };
  serveRequests(ready, {
    cpu: () => process.cpuUsage(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
});
