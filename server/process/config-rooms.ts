import path from 'node:path';
import { ADMISSION_MODES, QUEUEING_STATUS_CODES, type ConfigEnv, type QueueingStatusCode } from '../config/environment';
import { ROOM_FIELD_NAMES, roomFieldRange, type RoomWholeField } from '../config/room';
import { BOT_CHALLENGES, type BotChallengeMode } from '../domain/bot-check/mode';
import { declaredEvents, type DeclaredEvent } from '../domain/events/declared';
import { ConfigError, type ReadEnvironment } from './config-env';
import { jsonSetting } from './config-files';
import type { AdmissionConfig, AdmissionMode, RoomConfig, RoomPageConfig } from './config-types';
import { connectorOrigins, localeOf, prefixes } from './config-values';
import { MAX_PARTS } from '../store/redis/parts';

const ROOM_NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const ROOM_FIELD_SET = new Set<string>(ROOM_FIELD_NAMES);

/** A room as read from ROOMS, with the events it declares (taken out into `ServerConfig.events`). */
export type RoomWithEvents = RoomConfig & { readonly events?: unknown };

/**
 * The rooms: ROOMS (JSON) or ROOMS_FILE (a JSON file), an array of `{name, protect, activeLimit?,
 * releasePerMinute?, botChallenge?}`, the limits defaulting to ACTIVE_LIMIT and RELEASE_PER_MINUTE
 * and the bot check to BOT_CHALLENGE; without either, one room named `default` holding PROTECT.
 * A prefix belongs to one room only.
 */
