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
 * One scenario group: the real server started with `env` (a function when the environment
 * must be worked out first), one Chromium, and the visitors the tests open — all closed after
 * the group, even when a test failed half-way.
 */
export function useWaitingRoom(env: Record<string, string> | (() => Promise<Record<string, string>>)): WaitingRoomScenario {
  let server: WaitingRoomServer | undefined;
  let browser: Browser | undefined;
  const visitors: Visitor[] = [];

  beforeAll(async () => {
    server = await startWaitingRoom(typeof env === 'function' ? await env() : env);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await Promise.all(visitors.splice(0).map((visitor) => visitor.close()));
    await browser?.close();
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
