import { languageOf } from './fakes/texts';
import { LANGUAGE_COOKIE, parsePageConfig } from '@waiting-room/streams/contract';
import { COOKIE } from '../../src/i18n/switch-language';
import { readPageConfig } from '../../src/config/read-page-config';
import { toSameOriginPath } from '@waiting-room/streams/contract';
import { renderConfigElement, validConfig } from './fakes/config';

const ORIGIN = 'https://shop.example';

const problemsOf = (raw: unknown): readonly string[] => {
  const result = parsePageConfig(raw, ORIGIN);
  if (result.ok) throw new Error('expected the config to be refused');
  return result.problems;
};

const configOf = (raw: unknown) => {
  const result = parsePageConfig(raw, ORIGIN);
  if (!result.ok) throw new Error(`expected a valid config, got: ${result.problems.join('; ')}`);
  return result;
};

describe('page config: a valid config', () => {
  it('should keep every value the server rendered', () => {
    const { config, warnings } = configOf(validConfig({ user: { id: 7 } }));
    expect(config).toEqual({
      queue: { uuid: '0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10', uri: '/checkout?item=42', method: 'GET', position: 12 },
      userId: 7,
      csrfToken: 'csrf-token',
      realtime: { key: 'app-key', host: 'localhost', port: 8080, forceTLS: false, cluster: 'local', authEndpoint: '/pusher/auth', queueChannel: 'App.Queue' },
      routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
      errorReporting: { dsn: 'http://public@localhost:8080/1', sampleRate: 0.5, release: '1.0.0' },
      timings: {},
      language: null,
      event: null,
      message: null,
      altcha: null,
      handoffRoute: null,
    });
    expect(warnings).toEqual([]);
  });

  it('should keep the handoff route the server offers, and refuse one of another origin', () => {
    const ok = parsePageConfig({ ...validConfig(), handoff: { route: '/queue/handoff?room=b' } }, ORIGIN);
    expect(ok.ok && ok.config.handoffRoute).toBe('/queue/handoff?room=b');
    const refused = parsePageConfig({ ...validConfig(), handoff: { route: 'https://elsewhere.example/queue/handoff' } }, ORIGIN);
    expect(refused.ok).toBe(false);
  });

  it('should keep the bot check’s challenge as the server wrote it, for the solver to check the rest', () => {
    const altcha = {
      parameters: { algorithm: 'SCRYPT', nonce: 'aa', salt: 'bb', cost: 1024, keyLength: 32, keyPrefix: 'cc', data: { place: 'u' } },
      signature: 'dd',
    };
    expect(configOf(validConfig({ altcha })).config.altcha).toEqual(altcha);
    expect(configOf(validConfig({ altcha: null })).config.altcha).toBeNull();
  });

  it("should apply the spec's defaults: port 443, TLS forced, sample rate 0.5, release '1.0.0', GET, anonymous", () => {
    const raw = validConfig({ realtime: { key: 'k' }, errorReporting: undefined, user: undefined });
    delete raw.queue.method;
    delete raw.queue.position;
    const { config } = configOf(raw);
    expect(config.realtime).toEqual({
      key: 'k',
      host: null,
      port: 443,
      forceTLS: true,
      cluster: 'mt1',
      authEndpoint: '/pusher/auth',
      queueChannel: 'App.Queue',
    });
    expect(config.errorReporting).toEqual({ dsn: null, sampleRate: 0.5, release: '1.0.0' });
    expect(config.queue.method).toBe('GET');
    expect(config.queue.position).toBeNull();
    expect(config.userId).toBe(0);
  });

  it("should take the line's channel the server names, for a room of its own", () => {
    const realtime = { ...validConfig().realtime, queueChannel: 'App.Queue.tickets' };
    expect(configOf(validConfig({ realtime })).config.realtime.queueChannel).toBe('App.Queue.tickets');
  });

  it.each([0, null, false, ''])('should treat the falsy user id %p as anonymous', (id) => {
    expect(configOf(validConfig({ user: { id } })).config.userId).toBe(0);
  });

  it.each(['get', 'POST', 'put', 'PATCH', 'delete'])('should accept the standard verb %s, upper-cased', (method) => {
    expect(configOf(validConfig({ queue: { ...validConfig().queue, method } })).config.queue.method).toBe(method.toUpperCase());
  });

  it('should accept a same-origin absolute URI and keep only its path', () => {
    const raw = validConfig();
    raw.queue.uri = `${ORIGIN}/checkout?item=42`;
    expect(configOf(raw).config.queue.uri).toBe('/checkout?item=42');
  });

  it('should accept documented timing overrides, and the away time in minutes', () => {
    expect(configOf(validConfig({ awayMinutes: 30 })).config.awayMinutes).toBe(30);
    expect('awayMinutes' in configOf(validConfig()).config).toBe(false);
    const { config } = configOf(validConfig({ timings: { poll: 1000, anonymousPoll: 500, leaveDelay: 20.5 } }));
    expect(config.timings).toEqual({ poll: 1000, anonymousPoll: 500, leaveDelay: 20.5 });
  });
});

