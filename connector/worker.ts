import type { ConnectorOptions } from './connector.js';
import { createWebConnector, type WebConnector } from './web.js';

/**
 * The Worker's bindings the connector reads (`[vars]` in wrangler.toml, the secret by
 * `wrangler secret put WAITING_ROOM_PASS_SECRET`). Options given in code win over them.
 */
export interface WaitingRoomEnv {
  /** The waiting room's public address, e.g. `https://queue.example.com`. */
  readonly WAITING_ROOM_URL?: string;
  /** The waiting room's PASS_SECRET: a secret binding, never a plain var. */
  readonly WAITING_ROOM_PASS_SECRET?: string;
  /** The room this site's visitors wait in; `default` when unset. */
  readonly WAITING_ROOM_ROOM?: string;
  /** Protected path prefixes, separated by commas (`/checkout,/tickets`); every path when unset. */
  readonly WAITING_ROOM_PROTECT?: string;
}

/** What a Worker's third argument offers (Cloudflare's `ExecutionContext`), as far as used here. */
export interface WorkerContext {
  waitUntil(promise: Promise<unknown>): void;
}

/** The connector's options, or some of them with the rest from the bindings, or a function of the bindings. */
export type WorkerOptions<Env> = Partial<ConnectorOptions> | ((env: Env) => Partial<ConnectorOptions>);

export interface WorkerHooks<Env> {
  /** Where requests that go on are sent: `fetch(request)` by default, the site behind the Worker's route. */
  readonly origin?: (request: Request, env: Env, context: WorkerContext) => Promise<Response> | Response;
}

/** A module Worker: `export default createWorker(...)`. */
export interface WaitingRoomWorker<Env> {
  fetch(request: Request, env: Env, context: WorkerContext): Promise<Response>;
}

/** A Host header that is a host and port: nothing that would end the authority of a URL made with it. */
const HOST = /^[^\s/\\?#@]+$/;

/** The answer header by which the origin ends the visitor's admission, as it does behind the gateway. */
export const COMMAND_HEADER = 'waiting-room-command';

/**
 * A Cloudflare Worker in front of a site: a protected request without a valid pass is answered
 * by the connector (a redirect to the waiting room, or a held API client's answer); every other
 * request goes on to the origin. When the origin's answer says `Waiting-Room-Command: revoke`
 * (a finished checkout), the Worker ends the visitor's admission at the waiting room and takes
 * the pass off the browser; the header itself never reaches the visitor.
 *
 *     export default createWorker({ protect: ['/checkout'] });
 */
export function createWorker<Env extends WaitingRoomEnv = WaitingRoomEnv>(
  options: WorkerOptions<Env> = {},
  hooks: WorkerHooks<Env> = {},
): WaitingRoomWorker<Env> {
  // Bindings are fixed for the life of an isolate: one connector per env object keeps its cache
  // of verified passes across requests.
  const connectors = new WeakMap<object, WebConnector>();
  const connectorFor = (env: Env): WebConnector => {
    let connector = connectors.get(env);
    if (connector === undefined) {
      connector = createWebConnector(settings(env, typeof options === 'function' ? options(env) : options));
      connectors.set(env, connector);
    }
    return connector;
  };
  const origin = hooks.origin ?? ((request: Request) => fetch(request));

  return {
    async fetch(request, env, context) {
      let connector: WebConnector;
      try {
        connector = connectorFor(env ?? ({} as Env));
      } catch (error) {
        // A deployment without its settings: say so in the Worker's logs, not to visitors.
        console.error(`The waiting room's connector is not configured: ${error instanceof Error ? error.message : String(error)}`);
        return new Response('The site is not configured.', {
          status: 500,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        });
      }
      // workerd makes the request's URL of the Host header and the target as sent: a Host such
      // as `shop.example#` would hide the path (`http://shop.example#/checkout` is `/`).
      const host = request.headers.get('host');
      if ((host !== null && !HOST.test(host)) || !URL.canParse(request.url)) {
        return new Response('The Host header is not a host.', {
          status: 400,
          headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' },
        });
      }
      const answer = await connector.handle(request);
      if (answer) return answer;
      const response = await origin(request, env, context);
      const command = response.headers.get(COMMAND_HEADER);
      return command === null ? response : followCommand(command, response, connector, request);
    },
  };
}

/**
 * The origin's answer without its command, as the gateway gives it: after `revoke` (one of a
 * comma-separated list), with the pass taken off the browser once the waiting room ended it;
 * other commands are ignored. The revoke reads only the request's address and cookies, which
 * the origin's reading its body leaves.
 */
async function followCommand(command: string, response: Response, connector: WebConnector, request: Request): Promise<Response> {
  const headers = new Headers(response.headers);
  headers.delete(COMMAND_HEADER);
  const commands = command.split(',').map((one) => one.trim().toLowerCase());
  try {
    const { cookies } = commands.includes('revoke') ? await connector.revoke(request) : { cookies: [] };
    for (const value of cookies) headers.append('set-cookie', value);
  } catch (error) {
    // The visitor still gets the origin's answer; their admission ends when the pass expires.
    console.error(`The waiting room did not revoke the pass: ${error instanceof Error ? error.message : String(error)}`);
  }
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The connector's options: those given, the rest from the bindings. */
function settings(env: WaitingRoomEnv, given: Partial<ConnectorOptions>): ConnectorOptions {
  const protect =
    given.protect ??
    env.WAITING_ROOM_PROTECT?.split(',')
      .map((prefix) => prefix.trim())
      .filter((prefix) => prefix !== '');
  return {
    ...given,
    waitingRoom: given.waitingRoom ?? env.WAITING_ROOM_URL ?? missing('WAITING_ROOM_URL', 'waitingRoom'),
    room: given.room ?? env.WAITING_ROOM_ROOM ?? 'default',
    secret: given.secret ?? env.WAITING_ROOM_PASS_SECRET ?? missing('WAITING_ROOM_PASS_SECRET', 'secret'),
    ...(protect === undefined ? {} : { protect }),
  };
}

function missing(binding: string, option: string): never {
  throw new TypeError(`${option}: set the binding ${binding} (or the option ${option}).`);
}
