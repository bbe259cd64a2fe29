import { request } from 'undici';
import type { PageConfigJson } from '@waiting-room/streams/contract';
import { SESSION_COOKIE } from '../../../server/http/session';

const CONFIG = /<script id="waiting-room-config" type="application\/json">([\s\S]*?)<\/script>/;

/** What a browser would send: a form, JSON, or a raw body with its type. */
export type Body = { form: Record<string, string> } | { json: unknown } | { raw: string; type: string };

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The parsed JSON body, when there is one. */
  readonly json: any;
  /** The waiting page's config, when the answer is the waiting page. */
  readonly page?: PageConfigJson;
}

/** One browser: it keeps its session cookie, as every tab of one browser shares it. */
export class Visitor {
  /** The waiting room's session cookie (`name=value`), as tests read and plant it. */
  cookie = '';
  /** The origin's own cookies, by name. */
  readonly originCookies = new Map<string, string>();

  constructor(readonly base: string) {}

  async get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, undefined, headers);
  }

  async post(path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('POST', path, body, headers);
  }

  /**
   * Sends like a plain HTTP client (curl, a crawler): undici's `request` rather than `fetch`,
   * which always says `Sec-Fetch-Mode: cors` and so would be taken for a single-page app's call.
   */
  async send(method: string, path: string, body?: Body, headers: Record<string, string> = {}): Promise<Answer> {
    const cookies = this.cookieHeader();
    const sent: Record<string, string> = { ...(cookies ? { cookie: cookies } : {}), ...headers };
    let payload: string | undefined;
    if (body && 'form' in body) {
      payload = new URLSearchParams(body.form).toString();
      sent['content-type'] = 'application/x-www-form-urlencoded';
    } else if (body && 'json' in body) {
      payload = JSON.stringify(body.json);
      sent['content-type'] = 'application/json';
    } else if (body) {
      payload = body.raw;
      sent['content-type'] = body.type;
    }
    const response = await request(this.base + path, { method: method as 'GET', headers: sent, body: payload });
    this.keepCookies(response.headers['set-cookie']);
    const text = await response.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const match = CONFIG.exec(text);
    const page = match ? (JSON.parse(match[1] ?? '') as PageConfigJson) : undefined;
    const answerHeaders = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) answerHeaders.append(name, one);
    }
    return { status: response.statusCode, headers: answerHeaders, text, json, page };
  }

  /** The Cookie header this browser sends: the waiting room's cookie and the origin's. */
  cookieHeader(): string {
    return [this.cookie, ...this.originCookies.values()].filter(Boolean).join('; ');
  }

  /** Keeps the cookies an answer sets, as a browser does. */
  keepCookies(setCookie: string | string[] | undefined): void {
    for (const cookie of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const pair = cookie.split(';')[0] ?? '';
      if (pair.startsWith(`${SESSION_COOKIE}=`)) this.cookie = pair;
      else this.originCookies.set(pair.split('=')[0] ?? '', pair);
    }
  }

  /** Asks for a protected page and expects to be held: the waiting page's config. */
  async hold(path = '/checkout?item=42', body?: Body): Promise<PageConfigJson> {
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

  /** Signs in with `name` through the origin's form; the origin names the user to the waiting room. */
  async signIn(name: string): Promise<void> {
    const answer = await this.post('/login', { form: { name, _token: await this.csrfToken() } });
    if (answer.status !== 303) throw new Error(`Sign-in failed: ${answer.status} ${answer.text}`);
  }

  /** queue_info for `uuid`, on its page's room's route (the first room's without one). */
  async queueInfo(uuid: string, page?: PageConfigJson): Promise<Answer> {
    return this.get((page?.routes.queue_info ?? '/queue/info/{uuid}').replace('{uuid}', uuid));
  }

  /** queue_request as the page sends it, on its room's route. */
  async queueRequest(page: PageConfigJson): Promise<Answer> {
    return this.post(page.routes.queue_request, {
      json: { _token: page.csrfToken, user_id: page.user.id, uuid: page.queue.uuid },
    });
  }
}
