import type { LiveSnapshot } from '../../server/domain/console/samples';

/** What the console draws of `GET /admin/report` (docs/drop-day.md#report). */
export interface RoomReport {
  readonly arrivals: number;
  readonly peakLine: number;
  readonly admitted: number;
  readonly abandoned: number;
  readonly waiting: number;
  readonly revoked: number;
  readonly replays: number;
  readonly botChecks: { readonly solved: number; readonly failed: number };
  readonly waits: { readonly p50: number; readonly p90: number; readonly p99: number } | null;
  readonly estimateError: { readonly median: number | null; readonly p90: number | null };
  readonly waitsByMinute: readonly number[];
  readonly errorsByMinute: readonly number[];
  readonly timeline: readonly { readonly at: string; readonly arrivals: number; readonly admitted: number; readonly line: number | null }[];
}

/** A call the server refused: its status and the error contract's code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The console's session: the CSRF token its calls that change something send. */
export interface ConsoleSession {
  readonly csrfToken: string;
}

async function call<T>(method: string, path: string, options: { body?: unknown; csrfToken?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.csrfToken !== undefined) headers['x-csrf-token'] = options.csrfToken;
  const response = await fetch(path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    credentials: 'same-origin',
  });
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  if (!response.ok) throw new ApiError(response.status, json.error?.code ?? 'unknown', json.error?.message ?? response.statusText);
  return json as T;
}

/** The admin API as the console calls it: a cookie session, and its CSRF token on every change. */
export const consoleApi = {
  /** The session the cookie carries, or undefined when signed out. */
  async session(): Promise<ConsoleSession | undefined> {
    try {
      return await call<ConsoleSession>('GET', '/admin/session');
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) return undefined;
      throw error;
    }
  },
  signIn: (token: string) => call<ConsoleSession>('POST', '/admin/session', { body: { token } }),
  signOut: (session: ConsoleSession) => call<void>('DELETE', '/admin/session', { csrfToken: session.csrfToken }),
  live: () => call<LiveSnapshot>('GET', '/admin/live'),
  report: (room: string) => call<RoomReport>('GET', `/admin/report?room=${encodeURIComponent(room)}`),
  pause: (session: ConsoleSession, room: string, paused: boolean) =>
    call<{ paused: boolean }>('POST', `/admin/${paused ? 'pause' : 'resume'}?room=${encodeURIComponent(room)}`, { csrfToken: session.csrfToken }),
  release: (session: ConsoleSession, room: string, count: number) =>
    call<{ released: string[] }>('POST', '/admin/release', { body: { count, room }, csrfToken: session.csrfToken }),
  message: (session: ConsoleSession, room: string, text: string | null) =>
    call<unknown>(text === null ? 'DELETE' : 'PUT', `/admin/message?room=${encodeURIComponent(room)}`, {
      ...(text !== null && { body: { text } }),
      csrfToken: session.csrfToken,
    }),
  limits: (session: ConsoleSession, room: string, limits: { activeLimit?: number | null; releasePerMinute?: number | null }) =>
    call<unknown>('POST', '/admin/limits', { body: { ...limits, room }, csrfToken: session.csrfToken }),
};
