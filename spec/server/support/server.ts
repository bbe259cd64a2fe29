import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENGLISH } from '../../../locales';
import { loadConfig, type ServerConfig } from '../../../server/process/config';
import { start, type StartOptions, type Started } from '../../../server/process/start';
import { builtAssetsDir } from '../../support/run-build';
import { startTestOrigin, type TestOrigin } from './origin';

export const ADMIN_TOKEN = 'test-admin-token-of-24-chars';

/**
 * A stand-in for the built waiting page: the server tests prove the server, so they need only
 * what the server writes into `public/assets/waiting.html`: the config element, and the English
 * texts it writes in the visitor's language (`server/http/page.ts`).
 */
export function standInPage(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'waiting-room-page-'));
  const file = path.join(dir, 'waiting.html');
  writeFileSync(
    file,
    `<!doctype html>\n<html lang="en">\n<head><title>${ENGLISH['page.title']}</title></head><body><main id="root">` +
      `<p>${ENGLISH['page.loading']}</p></main><noscript><p>${ENGLISH['html.noscript']}</p></noscript>` +
      '<script id="waiting-room-config" type="application/json">{}</script></body></html>',
  );
  return file;
}

/** The configuration `npm start` would read from `env`, on a free port, quiet, with the stand-in page and this run's built assets (the console, the verify page). */
export function testConfig(env: Record<string, string> = {}, overrides: Partial<ServerConfig> = {}): ServerConfig {
  return {
    ...loadConfig({ PORT: '0', ADMIN_TOKEN, LOG_LEVEL: 'silent', ...env }),
    assetsDir: builtAssetsDir(),
    pageHtmlPath: standInPage(),
    ...overrides,
  };
}

/** A running server in front of a test origin that records what reaches it. */
export interface StartedWithOrigin extends Started {
  readonly origin: TestOrigin;
}

/**
 * Starts the real server exactly as `npm start` does, with test settings, in front of a test
 * origin (`origin.ts`) unless `env.UPSTREAM` names another.
 */
export async function startServer(
  env: Record<string, string> = {},
  options: StartOptions = {},
  overrides: Partial<ServerConfig> = {},
): Promise<StartedWithOrigin> {
  const origin = await startTestOrigin();
  try {
    const started = await start(testConfig({ UPSTREAM: origin.url, ...env }, overrides), options);
    return {
      ...started,
      origin,
      async close() {
        await started.close();
        await origin.close();
      },
    };
  } catch (error) {
    await origin.close();
    throw error;
  }
}

/** Calls the admin API with the test token. */
export async function admin(server: Started, method: 'GET' | 'POST', route: string, body?: unknown): Promise<Response> {
  return fetch(`${server.url}/admin/${route}`, {
    method,
    headers: {
      authorization: `Bearer ${server.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The admin stats. */
export async function stats(server: Started): Promise<Record<string, unknown>> {
  return (await admin(server, 'GET', 'stats')).json() as Promise<Record<string, unknown>>;
}

/** Waits until `check` holds, polling; fails with `what` after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
