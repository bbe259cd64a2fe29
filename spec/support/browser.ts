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

/**
 * Freezes every page of `browser` as a phone's system suspends a browser in the background: its
 * renderer processes stopped (SIGSTOP), so no script, timer or handler of theirs runs, while the
 * browser's network process goes on receiving what the server sends, delivered once they run
 * again. Chromium's own freeze cannot be had under a DevTools client (it skips attached pages);
 * this is the same from the page's side. Resolves to the thaw, which sends SIGCONT.
 */
export async function freezePages(browser: Browser): Promise<() => void> {
  const session = await browser.newBrowserCDPSession();
  const { processInfo } = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  await session.detach();
  const renderers = processInfo.filter((info) => info.type === 'renderer').map((info) => info.id);
  if (renderers.length === 0) throw new Error('The browser has no renderer process to freeze.');
  for (const pid of renderers) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of renderers) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone with its browser.
      }
    }
  };
}
