import type { ConnectorOptions } from './connector.js';
import { createWebConnector } from './web.js';

/**
 * Next.js middleware (`middleware.ts`, Edge runtime): answers a protected request without a pass,
 * and returns nothing for the others, which Next.js then routes as usual.
 *
 *     export const middleware = waitingRoom({ waitingRoom, room, secret, protect: ['/checkout'] });
 */
export function waitingRoom(options: ConnectorOptions): (request: Request) => Promise<Response | undefined> {
  const connector = createWebConnector(options);
  return (request) => connector.handle(request);
}
