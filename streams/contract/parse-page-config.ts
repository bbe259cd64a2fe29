import { TIMINGS, ERROR_REPORTING, REALTIME } from './constants.js';
import { MAX_POSITION, METHODS, type AltchaChallenge, type ErrorReportingSettings, type LanguageJson, type Method, type PageConfig } from './page-config.js';
import { AUTH_ENDPOINT, CHANNELS } from './names.js';
import { originOf, toSameOriginPath } from './same-origin-path.js';
import { isUuid } from './uuid.js';
import { roomMessageOf } from './room-message.js';

/** Either a usable config, or every problem found (with whatever error reporting could be read). */
export type ConfigResult =
  | { readonly ok: true; readonly config: PageConfig; readonly warnings: readonly string[] }
  | {
      readonly ok: false;
      readonly problems: readonly string[];
      readonly errorReporting: ErrorReportingSettings;
      /** The config's language when that part of it is sound, to tell the visitor in it. */
      readonly language?: LanguageJson | null;
    };

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value == 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value == 'number' && Number.isFinite(value);
const asText = (value: unknown): string => (typeof value == 'string' ? value : '');
const isUrl = (value: unknown): value is string => typeof value == 'string' && /^https?:\/\/\S+$/.test(value);
const isLocale = (value: unknown): boolean => {
  try {
    return typeof value == 'string' && Intl.getCanonicalLocales(value).length == 1;
  } catch {
    return false;
  }
};

/**
 * Checks a page config (`PageConfigJson`, parsed from its JSON but otherwise untrusted) and applies
 * the defaults (port 443, TLS forced, cluster 'mt1', authorization at '/pusher/auth', method GET,
 * sample rate 0.5, release '1.0.0', anonymous). Every problem is listed by its field's path, e.g.
 * `realtime.port must be an integer from 1 to 65535`. A pending URI that is not a same-origin path
 * is no problem: it becomes null, which makes the page leave, and is returned as a warning.
 *
 * `address` is the page's own origin, `location.origin`, or any http(s) address on it such as
 * `location.href` (only its origin counts). The routes and the authorization endpoint must be
 * paths on that origin. Anything else is refused with the one problem that says so.
 */
