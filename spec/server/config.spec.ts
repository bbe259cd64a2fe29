import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ConfigError, DEFAULT_DIFFICULTY, loadConfig } from '../../server/process/config';
import { configWarnings } from '../../server/process/config-warnings';

describe('loadConfig', () => {
  it('should give every documented default', () => {
    const config = loadConfig({});

    expect(config).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      protect: ['/checkout'],
      rooms: [expect.objectContaining({ name: 'default', protect: ['/checkout'], activeLimit: 2, releasePerMinute: 6, awaySeconds: 1800, claimSeconds: 300 })],
      sessionSeconds: 300,
      adminTokenGenerated: true,
      sessionSecretGenerated: true,
      redisUrl: undefined,
      pusher: { embedded: true, appId: 'waiting-room', key: 'waiting-room-key', useTLS: false, cluster: 'local' },
      pusherClient: { host: undefined, port: undefined },
      realtime: {
        activityTimeoutSeconds: 120,
        pongTimeoutMs: 30_000,
        maxConnections: 15_000,
        maxSubscriptions: 4,
        messagesPerSecond: 10,
        maxBufferedBytes: 256 * 1024,
      },
      http: { requestTimeoutMs: 30_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 },
      sink: { messageBytes: 1024, totalBytes: 256 * 1024, reportsPerMinute: 10 },
      stateFile: undefined,
      publicSourceMaps: false,
      sentryDsn: undefined,
      sentrySampleRate: 0.5,
      pageTimings: undefined,
      logLevel: 'info',
      trustProxy: false,
      botCheck: { difficulty: DEFAULT_DIFFICULTY, placesPerAddress: 0 },
    });
    expect(config.rooms[0]?.botChallenge).toBe('off');
    expect(config.adminToken.length).toBeGreaterThanOrEqual(24);
    expect(config.pageHtmlPath).toMatch(/public\/assets\/waiting\.html$/);
  });

  it('should read Redis Sentinel and Redis Cluster settings', () => {
    const sentinel = loadConfig({
      REDIS_SENTINELS: 'sentinel-1:26379, [::1]:26380',
      REDIS_SENTINEL_NAME: 'waiting-room',
      REDIS_USERNAME: 'gateway',
      REDIS_PASSWORD: 'secret',
      REDIS_SENTINEL_PASSWORD: 'watch',
      REDIS_TLS: 'true',
    });
    const cluster = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000,10.0.0.2:7001' });

    expect(sentinel.redisUrl).toBeUndefined();
    expect(sentinel.redisEngine).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'sentinel-1', port: 26379 },
        { host: '::1', port: 26380 },
      ],
      name: 'waiting-room',
      username: 'gateway',
      password: 'secret',
      sentinelPassword: 'watch',
      tls: true,
    });
    expect(cluster.redisEngine).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      tls: false,
    });
    expect(loadConfig({}).redisEngine).toBeUndefined();
  });

  it('should read every variable', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      PROTECT: '/checkout, /tickets/',
      ACTIVE_LIMIT: '50',
      RELEASE_PER_MINUTE: '0',
      SESSION_SECONDS: '600',
      AWAY_SECONDS: '90',
      CLAIM_SECONDS: '120',
      ADMIN_TOKEN: 'a-long-enough-admin-token-here',
      SESSION_SECRET: 's'.repeat(32),
      REDIS_URL: 'redis://localhost:6379',
      PUSHER_APP_ID: '1',
      PUSHER_KEY: 'key',
      PUSHER_SECRET: 'secret',
      PUSHER_HOST: 'soketi.local',
      PUSHER_PORT: '6001',
      PUSHER_USE_TLS: 'false',
      PUSHER_CLIENT_HOST: 'ws.example.com',
      PUSHER_CLIENT_PORT: '443',
      SENTRY_DSN: 'https://k@sentry.example.com/2',
      SENTRY_SAMPLE_RATE: '0.1',
      PAGE_TIMINGS: '{"connectionCheck": 3000, "poll": 2000}',
      REALTIME_ACTIVITY_TIMEOUT: '30',
      REALTIME_PONG_TIMEOUT: '5',
      REALTIME_MAX_CONNECTIONS: '100',
      REALTIME_MAX_SUBSCRIPTIONS: '3',
      REALTIME_MESSAGES_PER_SECOND: '5',
      REALTIME_MAX_BUFFERED_BYTES: '65536',
      REQUEST_TIMEOUT_SECONDS: '20',
      HEADERS_TIMEOUT_SECONDS: '4',
      KEEP_ALIVE_TIMEOUT_SECONDS: '2',
      ERROR_MESSAGE_BYTES: '200',
      ERROR_LOG_BYTES: '4096',
      ERROR_REPORTS_PER_MINUTE: '3',
      PUBLIC_SOURCE_MAPS: 'true',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      BOT_CHALLENGE: 'pow',
      BOT_CHALLENGE_DIFFICULTY: '500',
      PLACES_PER_ADDRESS: '4',
    });

    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      protect: ['/checkout', '/tickets/'],
      rooms: [expect.objectContaining({ protect: ['/checkout', '/tickets/'], activeLimit: 50, releasePerMinute: 0, awaySeconds: 90, claimSeconds: 120 })],
      sessionSeconds: 600,
      adminToken: 'a-long-enough-admin-token-here',
      adminTokenGenerated: false,
      sessionSecretGenerated: false,
      redisUrl: 'redis://localhost:6379',
      pusher: { embedded: false, appId: '1', key: 'key', secret: 'secret', host: 'soketi.local', port: 6001, useTLS: false },
      pusherClient: { host: 'ws.example.com', port: 443 },
      sentryDsn: 'https://k@sentry.example.com/2',
      sentrySampleRate: 0.1,
      pageTimings: { connectionCheck: 3000, poll: 2000 },
      realtime: {
        activityTimeoutSeconds: 30,
        pongTimeoutMs: 5000,
        maxConnections: 100,
        maxSubscriptions: 3,
        messagesPerSecond: 5,
        maxBufferedBytes: 65536,
      },
      http: { requestTimeoutMs: 20_000, headersTimeoutMs: 4_000, keepAliveTimeoutMs: 2_000 },
      sink: { messageBytes: 200, totalBytes: 4096, reportsPerMinute: 3 },
      publicSourceMaps: true,
      logLevel: 'warn',
      trustProxy: true,
      botCheck: { difficulty: 500, placesPerAddress: 4 },
    });
    expect(config.rooms[0]?.botChallenge).toBe('pow');
  });

  it("should read a room's away and claim times: AWAY_SECONDS (formerly ABANDON_SECONDS), CLAIM_SECONDS at most SESSION_SECONDS", () => {
    const notices: string[] = [];
    const formerly = loadConfig({ ABANDON_SECONDS: '600' }, (notice) => notices.push(notice));
    expect(formerly.rooms[0]).toMatchObject({ awaySeconds: 600, claimSeconds: 300 });
    expect(notices).toEqual(['ABANDON_SECONDS is now called AWAY_SECONDS; the old name still works.']);

    const rooms = loadConfig({
      AWAY_SECONDS: '900',
      CLAIM_SECONDS: '60',
      ROOMS: JSON.stringify([
        { name: 'tickets', protect: ['/tickets'], awaySeconds: 3600, claimSeconds: 120 },
        { name: 'shop', protect: ['/shop'] },
      ]),
    }).rooms;
    expect(rooms.map(({ awaySeconds, claimSeconds }) => ({ awaySeconds, claimSeconds }))).toEqual([
      { awaySeconds: 3600, claimSeconds: 120 },
      { awaySeconds: 900, claimSeconds: 60 },
    ]);

    expect(() => loadConfig({ SESSION_SECONDS: '60', CLAIM_SECONDS: '120' })).toThrow(
      new ConfigError('CLAIM_SECONDS (120) must be at most SESSION_SECONDS (60): a replay needs its admission.'),
    );
    expect(() => loadConfig({ ROOMS: JSON.stringify([{ name: 'a', protect: ['/a'], claimSeconds: 400 }]) })).toThrow(
      new ConfigError('ROOMS[0].claimSeconds (400) must be at most SESSION_SECONDS (300): a replay needs its admission.'),
    );
    expect(() => loadConfig({ ROOMS: JSON.stringify([{ name: 'a', protect: ['/a'], awaySeconds: 0 }]) })).toThrow(
      new ConfigError('ROOMS[0].awaySeconds must be a whole number from 1 to 604800.'),
    );
  });

  it("should split a room's line in its parts on Redis only, and not with its events", () => {
    const rooms = (list: object[], env: Record<string, string> = { REDIS_URL: 'redis://127.0.0.1:6379' }) =>
      loadConfig({ ...env, ROOMS: JSON.stringify(list) }).rooms;
    expect(
      rooms([
        { name: 'drop', protect: ['/drop'], parts: 8 },
        { name: 'shop', protect: ['/shop'], parts: 1 },
      ]).map((room) => room.parts),
    ).toEqual([8, undefined]);
    expect(() => rooms([{ name: 'drop', protect: ['/drop'], parts: 65 }])).toThrow(new ConfigError('ROOMS[0].parts must be a whole number from 1 to 64.'));
    expect(() => rooms([{ name: 'drop', protect: ['/drop'], parts: 2.5 }])).toThrow(new ConfigError('ROOMS[0].parts must be a whole number from 1 to 64.'));
    expect(() => rooms([{ name: 'drop', protect: ['/drop'], parts: 3 }], {})).toThrow(
      new ConfigError('Room "drop" is split in parts, each on a shard of Redis: set REDIS_URL, REDIS_SENTINELS or REDIS_CLUSTER_NODES.'),
    );
    const event = { name: 'Spring drop', eventStartTime: '2027-04-01T10:00:00Z', eventEndTime: '2027-04-01T12:00:00Z' };
    expect(() => rooms([{ name: 'drop', protect: ['/drop'], parts: 3, events: [event] }])).toThrow(
      new ConfigError('Room "drop" is split in parts: scheduled events are not available in it yet (docs/capacity.md).'),
    );
  });

  it('should read the adaptive admission settings, the feedback time defaulting to SESSION_SECONDS', () => {
    expect(loadConfig({}).rooms[0]?.admission).toEqual({ mode: 'fixed', originLatencyTargetMs: 1000, feedbackMs: 300_000 });
    expect(loadConfig({ ADMISSION: 'adaptive', ORIGIN_LATENCY_TARGET_MS: '250', SESSION_SECONDS: '120' }).rooms[0]?.admission).toEqual({
      mode: 'adaptive',
      originLatencyTargetMs: 250,
      feedbackMs: 120_000,
    });
    expect(loadConfig({ ADMISSION: 'adaptive', ADMISSION_FEEDBACK_SECONDS: '45' }).rooms[0]?.admission.feedbackMs).toBe(45_000);
    // The target is checked against the origin's timeout only where a controller reads it.
    expect(loadConfig({ UPSTREAM_TIMEOUT_MS: '500' }).rooms[0]?.admission.mode).toBe('fixed');
  });

  it('should read the declared events, from EVENTS, EVENTS_FILE or a room of ROOMS, and OPENING_POLLS_PER_SECOND', () => {
    const drop = { name: 'Spring drop', eventStartTime: '2030-05-01T10:00:00Z', eventEndTime: '2030-05-01T11:00:00Z' };
    expect(loadConfig({}).events).toEqual([]);
    expect(loadConfig({}).openingPollsPerSecond).toBe(20_000);
    expect(loadConfig({ EVENTS: JSON.stringify([drop]), OPENING_POLLS_PER_SECOND: '5000' })).toMatchObject({
      events: [{ id: 'spring-drop', room: 'default', name: 'Spring drop', queueingMethod: 'fifo', prequeueStartTime: null }],
      openingPollsPerSecond: 5000,
    });
    const file = `${tmpdir()}/wr-events-${process.pid}.json`;
    writeFileSync(file, JSON.stringify([{ ...drop, id: 'from-file' }]));
    expect(loadConfig({ EVENTS_FILE: file }).events.map((event) => event.id)).toEqual(['from-file']);
    const rooms = JSON.stringify([
      { name: 'shop', protect: ['/shop'], events: [drop] },
      { name: 'tickets', protect: ['/tickets'] },
    ]);
    const config = loadConfig({ ROOMS: rooms });
    expect(config.events).toEqual([expect.objectContaining({ id: 'spring-drop', room: 'shop' })]);
    expect(config.rooms[0]).toMatchObject({ name: 'shop', protect: ['/shop'], activeLimit: 2, releasePerMinute: 6 });
    expect(config.rooms[0]).not.toHaveProperty('events');
  });

  it('should read the bounds on held bodies, 64 MiB in all and 2 MiB per address by default, each at least the one inside it', () => {
    expect(loadConfig({}).gateway.heldBodies).toEqual({ total: 64 * 1024 * 1024, perAddress: 2 * 1024 * 1024 });
    expect(loadConfig({ HELD_BODIES_MAX_BYTES: '8192', HELD_BODIES_PER_ADDRESS_BYTES: '4096', HELD_BODY_LIMIT: '2048' }).gateway.heldBodies).toEqual({
      total: 8192,
      perAddress: 4096,
    });
    expect(() => loadConfig({ HELD_BODIES_PER_ADDRESS_BYTES: '4096' })).toThrow(
      'HELD_BODIES_PER_ADDRESS_BYTES (4096) must be at least HELD_BODY_LIMIT (65536).',
    );
    expect(() => loadConfig({ HELD_BODIES_MAX_BYTES: '1048576' })).toThrow(
      'HELD_BODIES_MAX_BYTES (1048576) must be at least HELD_BODIES_PER_ADDRESS_BYTES (2097152).',
    );
  });

  it('should read MAX_EVENTS_PER_ROOM, 100 by default, and refuse a room that declares more', () => {
    expect(loadConfig({}).maxEventsPerRoom).toBe(100);
    expect(loadConfig({ MAX_EVENTS_PER_ROOM: '2' }).maxEventsPerRoom).toBe(2);
    expect(() => loadConfig({ MAX_EVENTS_PER_ROOM: '0' })).toThrow('MAX_EVENTS_PER_ROOM must be a whole number from 1 to 10000; got "0".');
    const hourly = (hours: number) => ({ name: `Hour ${hours}`, eventStartTime: `2030-05-01T0${hours}:00:00Z`, eventEndTime: `2030-05-01T0${hours}:30:00Z` });
    const events = JSON.stringify([hourly(1), hourly(2), hourly(3)]);
    expect(loadConfig({ EVENTS: events, MAX_EVENTS_PER_ROOM: '3' }).events).toHaveLength(3);
    expect(() => loadConfig({ EVENTS: events, MAX_EVENTS_PER_ROOM: '2' })).toThrow('Room "default" declares more events than MAX_EVENTS_PER_ROOM (2) allows.');
  });

  it.each([
    [{ EVENTS: '[', EVENTS_FILE: '/nowhere' }, /Set EVENTS or EVENTS_FILE, not both/],
    [{ EVENTS: '[' }, /^EVENTS must be JSON: /],
    [{ EVENTS_FILE: '/nowhere/events.json' }, /^EVENTS_FILE cannot be read: /],
    [{ EVENTS: '{}' }, /^EVENTS must be a JSON array of events/],
    [{ EVENTS: JSON.stringify([{ name: 'X', eventStartTime: '2030-05-01T10:00:00Z', eventEndTime: '2030-05-01T09:00:00Z' }]) }, /^EVENTS\[0\]: the end/],
  ])('should refuse events that cannot be used (%p), naming them', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("should read a room's own page, its template found beside ROOMS_FILE or from the working directory", () => {
    const page = { template: 'pages/shop.html', words: { EN: { headline: 'Hi' }, fr: { headline: 'Salut' } } };
    const rooms = JSON.stringify([{ name: 'shop', protect: ['/shop'], page }]);
    const file = `${tmpdir()}/waiting-room-rooms-${process.pid}.json`;
    writeFileSync(file, rooms);

    expect(loadConfig({ ROOMS: rooms }).rooms[0].page).toEqual({
      template: path.resolve('pages/shop.html'),
      words: { en: { headline: 'Hi' }, fr: { headline: 'Salut' } },
    });
    expect(loadConfig({ ROOMS_FILE: file }).rooms[0].page?.template).toBe(path.join(tmpdir(), 'pages/shop.html'));
    expect(loadConfig({ ROOMS: rooms.replace(/,"page":.*\}\]$/, '}]') }).rooms[0].page).toBeUndefined();
  });

  it('should read STATE_FILE for the memory store', () => {
    expect(loadConfig({ STATE_FILE: '/var/lib/waiting-room/line.json' }).stateFile).toBe('/var/lib/waiting-room/line.json');
  });

  it.each([
    [{ PORT: 'http' }, 'PORT must be a whole number from 0 to 65535; got "http".'],
    [{ PORT: '70000' }, 'PORT must be a whole number from 0 to 65535; got "70000".'],
    [{ ACTIVE_LIMIT: '0' }, 'ACTIVE_LIMIT must be a whole number from 1 to 1000000; got "0".'],
    [{ RELEASE_PER_MINUTE: '-1' }, 'RELEASE_PER_MINUTE must be a whole number from 0 to 1000000; got "-1".'],
    [{ SESSION_SECONDS: '1.5' }, 'SESSION_SECONDS must be a whole number from 1 to 604800; got "1.5".'],
    [{ PROTECT: 'checkout' }, 'PROTECT must list paths starting with "/", comma-separated; got "checkout".'],
    [{ PROTECT: '/checkout,/a%2Fb' }, expect.stringMatching(/^PROTECT: "\/a%2Fb" is not a path the server routes \(.+\)\.$/)],
    [{ PROTECT: '/tickets?x=1' }, 'PROTECT: "/tickets?x=1" is not a path the server routes.'],
    [{ SESSION_SECRET: 'short' }, 'SESSION_SECRET must be at least 32 characters long.'],
    [{ BOT_CHALLENGE: 'captcha' }, 'BOT_CHALLENGE must be one of off, pow; got "captcha".'],
    [{ BOT_CHALLENGE_DIFFICULTY: '0' }, 'BOT_CHALLENGE_DIFFICULTY must be a whole number from 1 to 100000; got "0".'],
    [{ PLACES_PER_ADDRESS: '-1' }, 'PLACES_PER_ADDRESS must be a whole number from 0 to 1000000; got "-1".'],
    [{ ADMIN_TOKEN: 'abc' }, 'ADMIN_TOKEN must be at least 24 characters long (got 3); e.g. openssl rand -base64 24.'],
    [{ ADMIN_TOKEN: 'x'.repeat(23) }, 'ADMIN_TOKEN must be at least 24 characters long (got 23); e.g. openssl rand -base64 24.'],
    [{ ADMISSION: 'auto' }, 'ADMISSION must be one of fixed, adaptive; got "auto".'],
    [{ QUEUEING_STATUS_CODE: '302' }, 'QUEUEING_STATUS_CODE must be one of 503, 200, 202, 429; got "302".'],
    [
      { ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], queueingStatusCode: 302 }]) },
      'ROOMS[0].queueingStatusCode must be one of 503, 200, 202, 429.',
    ],
    [{ ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: 'pages/shop.html' }]) }, 'ROOMS[0].page must be an object.'],
    [{ ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { words: {} } }]) }, 'ROOMS[0].page.template must be the path of an HTML file.'],
    [
      { ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: 'a.html', scripts: [] } }]) },
      'ROOMS[0].page: unknown field "scripts"; known: template, words.',
    ],
    [
      { ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: 'a.html', words: { xx: {} } } }]) },
      expect.stringMatching(/^ROOMS\[0\]\.page\.words: "xx" must be one of en, /),
    ],
    [
      { ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: 'a.html', words: { en: { title: 1 } } } }]) },
      'ROOMS[0].page.words.en.title must be a string.',
    ],
    [
      { ROOMS: JSON.stringify([{ name: 'shop', protect: ['/shop'], page: { template: 'a.html', words: { en: { Title: 'x' } } } }]) },
      'ROOMS[0].page.words.en: the word name "Title" must be lower-case letters, digits and dashes.',
    ],
    [{ ORIGIN_LATENCY_TARGET_MS: '0' }, 'ORIGIN_LATENCY_TARGET_MS must be a whole number from 1 to 600000; got "0".'],
    [{ ADMISSION: 'adaptive', ORIGIN_LATENCY_TARGET_MS: '30000' }, 'ORIGIN_LATENCY_TARGET_MS (30000) must be below UPSTREAM_TIMEOUT_MS (30000).'],
    [{ ADMISSION_FEEDBACK_SECONDS: '0' }, 'ADMISSION_FEEDBACK_SECONDS must be a whole number from 1 to 604800; got "0".'],
    [{ REALTIME_MAX_SUBSCRIPTIONS: '1' }, 'REALTIME_MAX_SUBSCRIPTIONS must be a whole number from 2 to 1000; got "1".'],
    [
      { STATE_FILE: '/tmp/line.json', REDIS_URL: 'redis://localhost:6379' },
      'STATE_FILE keeps the memory store across a restart; with REDIS_URL the line already lives in Redis: unset one.',
    ],
    [{ REQUEST_TIMEOUT_SECONDS: '0' }, 'REQUEST_TIMEOUT_SECONDS must be a whole number from 1 to 3600; got "0".'],
    [{ REDIS_URL: 'localhost:6379' }, 'REDIS_URL must start with redis: or rediss:; got "localhost:6379".'],
    [
      { REDIS_URL: 'redis://a:6379', REDIS_CLUSTER_NODES: 'a:7000' },
      'Set one of REDIS_URL, REDIS_SENTINELS and REDIS_CLUSTER_NODES; got REDIS_URL and REDIS_CLUSTER_NODES.',
    ],
    [{ REDIS_SENTINELS: 'a:26379' }, 'REDIS_SENTINELS needs REDIS_SENTINEL_NAME: the name the Sentinels monitor the primary by (sentinel monitor <name> …).'],
    [{ REDIS_SENTINELS: 'a:26379,b', REDIS_SENTINEL_NAME: 'wr' }, 'REDIS_SENTINELS must list host:port pairs, comma-separated; got "b".'],
    [{ REDIS_CLUSTER_NODES: 'a:70000' }, 'REDIS_CLUSTER_NODES must list host:port pairs, comma-separated; got "a:70000".'],
    [
      { REDIS_CLUSTER_NODES: 'a:7000', REDIS_SENTINEL_NAME: 'wr' },
      'REDIS_SENTINEL_NAME and REDIS_SENTINEL_PASSWORD go with REDIS_SENTINELS, not REDIS_CLUSTER_NODES.',
    ],
    [
      { REDIS_URL: 'redis://a:6379', REDIS_PASSWORD: 'p' },
      'REDIS_PASSWORD goes with REDIS_SENTINELS or REDIS_CLUSTER_NODES; with REDIS_URL put credentials and rediss: in the URL.',
    ],
    [{ REDIS_CLUSTER_NODES: 'a:7000', REDIS_TLS: 'maybe' }, 'REDIS_TLS must be true or false; got "maybe".'],
    [
      { STATE_FILE: '/tmp/line.json', REDIS_CLUSTER_NODES: 'a:7000' },
      'STATE_FILE keeps the memory store across a restart; with REDIS_CLUSTER_NODES the line already lives in Redis: unset one.',
    ],
    [{ PUSHER_KEY: 'key' }, 'An outside Pusher-protocol server needs PUSHER_APP_ID, PUSHER_KEY and PUSHER_SECRET together.'],
    [{ PUSHER_APP_ID: '1', PUSHER_KEY: 'k', PUSHER_SECRET: 's' }, 'Set PUSHER_HOST (soketi, Reverb) or PUSHER_CLUSTER (Pusher Channels).'],
    [
      { PUSHER_APP_ID: '1', PUSHER_KEY: 'k', PUSHER_SECRET: 's', PUSHER_HOST: 'h', PUSHER_USE_TLS: 'maybe' },
      'PUSHER_USE_TLS must be true or false; got "maybe".',
    ],
    [{ SENTRY_SAMPLE_RATE: '2' }, 'SENTRY_SAMPLE_RATE must be a number from 0 to 1; got "2".'],
    [{ SENTRY_DSN: 'not a url' }, 'SENTRY_DSN must be a URL; got "not a url".'],
    [{ PAGE_TIMINGS: '{oops' }, 'PAGE_TIMINGS must be JSON, e.g. {"positionZeroTimeout": 2000}; got "{oops".'],
    [{ PAGE_TIMINGS: '{"never": 1}' }, expect.stringContaining('PAGE_TIMINGS: unknown timing "never"')],
    [{ PAGE_TIMINGS: '{"poll": 0}' }, 'PAGE_TIMINGS: "poll" must be a positive number of ms.'],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud".'],
  ])('should refuse %j with a clear message', (env, message) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toEqual(message);
  });
});

describe('configWarnings', () => {
  const secret = 'a-pass-secret-of-at-least-32-characters';

  it('should warn of PASS_SECRET without any connector origin, naming CONNECTOR_ORIGINS', () => {
    expect(configWarnings(loadConfig({ PASS_SECRET: secret }))).toEqual([expect.stringContaining('CONNECTOR_ORIGINS')]);
    expect(configWarnings(loadConfig({ PASS_SECRET: secret, CONNECTOR_ORIGINS: 'https://shop.example' }))).toEqual([]);
    expect(configWarnings(loadConfig({}))).toEqual([]);
  });
});
