import { BrowserClient, Scope, defaultStackParser, makeFetchTransport } from '@sentry/browser';
import type { Started } from '../../../server/process/start';

/**
 * The real Sentry browser SDK, as the page sets it up, reporting to the server's local sink:
 * every event sent (sample rate 1), through `fetchImpl` when given (to watch what it sends).
 */
export function sentryScopeFor(server: Started, fetchImpl?: typeof fetch): Scope {
  const client = new BrowserClient({
    dsn: `http://public@127.0.0.1:${server.port}/1`,
    transport: fetchImpl ? (options) => makeFetchTransport(options, fetchImpl) : makeFetchTransport,
    stackParser: defaultStackParser,
    integrations: [],
    sampleRate: 1,
    release: '1.0.0',
  });
  const scope = new Scope();
  scope.setClient(client);
  client.init();
  return scope;
}
