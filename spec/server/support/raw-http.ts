import { connect, type Socket } from 'node:net';

/** What came back on a raw connection, and when it closed. */
export interface RawAnswer {
  /** 0 when the server closed without answering. */
  readonly status: number;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** The body parsed as JSON, when it is JSON. */
  readonly json: any;
  /** Milliseconds from connecting to the server closing the connection. */
  readonly closedAfterMs: number;
}

/** Opens a raw TCP connection to the server, for what fetch and node:http will not send. */
export function openRaw(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/**
 * Everything the server sends on `socket` until it closes the connection (or `timeoutMs`
 * passes, when the answer so far is returned and the socket destroyed).
 */
export function readUntilClosed(socket: Socket, timeoutMs = 10_000): Promise<RawAnswer> {
  const opened = Date.now();
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve({ ...parseResponse(Buffer.concat(chunks).toString('utf8')), closedAfterMs: Date.now() - opened });
    };
    const timer = setTimeout(() => {
      socket.destroy();
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('close', done);
  });
}

/**
 * Sends `request` exactly as given (request line, headers, body) on a new connection and reads
 * the answer until the server closes it.
 */
export async function rawExchange(port: number, request: string): Promise<RawAnswer> {
  const socket = await openRaw(port);
  const answer = readUntilClosed(socket);
  socket.write(request, 'latin1');
  return answer;
}

/** A request with `target` sent as is, `Connection: close`, and a body when given. */
export function rawRequest(method: string, target: string, headers: Record<string, string> = {}, body?: string): string {
  const all: Record<string, string> = {
    host: 'waiting-room.test',
    connection: 'close',
    ...headers,
    ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
  };
  const lines = Object.entries(all).map(([name, value]) => `${name}: ${value}`);
  return `${method} ${target} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${body ?? ''}`;
}

/** The first response in `text`: status, headers and body (cut at Content-Length). */
export function parseResponse(text: string): Omit<RawAnswer, 'closedAfterMs'> {
  const end = text.indexOf('\r\n\r\n');
  if (!text.startsWith('HTTP/1.1 ') || end === -1) return { status: 0, headers: {}, body: text, json: undefined };
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = text.slice(end + 4);
  const length = headers['content-length'];
  if (length !== undefined) body = Buffer.from(body, 'utf8').subarray(0, Number(length)).toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body, json };
}
