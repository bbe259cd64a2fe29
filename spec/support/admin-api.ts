import type { AdminStats, SinkReport } from './waiting-room-server';

/** The admin API of a server reached by its URL (e.g. a server process), and the sessions that fill it. */
export interface AdminApi {
  stats(): Promise<AdminStats>;
  errors(): Promise<SinkReport[]>;
  /**
   * Admits `count` sessions, each a client with its own cookie asking for the protected page,
   * so that the room is full (`ACTIVE_LIMIT` of them) before a visitor arrives.
   */
  fill(count: number, path?: string): Promise<void>;
}

/** The admin API of the server at `url`, called with the bearer `token` (its ADMIN_TOKEN). */
export function adminApi(url: string, token: string): AdminApi {
  const get = async (route: string): Promise<unknown> => {
    const response = await fetch(`${url}/admin/${route}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET /admin/${route} answered ${response.status}: ${text}`);
    return JSON.parse(text);
  };
  return {
    stats: async () => (await get('stats')) as AdminStats,
    errors: async () => (await get('errors')) as SinkReport[],
    async fill(count, path = '/checkout') {
      for (let i = 0; i < count; i++) {
        // No cookie: each request is a new session, admitted while there is room.
        const response = await fetch(url + path, { signal: AbortSignal.timeout(10_000) });
        const body = await response.text();
        if (response.status !== 200 || body.includes('id="waiting-room-config"')) {
          throw new Error(`Session ${i + 1} of ${count} was not admitted to ${path} (status ${response.status}).`);
        }
      }
    },
  };
}
