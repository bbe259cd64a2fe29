import type { PageConfig } from '../../../server/page-config';

const CONFIG = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;

/** What a browser would send: a form, JSON, or a raw body with its type. */
export type Body =
  | { form: Record<string, string> }
  | { json: unknown }
  | { raw: string; type: string };

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, when there is one. */
  readonly json: any;
  /** The waiting page's config, when the answer is the waiting page. */
  readonly page?: PageConfig;
}

/** One browser: it keeps its session cookie, as every tab of one browser shares it. */
export class Visitor {
  cookie = '';

  constructor(readonly base: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, undefined, headers);
  }

  async post(path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', path, body, headers);
  }

  async send(method: string, path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    const init: RequestInit & { headers: Record<string, string> } = {
      method,
      redirect: 'manual',
      headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers },
    };
    if (body && 'form' in body) {
      init.body = new URLSearchParams(body.form).toString();
      init.headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (body && 'json' in body) {
      init.body = JSON.stringify(body.json);
      init.headers['content-type'] = 'application/json';
    } else if (body) {
      init.body = body.raw;
      init.headers['content-type'] = body.type;
    }
    const response = await fetch(this.base + path, init);
    for (const cookie of response.headers.getSetCookie()) {
      this.cookie = cookie.split(';')[0] ?? '';
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const match = CONFIG.exec(text);
    const page = match ? (JSON.parse(match[1] ?? '') as PageConfig) : undefined;
    return { status: response.status, headers: response.headers, text, json, page };
  }

  /** Asks for a protected page and expects to be held: the waiting page's config. */
  async hold(path = '/checkout?item=42', body?: Body): Promise<PageConfig> {
    const answer = await this.send(body ? 'POST' : 'GET', path, body);
    if (!answer.page) throw new Error(`Expected the waiting page for ${path}, got ${answer.status}: ${answer.text.slice(0, 200)}`);
    return answer.page;
  }

  /** The session's CSRF token, read from the home page's forms. */
  async csrfToken(): Promise<string> {
    const home = await this.get('/');
    const token = /name="_token" value="([^"]+)"/.exec(home.text)?.[1];
    if (!token) throw new Error('No CSRF token on the home page');
    return token;
  }

  /** Signs in with `name` through the demo form. */
  async signIn(name: string): Promise<void> {
    const answer = await this.post('/login', { form: { name, _token: await this.csrfToken() } });
    if (answer.status !== 303) throw new Error(`Sign-in failed: ${answer.status} ${answer.text}`);
  }

  /** queue_info for `uuid`. */
  async queueInfo(uuid: string): Promise<Answer> {
    return this.get(`/queue/info/${uuid}`);
  }

  /** queue_request as the page sends it. */
  async queueRequest(page: PageConfig): Promise<Answer> {
    return this.post('/queue/request', {
      json: { _token: page.csrfToken, user_id: page.user.id, uuid: page.queue.uuid },
    });
  }
}