export function roomsConfig(
  { values: v, given: set }: ReadEnvironment,
  defaults: {
    activeLimit: number;
    releasePerMinute: number;
    reportRetentionHours: number;
    admission: AdmissionConfig;
    botChallenge: BotChallengeMode;
    queueingStatusCode: QueueingStatusCode;
    awaySeconds: number;
    claimSeconds: number;
    codeMinutes: number;
  },
  responseTimeoutMs: number,
  sessionSeconds: number,
): RoomWithEvents[] {
  const given = jsonSetting('ROOMS', v.ROOMS, v.ROOMS_FILE, '[{"name": "tickets", "protect": ["/tickets"]}, …]');
  if (defaults.claimSeconds > sessionSeconds) {
    throw new ConfigError(`CLAIM_SECONDS (${defaults.claimSeconds}) must be at most SESSION_SECONDS (${sessionSeconds}): a replay needs its admission.`);
  }
  if (given === undefined) {
    return [
      {
        name: 'default',
        protect: prefixes('PROTECT', v.PROTECT, true),
        ...defaults,
        connectorOrigins: connectorOrigins('CONNECTOR_ORIGINS', v.CONNECTOR_ORIGINS),
      },
    ];
  }
  if (set.has('PROTECT')) {
    throw new ConfigError('With ROOMS or ROOMS_FILE, each room lists its own prefixes: unset PROTECT.');
  }
  if (set.has('CONNECTOR_ORIGINS')) {
    throw new ConfigError('With ROOMS or ROOMS_FILE, each room lists its own connectorOrigins: unset CONNECTOR_ORIGINS.');
  }
  const { source, value } = given;
  if (!Array.isArray(value) || value.length === 0) throw new ConfigError(`${source} must be a non-empty JSON array of rooms.`);
  const names = new Set<string>();
  const owners = new Map<string, string>();
  // A room's page template is found beside ROOMS_FILE, or from the working directory.
  const pagesBase = v.ROOMS_FILE !== undefined ? path.dirname(path.resolve(v.ROOMS_FILE)) : process.cwd();
  return value.map((raw: unknown, index): RoomWithEvents => {
    const at = `${source}[${index}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError(`${at} must be an object.`);
    const room = raw as Record<string, unknown>;
    const unknown = Object.keys(room).find((key) => !ROOM_FIELD_SET.has(key));
    if (unknown !== undefined) throw new ConfigError(`${at}: unknown field "${unknown}"; known: ${ROOM_FIELD_NAMES.join(', ')}.`);
    if (typeof room.name !== 'string' || !ROOM_NAME.test(room.name)) {
      throw new ConfigError(`${at}.name must be 1 to 32 lower-case letters, digits or dashes.`);
    }
    if (names.has(room.name)) throw new ConfigError(`${at}: the room name "${room.name}" is used twice.`);
    names.add(room.name);
    const givenOrigins = room.connectorOrigins ?? [];
    if (!Array.isArray(givenOrigins) || !givenOrigins.every((origin) => typeof origin === 'string')) {
      throw new ConfigError(`${at}.connectorOrigins must be an array of origins (https://host[:port]).`);
    }
    const origins = connectorOrigins(`${at}.connectorOrigins`, givenOrigins.join(','));
    // A room only connectors send visitors to needs no prefix of the gateway's.
    const protectOptional = origins.length > 0 && (room.protect === undefined || (Array.isArray(room.protect) && room.protect.length === 0));
    if (!protectOptional && (!Array.isArray(room.protect) || room.protect.length === 0 || !room.protect.every((p) => typeof p === 'string'))) {
      throw new ConfigError(`${at}.protect must be a non-empty array of path prefixes (or, for a room only connectors use, left out).`);
    }
    const protect = protectOptional ? [] : prefixes('PROTECT', (room.protect as string[]).join(','), false);
    for (const prefix of protect) {
      const key = prefix.toLowerCase().replace(/\/+$/, '') || '/';
      const owner = owners.get(key);
      if (owner !== undefined) throw new ConfigError(`${at}: the prefix ${prefix} is already room "${owner}"'s.`);
      owners.set(key, room.name);
    }
    const whole = (field: RoomWholeField): number | undefined => {
      const given = room[field];
      const { min, max } = roomFieldRange(field);
      if (given === undefined) return undefined;
      if (typeof given !== 'number' || !Number.isInteger(given) || given < min || given > max) {
        throw new ConfigError(`${at}.${field} must be a whole number from ${min} to ${max}.`);
      }
      return given;
    };
    const mode = room.admission ?? defaults.admission.mode;
    if (!(ADMISSION_MODES as readonly unknown[]).includes(mode)) {
      throw new ConfigError(`${at}.admission must be one of ${ADMISSION_MODES.join(', ')}.`);
    }
    const target = whole('originLatencyTargetMs') ?? defaults.admission.originLatencyTargetMs;
    if (mode === 'adaptive' && target >= responseTimeoutMs) {
      throw new ConfigError(`${at}.originLatencyTargetMs (${target}) must be below UPSTREAM_TIMEOUT_MS (${responseTimeoutMs}).`);
    }
    const botChallenge = room.botChallenge ?? defaults.botChallenge;
    if (!(BOT_CHALLENGES as readonly unknown[]).includes(botChallenge)) {
      throw new ConfigError(`${at}.botChallenge must be one of ${BOT_CHALLENGES.join(', ')}.`);
    }
    const claimSeconds = whole('claimSeconds') ?? defaults.claimSeconds;
    if (claimSeconds > sessionSeconds) {
      throw new ConfigError(`${at}.claimSeconds (${claimSeconds}) must be at most SESSION_SECONDS (${sessionSeconds}): a replay needs its admission.`);
    }
    const parts = room.parts ?? 1;
    if (typeof parts !== 'number' || !Number.isInteger(parts) || parts < 1 || parts > MAX_PARTS) {
      throw new ConfigError(`${at}.parts must be a whole number from 1 to ${MAX_PARTS}.`);
    }
    const queueingStatusCode = room.queueingStatusCode ?? defaults.queueingStatusCode;
    if (!(QUEUEING_STATUS_CODES as readonly unknown[]).includes(queueingStatusCode)) {
      throw new ConfigError(`${at}.queueingStatusCode must be one of ${QUEUEING_STATUS_CODES.join(', ')}.`);
    }
    return {
      name: room.name,
      protect,
      activeLimit: whole('activeLimit') ?? defaults.activeLimit,
      releasePerMinute: whole('releasePerMinute') ?? defaults.releasePerMinute,
      reportRetentionHours: whole('reportRetentionHours') ?? defaults.reportRetentionHours,
      codeMinutes: whole('codeMinutes') ?? defaults.codeMinutes,
      ...(room.locale === undefined ? {} : { locale: localeOf(room.locale, `${at}.locale`) }),
      admission: { ...defaults.admission, mode: mode as AdmissionMode, originLatencyTargetMs: target },
      ...(room.events !== undefined && { events: room.events }),
      botChallenge: botChallenge as BotChallengeMode,
      queueingStatusCode: queueingStatusCode as QueueingStatusCode,
      connectorOrigins: origins,
      awaySeconds: whole('awaySeconds') ?? defaults.awaySeconds,
      claimSeconds,
      ...(room.page !== undefined && { page: roomPage(room.page, `${at}.page`, pagesBase) }),
      ...(parts > 1 && { parts }),
    };
  });
}

