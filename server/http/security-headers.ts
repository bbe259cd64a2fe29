import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** `'sha256-…'`: a CSP source that lets the inline `<style>` (or `<script>`) element holding exactly `css` apply (or run). */
export function styleHash(css: string): string {
  return `'sha256-${createHash('sha256').update(css, 'utf8').digest('base64')}'`;
}

/**
 * The policy of every page the waiting room writes (the waiting page, the error pages, the verify
 * page): scripts from this origin, and inline only the `scripts` named by their hash, so that
 * nothing injected runs (the page's config is a JSON `<script>` element, which is never run);
 * styles from this origin, and inline only the `styles` named by their hash; never framed (a framed waiting page would take a place); no
 * plugins, no `<base>`. Connections stay open to any http(s) and ws(s) host: the realtime server
 * (PUSHER_CLIENT_HOST, Pusher Channels) and Sentry (SENTRY_DSN) may live elsewhere. There is no
 * `form-action`: the origin's answer to a replayed form may redirect to another site (a payment
 * provider), which Chromium checks against it.
 */
export function pagePolicy(styles: readonly string[] = [], scripts: readonly string[] = []): string {
  const hashes = (inline: readonly string[]) => inline.map((text) => ` ${styleHash(text)}`).join('');
  return [
    "default-src 'self'",
    `script-src 'self'${hashes(scripts)}`,
    `style-src 'self'${hashes(styles)}`,
    "img-src 'self' data:",
    "connect-src 'self' http: https: ws: wss:",
    "worker-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The contents of the inline `<style>` elements of `html`. */
export function inlineStyles(html: string): string[] {
  return [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((found) => found[1] ?? '');
}

/** The contents of the inline `<script>` elements of `html` that run: those without attributes (a JSON `<script>` has a type). */
export function inlineScripts(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((found) => found[1] ?? '');
}

/** On everything the waiting room answers itself: never read as another type than it says. */
export const NOSNIFF = { 'x-content-type-options': 'nosniff' } as const;

/** The headers of a page of ours, besides its policy: never framed, and no referrer to anyone (the held address has its query). */
const PAGE_HEADERS = { 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer' } as const;

/**
 * The security headers an answer of `contentType` gets: `nosniff` always; for a page, also
 * `policy` (or, when a page brings none, the default one, which lets the error page's style
 * apply), `X-Frame-Options: DENY` and `Referrer-Policy: no-referrer`.
 */
export function securityHeaders(contentType: string | undefined, policy: string): Record<string, string> {
  const page = contentType?.toLowerCase().startsWith('text/html') === true;
  return page ? { ...NOSNIFF, 'content-security-policy': policy, ...PAGE_HEADERS } : { ...NOSNIFF };
}

/**
 * Adds `securityHeaders` to every answer of `app` that the waiting room writes itself, the
 * headers a route set already kept (the console has its own policy). The origin's answers, which
 * `fromOrigin` names, pass untouched: they are the site's own business.
 */
export function installSecurityHeaders(app: FastifyInstance, defaultPolicy: string, fromOrigin: (reply: FastifyReply) => boolean): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!fromOrigin(reply)) {
      const contentType = reply.getHeader('content-type');
      for (const [name, value] of Object.entries(securityHeaders(typeof contentType === 'string' ? contentType : undefined, defaultPolicy))) {
        if (!reply.hasHeader(name)) reply.header(name, value);
      }
    }
    done(null, payload);
  });
}