describe('page config: the language (since 1.1.0)', () => {
  it('should keep the language the server sent, its messages and its choices', () => {
    const language = languageOf('ar');
    const { config } = configOf(validConfig({ language }));
    expect(config.language).toEqual(language);
  });

  it("should keep the visitor's choice in the cookie the server reads", () => {
    expect(COOKIE).toBe(LANGUAGE_COOKIE);
  });

  it('should be optional: a config written before it stays valid', () => {
    expect(configOf(validConfig()).config.language).toBeNull();
  });

  it.each([
    ['a locale that is no language tag', { locale: 'not a tag!' }],
    ['a direction other than ltr and rtl', { dir: 'up' }],
    ['messages that are not an object', { messages: ['x'] }],
    ['choices without a list of languages', { choices: { path: '/queue/language/{locale}' } }],
  ])('should refuse %s', (_what, change) => {
    const result = parsePageConfig(validConfig({ language: { ...languageOf('en'), ...change } }), ORIGIN);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems).toEqual([expect.stringMatching(/^language must be /)]);
  });

  it.each(['https://evil.example/{locale}', '//evil.example/{locale}', 'javascript:alert(1)'])(
    "should refuse choices whose path %s is not on the page's origin",
    (path) => {
      const result = parsePageConfig(validConfig({ language: { ...languageOf('en'), choices: { path, languages: [] } } }), ORIGIN);
      expect(!result.ok && result.problems).toEqual([expect.stringContaining('language.choices.path must be a same-origin path')]);
    },
  );

  it('should hand back a sound language with the problems, to tell the visitor in it', () => {
    const result = parsePageConfig(validConfig({ csrfToken: '', language: languageOf('fr') }), ORIGIN);
    expect(!result.ok && result.language).toEqual(languageOf('fr'));
    const broken = parsePageConfig(validConfig({ csrfToken: '', language: { locale: 'fr' } }), ORIGIN);
    expect(!broken.ok && broken.language).toBeNull();
  });
});

