import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../../server/process/config';
import { CONFIG_DOC_PATH, configurationDoc } from '../../server/process/config-doc';
import { CONFIG_SCHEMA, SERVER_VARIABLES, VARIABLES } from '../../server/config/environment';
import { inheritedEnvironment } from '../support/server-environment';

const ROOT = path.resolve(__dirname, '../..');

/** Secrets fixed, so that two loads differ only where the environment does. */
const SECRETS = { ADMIN_TOKEN: 'a-long-enough-admin-token-here', SESSION_SECRET: 's'.repeat(32), PUSHER_SECRET: 'p'.repeat(24) };

describe('the configuration schema', () => {
  it('should be what docs/configuration.md says (npm run docs:config writes it)', () => {
    expect(readFileSync(path.join(ROOT, CONFIG_DOC_PATH), 'utf8')).toBe(configurationDoc());
  });

  it.each(VARIABLES.filter(([, schema]) => schema.default !== undefined))('should apply the documented default of %s', (name, schema) => {
    // Set to its documented default, the variable changes nothing: the default applied is that one.
    expect(loadConfig({ ...SECRETS, [name]: String(schema.default) })).toEqual(loadConfig(SECRETS));
  });

  it('should say for every variable what it holds and what unset means', () => {
    for (const [name, schema] of VARIABLES) {
      expect([name, schema.description.length > 0]).toEqual([name, true]);
      expect([name, schema.default !== undefined || schema.unset !== undefined]).toEqual([name, true]);
    }
  });

  it.each(VARIABLES.filter(([, schema]) => schema.type !== 'string' || schema.enum !== undefined || schema.minLength !== undefined))(
    'should refuse a bad %s with a message naming it',
    (name) => {
      expect(() => loadConfig({ [name]: 'x' })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: 'x' })).toThrow(new RegExp(`^${name} must be `));
    },
  );
});

describe('former names', () => {
  const renamed = VARIABLES.flatMap(([name, schema]) => (schema.formerly ?? []).map((old) => [old, name] as const));

  it('should include the away time and the realtime timeouts, now in seconds by name', () => {
    expect(renamed).toEqual([
      ['ABANDON_SECONDS', 'AWAY_SECONDS'],
      ['REALTIME_ACTIVITY_TIMEOUT', 'REALTIME_ACTIVITY_TIMEOUT_SECONDS'],
      ['REALTIME_PONG_TIMEOUT', 'REALTIME_PONG_TIMEOUT_SECONDS'],
    ]);
  });

  it.each(renamed)('should still read %s, saying once that it is now %s', (old, name) => {
    const notice = jest.fn();

    const config = loadConfig({ ...SECRETS, [old]: '7' }, notice);

    expect(config).toEqual(loadConfig({ ...SECRETS, [name]: '7' }));
    expect(config).not.toEqual(loadConfig(SECRETS));
    expect(notice.mock.calls).toEqual([[`${old} is now called ${name}; the old name still works.`]]);
  });

  it('should take the current name when both are set, and say the former one is ignored', () => {
    const notice = jest.fn();

    const config = loadConfig({ REALTIME_ACTIVITY_TIMEOUT: '7', REALTIME_ACTIVITY_TIMEOUT_SECONDS: '9' }, notice);

    expect(config.realtime.activityTimeoutSeconds).toBe(9);
    expect(notice.mock.calls).toEqual([['REALTIME_ACTIVITY_TIMEOUT is ignored: it is now called REALTIME_ACTIVITY_TIMEOUT_SECONDS, which is set.']]);
  });

  it('should name a bad value by the name it was given under', () => {
    expect(() => loadConfig({ REALTIME_PONG_TIMEOUT: 'soon' })).toThrow('REALTIME_PONG_TIMEOUT must be a number from 0.05 to 600; got "soon".');
    expect(() => loadConfig({ REALTIME_PONG_TIMEOUT_SECONDS: 'soon' })).toThrow('REALTIME_PONG_TIMEOUT_SECONDS must be a number from 0.05 to 600; got "soon".');
  });
});

