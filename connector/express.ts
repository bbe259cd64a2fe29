import { createConnector, type Admission, type ConnectorAnswer, type ConnectorOptions, type ConnectorRequest } from './connector.js';

/** What the middleware reads of Express's request (4 and 5). */
interface ExpressRequest {
  readonly method: string;
  readonly protocol: string;
  /** The raw request target, before any router mounted it: what Express routes. */
  readonly originalUrl: string;
  get(name: string): string | undefined;
  waitingRoom?: Admission;
}

/** What it uses of Express's response. */
interface ExpressResponse {
  status(code: number): ExpressResponse;
  setHeader(name: string, value: string | readonly string[]): unknown;
  getHeader(name: string): unknown;
  end(body?: string): unknown;
}

declare global {
  // Express's own way to type what middleware adds to its requests: `request.waitingRoom`.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      waitingRoom?: Admission;
    }
  }
}

/**
 * Express middleware: a protected request without a valid pass goes to the waiting room
 * (browsers, by a redirect) or gets a held answer (API clients); an admitted one goes on with
 * `request.waitingRoom`. `app.use(waitingRoom({ waitingRoom, room, secret, protect }))`.
 */
export function waitingRoom(options: ConnectorOptions): (request: ExpressRequest, response: ExpressResponse, next: (error?: unknown) => void) => void {
  const connector = createConnector(options);
  return (request, response, next) => {
    const asked = fromExpress(request);
    connector.decide(asked).then((decision) => {
      if (decision.kind === 'answer') return send(response, decision.answer);
      if (decision.kind === 'admitted') {
        request.waitingRoom = {
          pass: decision.pass,
          revoke: async () => {
            const { revoked, cookies } = await connector.revoke(asked);
            appendCookies(response, cookies);
            return revoked;
          },
        };
      }
      next();
    }, next);
  };
}

/** The request as Express routes it: its raw target; Host and the protocol only make the address to come back to. */
function fromExpress(request: ExpressRequest): ConnectorRequest {
  return {
    method: request.method,
    target: request.originalUrl,
    header: (name) => request.get(name),
    site: { protocol: request.protocol, host: request.get('host') ?? '' },
  };
}

function send(response: ExpressResponse, answer: ConnectorAnswer): void {
  for (const [name, value] of Object.entries(answer.headers)) response.setHeader(name, value);
  appendCookies(response, answer.cookies);
  response.status(answer.status).end(answer.body);
}

function appendCookies(response: ExpressResponse, cookies: readonly string[]): void {
  if (cookies.length === 0) return;
  const set = response.getHeader('set-cookie');
  const before = typeof set === 'string' ? [set] : Array.isArray(set) ? (set as string[]) : [];
  response.setHeader('set-cookie', [...before, ...cookies]);
}

export type { Admission } from './connector.js';