describe('page config: the pending URI must be a same-origin path', () => {
  it.each([
    ['another origin', 'https://evil.example/steal'],
    ['a scheme-relative URL', '//evil.example'],
    ['a backslash scheme-relative URL', '/\\evil.example'],
    ['a backslash-first URL', '\\\\evil.example'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a data: URL', 'data:text/html,<script>alert(1)</script>'],
    ['a tab that browsers would drop', '/\t/evil.example'],
    ['a newline', '/checkout\n'],
    ['a NUL character', '/check\0out'],
    ['dot segments folding into //', '/.//evil.example'],
    ['a relative path', 'checkout'],
    ['another scheme on the same host', 'http://shop.example/checkout'],
    ['a number', 42],
  ])('should refuse %s: no pending URI, so the page leaves', (_, uri) => {
    const raw = validConfig();
    raw.queue.uri = uri;
    const { config, warnings } = configOf(raw);
    expect(config.queue.uri).toBeNull();
    expect(warnings).toEqual([expect.stringContaining('queue.uri refused')]);
  });

  it.each([undefined, null, ''])('should treat a missing URI (%p) as no pending URI, without a warning', (uri) => {
    const raw = validConfig();
    raw.queue.uri = uri;
    expect(configOf(raw)).toMatchObject({ config: { queue: { uri: null } }, warnings: [] });
  });

  it('should keep paths with queries and hashes on the same origin', () => {
    expect(toSameOriginPath('/a/b?x=1&y=%20#h', ORIGIN)).toBe('/a/b?x=1&y=%20#h');
    expect(toSameOriginPath('/', ORIGIN)).toBe('/');
  });
});

describe('page config: malformed and hostile values are refused clearly', () => {
  it.each([
    ['an unknown method', { method: 'BREW' }, 'queue.method must be one of GET,POST,PUT,PATCH,DELETE (got "BREW")'],
    ['a method that is not a string', { method: 7 }, 'queue.method must be one of'],
    ['a huge position', { position: 1e21 }, 'queue.position must be an integer from 0 to 1000000000'],
    ['a position past the limit', { position: 1_000_000_001 }, 'queue.position must be an integer'],
    ['a negative position', { position: -1 }, 'queue.position must be an integer'],
    ['a fractional position', { position: 2.5 }, 'queue.position must be an integer'],
    ['a position in a string', { position: '12' }, 'queue.position must be an integer'],
    ['a missing uuid', { uuid: undefined }, 'queue.uuid must be'],
    ['a uuid with a slash', { uuid: '../admin' }, 'queue.uuid must be'],
  ])('should refuse %s', (_, change, message) => {
    expect(problemsOf(validConfig({ queue: { ...validConfig().queue, ...change } }))).toEqual([expect.stringContaining(message)]);
  });

  it.each([
    ['a non-object config', null, 'the config must be an object'],
    ['the empty placeholder', {}, 'queue.uuid must be'],
    ['a negative user id', { user: { id: -3 } }, 'user.id must be an integer'],
    ['a user id in a string', { user: { id: '42' } }, 'user.id must be an integer'],
    ['a missing CSRF token', { csrfToken: undefined }, 'csrfToken must be a non-empty string'],
    ['a missing realtime key', { realtime: { host: 'localhost' } }, 'realtime.key must be a non-empty string'],
    ['a port out of range', { realtime: { key: 'k', port: 70000 } }, 'realtime.port must be an integer from 1 to 65535'],
    ['a host with a scheme', { realtime: { key: 'k', host: 'https://evil.example' } }, 'realtime.host must be'],
    ['forceTLS as a string', { realtime: { key: 'k', forceTLS: 'no' } }, 'realtime.forceTLS must be true or false'],
    ['a private line channel', { realtime: { key: 'k', queueChannel: 'private-App.Queue' } }, 'realtime.queueChannel must be a public channel name'],
    ['a line channel with a space', { realtime: { key: 'k', queueChannel: 'App Queue' } }, 'realtime.queueChannel must be a public channel name'],
    [
      'a queue_info route on another origin',
      { routes: { queue_request: '/q', queue_info: '//evil.example/{uuid}' } },
      'routes.queue_info must be a same-origin path',
    ],
    ['a queue_info route without {uuid}', { routes: { queue_request: '/q', queue_info: '/queue/info' } }, 'routes.queue_info must be a path with "{uuid}"'],
    [
      'a javascript: queue_request route',
      { routes: { queue_request: 'javascript:alert(1)', queue_info: '/i/{uuid}' } },
      'routes.queue_request must be a same-origin path',
    ],
    ['a DSN that is not a URL', { errorReporting: { dsn: 'nope' } }, 'errorReporting.dsn must be an http(s) URL'],
    ['a sample rate above 1', { errorReporting: { sampleRate: 2 } }, 'errorReporting.sampleRate must be a number from 0 to 1'],
    ['a sample rate in a string', { errorReporting: { sampleRate: '0.5' } }, 'errorReporting.sampleRate must be a number'],
    ['an unknown timing', { timings: { pol: 1000 } }, 'timings.pol must be one of'],
    ['a zero timing', { timings: { poll: 0 } }, 'timings.poll must be a positive finite number'],
    ['a negative timing', { timings: { leaveDelay: -5 } }, 'timings.leaveDelay must be a positive finite number'],
    ['an infinite timing', { timings: { connectionCheck: Infinity } }, 'timings.connectionCheck must be a positive finite number'],
    ['a timing in a string', { timings: { poll: '1000' } }, 'timings.poll must be a positive finite number'],
    ['an away time of 0', { awayMinutes: 0 }, 'awayMinutes must be an integer from 1 to 10080'],
    ['an away time in a string', { awayMinutes: '30' }, 'awayMinutes must be an integer from 1 to 10080'],
    ['timings that are not an object', { timings: [1] }, 'timings must be an object'],
    ['a bot-check challenge that is not an object', { altcha: 'solve me' }, 'altcha must be an ALTCHA challenge'],
    ['a bot-check challenge without parameters', { altcha: { signature: 'dd' } }, 'altcha must be an ALTCHA challenge'],
  ])('should refuse %s', (_, change, message) => {
    const raw = change === null ? null : Object.keys(change).length ? validConfig(change) : change;
    expect(problemsOf(raw)).toContainEqual(expect.stringContaining(message));
  });

  it('should list every problem at once, each by its field path', () => {
    const problems = problemsOf({ queue: { uuid: 'x', position: -1, method: 'NOPE' }, realtime: {}, routes: {} });
    expect(problems).toEqual([
      'queue.method must be one of GET,POST,PUT,PATCH,DELETE (got "NOPE")',
      'queue.position must be an integer from 0 to 1000000000',
      'csrfToken must be a non-empty string',
      'realtime.key must be a non-empty string',
      'routes.queue_request must be a same-origin path starting with a single "/"',
      'routes.queue_info must be a same-origin path starting with a single "/"',
    ]);
  });

  it('should still hand back the error reporting it could read, so the problem can be reported', () => {
    const result = parsePageConfig({ errorReporting: { dsn: 'https://k@sentry.example/3', sampleRate: 1 } }, ORIGIN);
    expect(result).toMatchObject({ ok: false, errorReporting: { dsn: 'https://k@sentry.example/3', sampleRate: 1, release: '1.0.0' } });
  });
});

describe('page config: the channel authorization endpoint (since 1.4.0)', () => {
  const withEndpoint = (authEndpoint: unknown) => validConfig({ realtime: { key: 'k', authEndpoint } });

  it('should keep the endpoint the server wrote, a path on the page origin', () => {
    expect(configOf(withEndpoint('/room/pusher/auth')).config.realtime.authEndpoint).toBe('/room/pusher/auth');
    expect(configOf(withEndpoint(`${ORIGIN}/auth`)).config.realtime.authEndpoint).toBe('/auth');
  });

  it("should default to pusher-js's /pusher/auth for a config written before it", () => {
    expect(configOf(validConfig({ realtime: { key: 'k' } })).config.realtime.authEndpoint).toBe('/pusher/auth');
  });

  it.each([
    ['another origin', 'https://evil.example/auth'],
    ['a scheme-relative address', '//evil.example/auth'],
    ['a relative path', 'pusher/auth'],
    ['a number', 7],
  ])('should refuse %s', (_, endpoint) => {
    expect(problemsOf(withEndpoint(endpoint))).toEqual(['realtime.authEndpoint must be a same-origin path starting with a single "/"']);
  });
});

describe('page config: the origin argument', () => {
  it("should take the page's whole address as well as its origin: only the origin counts", () => {
    const result = parsePageConfig(validConfig(), `${ORIGIN}/checkout?item=42#pay`);
    expect(result).toMatchObject({ ok: true, config: { routes: { queue_info: '/queue/info/{uuid}' }, queue: { uri: '/checkout?item=42' } } });
    expect(parsePageConfig(validConfig(), `${ORIGIN}/`).ok).toBe(true);
  });

  it.each([
    ['a path', '/checkout'],
    ['a host without scheme', 'shop.example'],
    ["a file page's null origin", 'null'],
    ['another scheme', 'ftp://shop.example'],
    ['nothing', ''],
  ])('should say plainly that the origin argument is wrong, not blame the routes, for %s', (_, origin) => {
    const result = parsePageConfig(validConfig(), origin);
    expect(result).toEqual({
      ok: false,
      problems: [`the origin argument must be the page's http(s) origin or address, such as location.origin (got ${JSON.stringify(origin)})`],
      errorReporting: { dsn: null, sampleRate: 0.5, release: '1.0.0' },
      language: null,
    });
  });
});

describe('page config: a scheduled event (beyond the specification)', () => {
  const event = { id: 'spring-drop-1a2b3c', name: 'Spring drop', opensAt: '2030-05-01T10:00:00.000Z', shuffle: true, commitment: 'ab'.repeat(32) };

  it('should read the event whose pre-queue the visitor entered, the opening as ms', () => {
    expect(configOf(validConfig({ event })).config.event).toEqual({ ...event, opensAt: Date.UTC(2030, 4, 1, 10) });
    expect(configOf(validConfig({ event: { ...event, shuffle: undefined, commitment: undefined } })).config.event).toEqual({
      ...event,
      opensAt: Date.UTC(2030, 4, 1, 10),
      shuffle: false,
      commitment: null,
    });
  });

  it.each([
    ['an id that is no channel name', { id: 'spring drop!' }, /^event\.id must be 1 to 100 letters/],
    ['an opening that is no time', { opensAt: 'at ten' }, /^event\.opensAt must be an ISO 8601 time/],
    ['an empty name', { name: '' }, /^event\.name must be a non-empty string/],
  ])('should refuse %s, by its path', (_what, change, problem) => {
    expect(problemsOf(validConfig({ event: { ...event, ...change } }))).toEqual([expect.stringMatching(problem)]);
  });

  it('should refuse an event that is not an object', () => {
    expect(problemsOf(validConfig({ event: 'drop' }))[0]).toBe('event must be an object');
  });
});

describe('page config: reading the element', () => {
  afterEach(() => document.getElementById('waiting-room-config')?.remove());

  it('should read and validate #waiting-room-config', () => {
    renderConfigElement(document, validConfig());
    expect(readPageConfig(document, 'http://localhost')).toMatchObject({ ok: true, config: { csrfToken: 'csrf-token' } });
  });

  it('should report a missing element without throwing', () => {
    expect(readPageConfig(document, ORIGIN)).toEqual({
      ok: false,
      problems: ['no #waiting-room-config element in the page'],
      errorReporting: { dsn: null, sampleRate: 0.5, release: '1.0.0' },
    });
  });

  it('should report text that is not JSON without throwing', () => {
    renderConfigElement(document, '{"queue": ');
    const result = readPageConfig(document, ORIGIN);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.problems[0]).toMatch(/^#waiting-room-config is not valid JSON \(/);
  });
});
