import path from 'node:path';
import { loadConfig } from '../../server/process/config';
import { demoShop } from '../../demo/origin';
import { start, type Started, type StartOptions } from '../../server/process/start';
import { builtAssetsDir } from './run-build';

/** The admin bearer token of every server the end-to-end tests start. */
export const E2E_ADMIN_TOKEN = 'e2e-admin-token-of-24-characters';

/** What `GET /admin/stats` answers. */
export interface AdminStats {
  readonly waiting: number;
  readonly active: number;
  readonly released: number;
  readonly releasePerMinute: number;
  readonly paused: boolean;
}

/** One report the local error sink received, as `GET /admin/errors` lists it. */
export interface SinkReport {
  readonly message: string;
  readonly level: string;
  readonly release: string | null;
  readonly receivedAt: string;
}

/** A running reference server and its admin API. */
export interface WaitingRoomServer {
  readonly url: string;
  /** Same-origin absolute URL of `path`. */
  at(path: string): string;
  stats(): Promise<AdminStats>;
  /** `POST /admin/release`: the uuids released. `silent` publishes no release event. */
  release(count: number, options?: { silent?: boolean }): Promise<string[]>;
  errors(): Promise<SinkReport[]>;
  /**
   * Admits `count` sessions, each a client with its own cookie asking for the protected page,
   * so that the room is full (`ACTIVE_LIMIT` of them) before a visitor arrives.
   */
  fill(count: number, path?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the real server exactly as `npm start` does (`start(loadConfig(env))`, nothing
 * replaced), on a free port, with a known admin token and quiet logs. `env` is any of the
 * documented variables (ACTIVE_LIMIT, RELEASE_PER_MINUTE, PUSHER_CLIENT_PORT, PAGE_TIMINGS…).
 * The waiting page and its assets are this run's build (the global set-up builds them).
 * `options.clock` gives the queue another clock than the real one; `options.logStream` takes its
 * log (with LOG_LEVEL set in `env`).
 */
export async function startWaitingRoom(env: Record<string, string> = {}, options: Pick<StartOptions, 'clock' | 'logStream'> = {}): Promise<WaitingRoomServer> {
  const config = loadConfig({ ADMIN_TOKEN: E2E_ADMIN_TOKEN, LOG_LEVEL: 'silent', ...env, PORT: '0' });
  // The page as this run built it (`run-build.ts`), where `npm start` would read public/assets.
  const assetsDir = builtAssetsDir();
  const started: Started = await start({ ...config, assetsDir, pageHtmlPath: path.join(assetsDir, 'waiting.html') }, { defaultOrigin: demoShop, ...options });
  const adminCall = async (method: 'GET' | 'POST', route: string, body?: unknown): Promise<unknown> => {
    const response = await fetch(`${started.url}/admin/${route}`, {
      method,
      headers: {
        authorization: `Bearer ${started.adminToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} /admin/${route} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };

  return {
    url: started.url,
    at: (path) => started.url + path,
    stats: async () => (await adminCall('GET', 'stats')) as AdminStats,
    release: async (count, options = {}) => {
      const answer = (await adminCall('POST', 'release', { count, silent: options.silent ?? false })) as {
        released: string[];
      };
      return answer.released;
    },
    errors: async () => (await adminCall('GET', 'errors')) as SinkReport[],
    async fill(count, path = '/checkout') {
      for (let i = 0; i < count; i++) {
        // No cookie: each request is a new session, admitted while there is room.
        const response = await fetch(started.url + path);
        const body = await response.text();
        if (response.status !== 200 || body.includes('id="waiting-room-config"')) {
          throw new Error(`Session ${i + 1} of ${count} was not admitted to ${path} (status ${response.status}).`);
        }
      }
    },
    close: () => started.close(),
  };
}