const WORD_NAME = /^[a-z][a-z0-9-]*$/;

/**
 * A room's own page: `{template, words?}`, the template's path relative to `base` (ROOMS_FILE's
 * folder, or the working directory), the words by language then name, each a string. The
 * template itself is read and checked at start (page-template.ts), where its blocks are known.
 */
function roomPage(value: unknown, at: string, base: string): RoomPageConfig {
  const object = (given: unknown, where: string): Record<string, unknown> => {
    if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new ConfigError(`${where} must be an object.`);
    return given as Record<string, unknown>;
  };
  const { template, words = {}, ...rest } = object(value, `${at}`);
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) throw new ConfigError(`${at}: unknown field "${unknown}"; known: template, words.`);
  if (typeof template !== 'string' || template.trim() === '') throw new ConfigError(`${at}.template must be the path of an HTML file.`);
  const byLanguage = Object.entries(object(words, `${at}.words`)).map(([language, given]) => {
    const locale = localeOf(language, `${at}.words: "${language}"`);
    const named = Object.entries(object(given, `${at}.words.${language}`));
    for (const [name, word] of named) {
      if (!WORD_NAME.test(name)) throw new ConfigError(`${at}.words.${language}: the word name "${name}" must be lower-case letters, digits and dashes.`);
      if (typeof word !== 'string') throw new ConfigError(`${at}.words.${language}.${name} must be a string.`);
    }
    return [locale, Object.fromEntries(named) as Record<string, string>] as const;
  });
  return { template: path.resolve(base, template), words: Object.fromEntries(byLanguage) };
}

/**
 * The declared events: EVENTS (JSON) or EVENTS_FILE (a JSON file), an array of events each naming
 * its `room` (which may be left out when there is one), and the `events` of each room of ROOMS;
 * at most `maxPerRoom` (MAX_EVENTS_PER_ROOM) in a room.
 */
export function eventsConfig(v: ConfigEnv, rooms: readonly RoomWithEvents[], maxPerRoom: number): DeclaredEvent[] {
  const given = jsonSetting('EVENTS', v.EVENTS, v.EVENTS_FILE, '[{"name": "Spring drop", "eventStartTime": "…", …}, …]');
  let declared: DeclaredEvent[];
  try {
    declared = declaredEvents(
      given?.source ?? 'EVENTS',
      given?.value ?? [],
      rooms.map((room) => ({ name: room.name, events: room.events })),
    );
  } catch (error) {
    throw new ConfigError((error as Error).message);
  }
  const parted = rooms.find((room) => room.parts !== undefined && declared.some((event) => event.room === room.name));
  if (parted) throw new ConfigError(`Room "${parted.name}" is split in parts: scheduled events are not available in it yet (docs/capacity.md).`);
  const crowded = rooms.find((room) => declared.filter((event) => event.room === room.name).length > maxPerRoom);
  if (crowded) throw new ConfigError(`Room "${crowded.name}" declares more events than MAX_EVENTS_PER_ROOM (${maxPerRoom}) allows.`);
  return declared;
}
