import net from 'node:net';

/**
 * A local port nothing listens on: one the system just handed out and took back, so a
 * connection to it is refused at once (rather than timing out like a filtered address).
 */
export async function closedPort(host = '127.0.0.1'): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
