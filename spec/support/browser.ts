import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium: `.ci/system-deps` installs it; Playwright's own browser downloads are not used. */
export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a quiet, headless, throwaway browser: no sandbox (containers have no user
 * namespaces), no GPU, and nothing that talks to Google's services in the background, so the
 * only traffic is the page's own.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/**
 * Launches Debian's Chromium headless. `chromium.launch` always starts from a new temporary
 * profile (deleted when the browser closes), so no cookie, cache or service worker carries over
 * from an earlier run. Fails with an installation hint when the browser is missing. `extraArgs`
 * go after `CHROMIUM_ARGS`.
 */
export async function launchBrowser(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the end-to-end tests drive Debian's Chromium. ` +
        'Install it with `sudo apt-get install -y chromium` (or run `bash .ci/system-deps`).',
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS, ...extraArgs] });
}
