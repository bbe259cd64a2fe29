import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The app's credentials, as Pusher Channels names them. */
export interface AppCredentials {
  readonly appId: string;
  readonly key: string;
  readonly secret: string;
}

/** HMAC-SHA256 of `text` with the app secret, in hex. */
export function sign(secret: string, text: string): string {
  return createHmac('sha256', secret).update(text).digest('hex');
}

/**
 * Constant-time comparison of two strings, their lengths included: both are hashed to 32 bytes
 * first, so a wrong guess costs the same whether it is too short, too long or off by one byte.
 */
export function sameText(a: string, b: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(a), digest(b)) && a === b;
}

/**
 * The `auth` value that lets `socketId` subscribe to a private channel: `key:signature`
 * where the signature covers `socket_id:channel_name` (and `:channel_data` for presence).
 */
export function channelAuth(app: AppCredentials, socketId: string, channel: string, channelData?: string): string {
  const text = channelData === undefined ? `${socketId}:${channel}` : `${socketId}:${channel}:${channelData}`;
  return `${app.key}:${sign(app.secret, text)}`;
}

/** The `auth` value of `pusher:signin`: the signature covers `socket_id::user::user_data`. */
export function userAuth(app: AppCredentials, socketId: string, userData: string): string {
  return `${app.key}:${sign(app.secret, `${socketId}::user::${userData}`)}`;
}

/** True when `auth` is exactly what `channelAuth` would give. */
export function isValidChannelAuth(app: AppCredentials, socketId: string, channel: string, auth: unknown, channelData?: string): boolean {
  return typeof auth === 'string' && sameText(auth, channelAuth(app, socketId, channel, channelData));
}

/** The body's MD5, as the HTTP API's `body_md5` carries it. */
export function bodyMd5(body: string): string {
  return createHash('md5').update(body).digest('hex');
}

/**
 * The HTTP API's `auth_signature`: HMAC-SHA256 of the method, the path and the query
 * parameters other than the signature, lower-cased keys in order, values not URL-encoded.
 */
export function requestSignature(secret: string, method: string, path: string, query: Readonly<Record<string, string>>): string {
  const params = Object.entries(query)
    .filter(([key]) => key !== 'auth_signature')
    .map(([key, value]) => [key.toLowerCase(), value] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, value]) => `${key}=${value}`)
    .join('&');
  return sign(secret, [method.toUpperCase(), path, params].join('\n'));
}
