import type { Options } from 'pusher-js';
import { REALTIME } from '@waiting-room/streams/contract';
import type { HeldAnswer } from './held-answer';

/** Where pusher-js asks for a private channel's authorization (its own default path), on the gateway. */
export const AUTH_PATH = '/pusher/auth';

/** What the wait needs of a pusher-js event emitter (its connection, a channel). */
export interface Emitter {
  bind(event: string, callback: (data: unknown) => void): unknown;
  unbind(event: string, callback: (data: unknown) => void): unknown;
}

/** A pusher-js channel. */
export interface Channel extends Emitter {
  readonly subscribed: boolean;
}

/** What the wait needs of a pusher-js client: the real `Pusher` fits. */
export interface RealtimeClient {
  readonly connection: Emitter & { readonly state: string };
  subscribe(channelName: string): Channel;
  disconnect(): void;
}

/**
 * pusher-js options for a held answer's config, as the waiting page sets them (the specification's
 * transports and timeouts, the config's host, port and TLS), with the channel authorization on
 * the gateway, which may not be the page's own origin.
 */
export function realtimeOptions({ config, origin }: HeldAnswer): Options {
  const { realtime, csrfToken } = config;
  // The HTTP fallback transports have host settings of their own; without them they would
  // leave a self-hosted server for Pusher's own cluster.
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
    channelAuthorization: { endpoint: origin + AUTH_PATH, transport: 'ajax', headers: { 'X-CSRF-TOKEN': csrfToken } },
  };
}
