import type { Started } from '../../server/process/start';
import { Visitor } from '../server/support/visitor';
import { startServerProcess, type ServerProcess } from './server-process';

/** What every instance of one room shares: the admin token and the secrets sessions and channels are signed with. */
export const SHARED_SECRETS = {
  ADMIN_TOKEN: 'scale-out-admin-token-of-24-chars',
  SESSION_SECRET: 'scale-out-session-secret-0123456789abcdef',
  PUSHER_SECRET: 'scale-out-realtime-secret',
} as const;

/**
 * One server process of a scaled-out room. It has the shape of an in-process `Started`, so the
 * server tests' helpers (admin calls, pusher-js clients, channel authorization) work on it.
 */
export interface Instance extends Started {
  readonly process: ServerProcess;
  /** The environment it was started with (to start it again as it was). */
  readonly env: Record<string, string>;
  /** Calls its admin API. */
  admin(method: 'GET' | 'POST' | 'PUT' | 'DELETE', route: string, body?: unknown): Promise<Response>;
}

/**
 * Starts one instance as its own process with `env` and the shared secrets, on a free port or
 * on `port` (to start a stopped one again at the same address).
 */
export async function startInstance(env: Record<string, string>, port = 0): Promise<Instance> {
  const fullEnv = { ...SHARED_SECRETS, ...env };
  const process = await startServerProcess(fullEnv, port);
  return {
    process,
    env,
    url: process.url,
    port: process.port,
    adminToken: SHARED_SECRETS.ADMIN_TOKEN,
    close: async () => {
      await process.stop();
    },
    admin: (method, route, body) =>
      fetch(`${process.url}/admin/${route}`, {
        method,
        headers: {
          authorization: `Bearer ${SHARED_SECRETS.ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      }),
  };
}

/** Starts a stopped instance again, same port and environment (same Redis, same secrets). */
export function restartInstance(instance: Instance): Promise<Instance> {
  return startInstance(instance.env, instance.port);
}

/** The uuids an admin release on `instance` released (in `room`, the first when none), in the order it released them. */
export async function adminRelease(instance: Instance, count: number, silent = false, room?: string): Promise<string[]> {
  const answer = await instance.admin('POST', 'release', { count, silent, room });
  if (answer.status !== 200) throw new Error(`Admin release answered ${answer.status}: ${await answer.text()}`);
  return ((await answer.json()) as { released: string[] }).released;
}

/** `POST /admin/pause` or `/admin/resume`: the release loops of every instance stop or go on. */
export async function setPaused(instance: Instance, paused: boolean): Promise<void> {
  const answer = await instance.admin('POST', paused ? 'pause' : 'resume');
  if (answer.status !== 200) throw new Error(`Admin ${paused ? 'pause' : 'resume'} answered ${answer.status}`);
}

/** The same browser (same session cookie) reaching another instance, as a load balancer may send it. */
export function sameBrowserOn(visitor: Visitor, instance: Instance): Visitor {
  const other = new Visitor(instance.url);
  other.cookie = visitor.cookie;
  return other;
}