describe('values as people write them', () => {
  it('should take flags as yes/no, on/off, 1/0, in any case, and choices in any case', () => {
    expect(loadConfig({ TRUST_PROXY: 'YES', PUBLIC_SOURCE_MAPS: 'on' })).toMatchObject({ trustProxy: true, publicSourceMaps: true });
    expect(loadConfig({ TRUST_PROXY: '0', PUBLIC_SOURCE_MAPS: 'Off' })).toMatchObject({ trustProxy: false, publicSourceMaps: false });
    expect(loadConfig({ LOG_LEVEL: 'WARN', DEFAULT_LOCALE: 'pt-br' })).toMatchObject({ logLevel: 'warn', languages: { defaultLocale: 'pt-BR' } });
  });

  it('should count a blank variable as unset, and trim the others', () => {
    expect(loadConfig({ ...SECRETS, PORT: '  ', PROTECT: '' })).toEqual(loadConfig(SECRETS));
    expect(loadConfig({ PORT: ' 9000 ' }).port).toBe(9000);
  });

  it('should say the length of a short secret, never the secret', () => {
    expect(() => loadConfig({ BYPASS_SECRET: 'hunter2' })).toThrow('BYPASS_SECRET must be at least 32 characters long (got 7); e.g. openssl rand -base64 32.');
  });
});

describe("the README's first variables", () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| [^|]+ \| ([^|]+) \|$/gm)].map(([, name, stated]) => [name, stated.trim()] as const);
  const schemas = new Map<string, { readonly default?: unknown }>(VARIABLES);

  it('should name some', () => {
    expect(rows.length).toBeGreaterThan(3);
  });

  it.each(rows)('should name %s as the schema declares it, with its default', (name, stated) => {
    expect(schemas.has(name)).toBe(true);
    const declared = schemas.get(name)?.default;
    // A default the schema states as a value is the README's to the letter; the others are described.
    if (typeof declared === 'number' || typeof declared === 'string' || typeof declared === 'boolean') expect(stated.replace(/`/g, '')).toBe(String(declared));
  });
});

describe("the variables a test's server does not inherit", () => {
  const declared = VARIABLES.flatMap(([name, schema]) => [name, ...(schema.formerly ?? [])]);

  it('should be every name the declaration reads, former names included', () => {
    expect([...SERVER_VARIABLES].sort()).toEqual([...declared].sort());
    expect(SERVER_VARIABLES).toEqual(expect.arrayContaining(['PASS_SECRET', 'CONNECTOR_ORIGINS', 'MAX_EVENTS_PER_ROOM', 'REALTIME_PONG_TIMEOUT']));
  });

  it("should clear each of them from the shell's environment, and keep the rest", () => {
    const shell = { ...Object.fromEntries(declared.map((name) => [name, 'from-the-shell'])), PATH: '/usr/bin', HOME: '/home/someone' };
    expect(inheritedEnvironment(shell)).toEqual({ PATH: '/usr/bin', HOME: '/home/someone' });
  });
});

describe("a room's fields", () => {
  it.each([
    ['activeLimit', 'ACTIVE_LIMIT'],
    ['releasePerMinute', 'RELEASE_PER_MINUTE'],
    ['originLatencyTargetMs', 'ORIGIN_LATENCY_TARGET_MS'],
  ] as const)("should bound %s as %s's range", (field, variable) => {
    const { minimum, maximum } = CONFIG_SCHEMA.properties[variable];
    const room = (value: number) => ({ ...SECRETS, ROOMS: JSON.stringify([{ name: 'a', protect: ['/a'], [field]: value }]) });
    const message = `ROOMS[0].${field} must be a whole number from ${minimum} to ${maximum}.`;
    expect(() => loadConfig(room(minimum - 1))).toThrow(message);
    expect(() => loadConfig(room(maximum + 1))).toThrow(message);
    expect(() => loadConfig(room(minimum))).not.toThrow();
    expect(() => loadConfig(room(maximum))).not.toThrow();
  });
});
