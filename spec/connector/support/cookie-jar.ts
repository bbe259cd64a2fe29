import { request as httpRequest } from 'node:http';

/**
 * A browser's cookies for the connector's HTTP tests, by host and port (two servers on one
 * loopback address are two sites here), and requests that follow no redirect.
 */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();

  /** GET `url` as a browser's navigation, with this jar's cookies for its host, keeping those it sets. */
  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    const { host } = new URL(url);
    const mine = this.cookies.get(host) ?? new Map<string, string>();
    const cookie = [...mine].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await get(url, { accept: 'text/html', 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document', ...headers, ...(cookie && { cookie }) });
    for (const line of response.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair.indexOf('=');
      const expired = attributes.some((attribute) => attribute.trim().toLowerCase() === 'max-age=0');
      if (expired) mine.delete(pair.slice(0, at));
      else mine.set(pair.slice(0, at), pair.slice(at + 1));
    }
    this.cookies.set(host, mine);
    return response;
  }

  /** The cookie `name` of `url`'s host. */
  value(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name);
  }

  set(url: string, name: string, value: string): void {
    const { host } = new URL(url);
    this.cookies.set(host, new Map([...(this.cookies.get(host) ?? []), [name, value]]));
  }
}

/**
 * A GET with exactly `headers` (fetch would add its own `Sec-Fetch-Mode: cors`), answered as a
 * fetch Response, redirects not followed.
 */
function get(url: string, headers: Record<string, string>): Promise<Response> {
  return new Promise((resolve, reject) => {
    const asked = httpRequest(url, { headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('error', reject);
      answer.on('end', () => {
        const out = new Headers();
        for (const [name, value] of Object.entries(answer.headers)) for (const one of [value ?? []].flat()) out.append(name, one);
        const status = answer.statusCode ?? 500;
        resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: out }));
      });
    });
    asked.on('error', reject);
    asked.end();
  });
}
