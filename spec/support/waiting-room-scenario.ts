import type { Browser } from 'playwright-core';
import { launchBrowser } from './browser';
import { openVisitor, type Visitor, type VisitorOptions } from './visitor-page';
import { startWaitingRoom, type WaitingRoomServer } from './waiting-room-server';

export interface WaitingRoomScenario {
  /** The real server, started once for the scenario group. */
  readonly server: WaitingRoomServer;
  /** Opens a visitor (its own browser context) on the server; closed with the scenario. */
  visit(options?: VisitorOptions): Promise<Visitor>;
}

/**
 * The test file's one Chromium, launched by its first scenario group and shared by the others
 * (each visitor has a browser context of its own: no cookie or storage carries over), closed
 * after the file's last test. Registered when a test file imports this module, at its top level.
 */
let fileBrowser: Promise<Browser> | undefined;
afterAll(async () => {
  const browser = fileBrowser;
  fileBrowser = undefined;
  // A launch that failed has failed its group's beforeAll already.
  await (await browser?.catch(() => undefined))?.close();
});

/**
 * One scenario group: the real server started with `env` (a function when the environment
 * must be worked out first), the file's Chromium, and the visitors the tests open — the server
 * and the visitors closed after the group, even when a test failed half-way.
 */
export function useWaitingRoom(env: Record<string, string> | (() => Promise<Record<string, string>>)): WaitingRoomScenario {
  let server: WaitingRoomServer | undefined;
  let browser: Browser | undefined;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    server = await startWaitingRoom(typeof env === 'function' ? await env() : env);
    browser = await (fileBrowser ??= launchBrowser());
  });

  afterAll(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await server?.close();
  });

  return {
    get server() {
      if (!server) throw new Error('The waiting room is started in beforeAll: use it inside a test.');
      return server;
    },
    async visit(options) {
      if (!server || !browser) throw new Error('The waiting room is started in beforeAll: use it inside a test.');
      const visitor = await openVisitor(browser, server.url, options);
      visitors.push(visitor);
      return visitor;
    },
  };
}
