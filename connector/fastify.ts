import { createConnector, type Admission, type ConnectorOptions, type ConnectorRequest } from './connector.js';

/** What the hook reads of Fastify's request. */
interface FastifyRequestLike {
  readonly method: string;
  readonly protocol: string;
  readonly host: string;
  /** Node's request: its `url` is the raw request target, which Fastify routes. */
  readonly raw: { readonly url?: string };
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  waitingRoom?: Admission;
}

/** What it uses of Fastify's reply. */
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  header(name: string, value: string | readonly string[]): FastifyReplyLike;
  getHeader(name: string): unknown;
  send(body?: string): unknown;
}

/**
 * A Fastify `onRequest` hook: a protected request without a valid pass goes to the waiting room
 * (browsers, by a redirect) or gets a held answer (API clients); an admitted one goes on with
 * `request.waitingRoom`. `app.addHook('onRequest', waitingRoom({ waitingRoom, room, secret, protect }))`.
 * For its type, declare `waitingRoom?: Admission` in Fastify's `FastifyRequest` (docs/adopt.md).
 */
export function waitingRoom(options: ConnectorOptions): (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<unknown> {
  const connector = createConnector(options);
  return async (request, reply) => {
    const asked = fromFastify(request);
    const decision = await connector.decide(asked);
    if (decision.kind === 'answer') {
      const { status, headers, cookies, body } = decision.answer;
      for (const [name, value] of Object.entries(headers)) reply.header(name, value);
      if (cookies.length > 0) reply.header('set-cookie', cookies);
      return reply.code(status).send(body);
    }
    if (decision.kind === 'admitted') {
      request.waitingRoom = {
        pass: decision.pass,
        revoke: async () => {
          const { revoked, cookies } = await connector.revoke(asked);
          const set = reply.getHeader('set-cookie');
          const before = typeof set === 'string' ? [set] : Array.isArray(set) ? (set as string[]) : [];
          reply.header('set-cookie', [...before, ...cookies]);
          return revoked;
        },
      };
    }
    return undefined;
  };
}

/** The request as Fastify routes it: its raw target; Host and the protocol only make the address to come back to. */
function fromFastify(request: FastifyRequestLike): ConnectorRequest {
  return {
    method: request.method,
    target: request.raw.url ?? '',
    site: { protocol: request.protocol, host: request.host },
    header: (name) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

export type { Admission } from './connector.js';
