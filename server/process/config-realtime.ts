import { randomBytes } from 'node:crypto';
import type { ConfigEnv } from '../config/environment';
import { ConfigError } from './config-env';
import type { PusherConfig } from './config-types';

/** The default embedded app; an outside server needs all three of id, key and secret. */
const EMBEDDED_APP = { appId: 'waiting-room', key: 'waiting-room-key' };

/**
 * The embedded Pusher-protocol server, or an outside one (PUSHER_APP_ID, PUSHER_KEY and
 * PUSHER_SECRET together, with PUSHER_HOST or PUSHER_CLUSTER).
 */
export function pusherConfig(v: ConfigEnv): PusherConfig {
  const { PUSHER_APP_ID: appId, PUSHER_KEY: key, PUSHER_SECRET: secret, PUSHER_HOST: host, PUSHER_CLUSTER: cluster } = v;
  const outside = appId !== undefined || key !== undefined || host !== undefined;
  if (!outside) {
    return {
      embedded: true,
      ...EMBEDDED_APP,
      // The embedded server shares its secret with nobody, so a fresh one each start is fine.
      secret: secret ?? randomBytes(24).toString('base64url'),
      secretGenerated: secret === undefined,
      useTLS: false,
      cluster: 'local',
    };
  }
  if (appId === undefined || key === undefined || secret === undefined) {
    throw new ConfigError('An outside Pusher-protocol server needs PUSHER_APP_ID, PUSHER_KEY and PUSHER_SECRET together.');
  }
  if (host === undefined && cluster === undefined) {
    throw new ConfigError('Set PUSHER_HOST (soketi, Reverb) or PUSHER_CLUSTER (Pusher Channels).');
  }
  return {
    embedded: false,
    appId,
    key,
    secret,
    secretGenerated: false,
    host,
    port: v.PUSHER_PORT,
    useTLS: v.PUSHER_USE_TLS,
    cluster: cluster ?? 'local',
  };
}