export function parsePageConfig(raw: unknown, address: string): ConfigResult {
  // A new field is optional (a config written before it stays valid): read its section with
  // `section(root.name, 'name', true)`, each value with `check`, `text` or `integer` (which note a
  // problem by path and go on), and add it to `PageConfigJson` and `PageConfig`. The helpers are
  // closures of one parse because the page ships this function: they cost it the fewest bytes.
  const origin = originOf(address);
  if (origin == null) {
    const got = JSON.stringify(String(address)).slice(0, 200);
    return {
      ok: false,
      problems: [`the origin argument must be the page's http(s) origin or address, such as location.origin (got ${got})`],
      errorReporting: { dsn: null, sampleRate: ERROR_REPORTING.sampleRate, release: ERROR_REPORTING.release },
      language: null,
    };
  }
  const problems: string[] = [];
  const warnings: string[] = [];
  const check = <T>(ok: boolean, path: string, rule: string, value: T): T => {
    if (!ok) problems.push(`${path} must be ${rule}`);
    return value;
  };
  const section = (value: unknown, path: string, optional?: boolean): Json =>
    check(isObject(value) || (!!optional && value === undefined), path, 'an object', isObject(value) ? value : {});
  const text = (value: unknown, path: string, fallback?: string): string =>
    value === undefined && fallback ? fallback : check(typeof value == 'string' && value.trim() != '', path, 'a non-empty string', String(value));
  const integer = (value: unknown, path: string, min: number, max: number): number =>
    check(Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max, path, `an integer from ${min} to ${max}`, value as number);
  const route = (value: unknown, path: string): string =>
    // URL normalisation escapes the `{uuid}` placeholder; keep it readable for replace().
    check(
      toSameOriginPath(value, origin) != null,
      path,
      'a same-origin path starting with a single "/"',
      toSameOriginPath(value, origin)?.replace(/%7B(uuid|locale)%7D/gi, '{$1}') ?? '',
    );

  const root = section(raw, 'the config');
  const q = section(root.queue, 'queue');
  const user = section(root.user, 'user', true);
  const rt = section(root.realtime, 'realtime');
  const routes = section(root.routes, 'routes');
  const er = section(root.errorReporting, 'errorReporting', true);
  const ev = section(root.event, 'event', true);

  // Read first, so that a problem elsewhere can still be told in the visitor's language. Each
  // message is written by `translator`, which shows a malformed one as its key, so the messages
  // are checked no deeper than the page needs.
  const before = problems.length;
  const lg = root.language as Json | undefined;
  const choices = lg?.choices as Json | undefined;
  const language =
    lg === undefined
      ? null
      : check(
          isObject(lg) &&
            isLocale(lg.locale) &&
            /^(ltr|rtl)$/.test(String(lg.dir)) &&
            isObject(lg.messages) &&
            (choices === undefined || (isObject(choices) && Array.isArray(choices.languages))),
          'language',
          '{locale, dir, messages}',
          lg as unknown as LanguageJson,
        );
  if (isObject(choices)) route(choices.path, 'language.choices.path');
  const languageSound = problems.length == before;

  const errorReporting: ErrorReportingSettings = {
    dsn: check(er.dsn == null || isUrl(er.dsn), 'errorReporting.dsn', 'an http(s) URL', isUrl(er.dsn) ? er.dsn : null),
    sampleRate:
      er.sampleRate === undefined
        ? ERROR_REPORTING.sampleRate
        : check(
            isNumber(er.sampleRate) && er.sampleRate >= 0 && er.sampleRate <= 1,
            'errorReporting.sampleRate',
            'a number from 0 to 1',
            Number(er.sampleRate),
          ),
    release: text(er.release, 'errorReporting.release', ERROR_REPORTING.release),
  };

  const method = q.method === undefined ? 'GET' : asText(q.method).toUpperCase();
  check((METHODS as readonly string[]).includes(method), 'queue.method', `one of ${METHODS} (got ${JSON.stringify(q.method)})`, 0);
  const uri = toSameOriginPath(q.uri, origin);
  if (uri == null && q.uri) warnings.push(`queue.uri refused, not a same-origin path: ${JSON.stringify(q.uri).slice(0, 200)}`);

  const timings: Json = {};
  for (const [name, value] of Object.entries(section(root.timings, 'timings', true))) {
    check(name in TIMINGS, `timings.${name}`, `one of ${Object.keys(TIMINGS)}`, 0);
    timings[name] = check(isNumber(value) && value > 0, `timings.${name}`, 'a positive finite number of milliseconds', value);
  }

  const host = check(
    rt.host == null || /^([\w.-]+|\[[\da-fA-F:.]+\])$/.test(asText(rt.host)),
    'realtime.host',
    'a host name without scheme, port or path',
    (rt.host as string | undefined) || null,
  );
  const config: PageConfig = {
    queue: {
      uuid: check(isUuid(q.uuid), 'queue.uuid', "1 to 100 letters, digits, '-' or '_'", String(q.uuid)),
      uri,
      method: method as Method,
      position: q.position == null ? null : integer(q.position, 'queue.position', 0, MAX_POSITION),
    },
    // The spec: a falsy user id means anonymous.
    userId: user.id ? integer(user.id, 'user.id', 1, Number.MAX_SAFE_INTEGER) : 0,
    csrfToken: text(root.csrfToken, 'csrfToken'),
    realtime: {
      key: text(rt.key, 'realtime.key'),
      host,
      port: rt.port === undefined ? REALTIME.port : integer(rt.port, 'realtime.port', 1, 65535),
      forceTLS: check(rt.forceTLS === undefined || typeof rt.forceTLS == 'boolean', 'realtime.forceTLS', 'true or false', rt.forceTLS !== false),
      cluster: text(rt.cluster, 'realtime.cluster', 'mt1'),
      authEndpoint: rt.authEndpoint === undefined ? AUTH_ENDPOINT : route(rt.authEndpoint, 'realtime.authEndpoint'),
      // A public channel: one a page joins without asking the server for a signature.
      queueChannel:
        rt.queueChannel === undefined
          ? CHANNELS.queue
          : check(
              /^(?!private-|presence-)[\w=@,.;-]{1,164}$/.test(asText(rt.queueChannel)),
              'realtime.queueChannel',
              "a public channel name (1 to 164 letters, digits or '_-=@,.;')",
              asText(rt.queueChannel),
            ),
    },
    routes: {
      queue_request: route(routes.queue_request, 'routes.queue_request'),
      queue_info: route(routes.queue_info, 'routes.queue_info'),
    },
    errorReporting,
    timings,
    ...(root.awayMinutes !== undefined && { awayMinutes: integer(root.awayMinutes, 'awayMinutes', 1, 10080) }),
    language,
    event: root.event
      ? {
          id: check(isUuid(ev.id), 'event.id', "1 to 100 letters, digits, '-' or '_'", String(ev.id)),
          name: text(ev.name, 'event.name'),
          opensAt: check(Date.parse(asText(ev.opensAt)) >= 0, 'event.opensAt', 'an ISO 8601 time', Date.parse(asText(ev.opensAt))),
          shuffle: ev.shuffle === true,
          commitment: asText(ev.commitment) || null,
        }
      : null,
    // Only its shape: the solver checks the rest, and the server the solution.
    altcha: check(
      root.altcha == null || (isObject(root.altcha) && isObject(root.altcha.parameters)),
      'altcha',
      'an ALTCHA challenge',
      (root.altcha || null) as AltchaChallenge | null,
    ),
    // Beside the line, not a part of it: an unreadable message is none, and the page goes on.
    message: roomMessageOf(root.message),
    handoffRoute: root.handoff === undefined ? null : route(section(root.handoff, 'handoff').route, 'handoff.route'),
  };
  check(!routes.queue_info || config.routes.queue_info.includes('{uuid}'), 'routes.queue_info', 'a path with "{uuid}" in it', 0);
  return problems.length ? { ok: false, problems, errorReporting, language: languageSound ? language : null } : { ok: true, config, warnings };
}
