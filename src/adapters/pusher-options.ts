import type { Options } from 'pusher-js';
import { REALTIME, type PageConfig } from '@waiting-room/streams/contract';

/** The channel authorization endpoint (pusher-js's default path, spec section 7). */
export const AUTH_ENDPOINT = '/pusher/auth';

/** pusher-js options for the page config (ARCHITECTURE "Realtime contract"). */
export function createPusherOptions({ realtime, csrfToken }: PageConfig): Options {
  // The HTTP fallback transports use their own host settings; without these they would
  // leave a self-hosted server for Pusher's sockjs cluster.
  const host = realtime.host ? { wsHost: realtime.host, httpHost: realtime.host, httpPort: realtime.port, httpsPort: realtime.port } : {};
  return {
    cluster: realtime.cluster,
    ...host,
    wsPort: realtime.port,
    wssPort: realtime.port,
    forceTLS: realtime.forceTLS,
    enabledTransports: [...REALTIME.enabledTransports],
    activityTimeout: REALTIME.activityTimeout,
    pongTimeout: REALTIME.pongTimeout,
    unavailableTimeout: REALTIME.unavailableTimeout,
    channelAuthorization: { endpoint: AUTH_ENDPOINT, transport: 'ajax', headers: { 'X-CSRF-TOKEN': csrfToken } },
  };
}
