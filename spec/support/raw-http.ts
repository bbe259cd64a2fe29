import net from 'node:net';

/** An HTTP/1.1 answer as read off the socket. */
export interface RawAnswer {
  readonly status: number;
  /** Header names in lower case; repeated headers (Set-Cookie) in order. */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly body: string;
  header(name: string): string | undefined;
}

/**
 * Sends one request exactly as given, request line and headers untouched (a client library
 * would rewrite an absolute-form target or refuse a hostile Host), on its own connection, and
 * reads the answer until the server closes it.
 */
export function rawRequest(
  port: number,
  request: { method: string; target: string; headers: Readonly<Record<string, string>>; body?: string },
): Promise<RawAnswer> {
  const body = Buffer.from(request.body ?? '');
  const lines = [`${request.method} ${request.target} HTTP/1.1`, ...Object.entries(request.headers).map(([name, value]) => `${name}: ${value}`)];
  if (request.body !== undefined) lines.push(`content-length: ${body.length}`);
  lines.push('connection: close');
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(20_000, () => socket.destroy(new Error(`No answer to ${request.method} ${request.target} in 20 s`)));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const answer = parse(text);
      if (answer) resolve(answer);
      else reject(new Error(`Not an HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
    });
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  });
}

function parse(text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...headerLines] = text.slice(0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '');
  if (end < 0 || !status) return undefined;
  const headers = headerLines.map((line) => {
    const at = line.indexOf(':');
    return [line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim()] as const;
  });
  let body = text.slice(end + 4);
  if (headers.some(([name, value]) => name === 'transfer-encoding' && value.toLowerCase().includes('chunked'))) body = unchunk(body);
  return { status: Number(status[1]), headers, body, header: (name) => headers.find(([key]) => key === name)?.[1] };
}

function unchunk(text: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return out;
    out += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
