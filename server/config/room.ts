import { CONFIG_SCHEMA, type ConfigVariable } from './environment';

/** One field of a room in ROOMS: what it holds, and the variable it stands in for, if any. */
export interface RoomFieldDeclaration {
  readonly description: string;
  /** The variable whose value it replaces in this room; its range, choices and default are the room's. */
  readonly variable?: ConfigVariable;
  /** What it holds, where the variable's (a comma-separated string) is not a room's JSON. */
  readonly accepts?: string;
  /** What leaving it out means, where its variable does not say. */
  readonly unset?: string;
}

/**
 * A room's fields in ROOMS or ROOMS_FILE, declared once: the check of a room, its message and
 * the documentation's table of them come from here. A field that stands in for a variable takes
 * that variable's range and default (a room's `activeLimit` is bounded as ACTIVE_LIMIT).
 */
export const ROOM_FIELDS = {
  name: {
    description: "The room's name: in its store keys and its page's routes.",
    accepts: '1 to 32 lower-case letters, digits or dashes',
    unset: 'required',
  },
  protect: {
    variable: 'PROTECT',
    description: "Its path prefixes, matched as `PROTECT`'s; a prefix belongs to one room only (of two that match, the longer wins).",
    accepts: 'a JSON array of path prefixes',
    unset: 'required, unless the room has `connectorOrigins`',
  },
  activeLimit: { variable: 'ACTIVE_LIMIT', description: 'Sessions admitted at once; with adaptive admission, the most the controller may set.' },
  releasePerMinute: { variable: 'RELEASE_PER_MINUTE', description: 'Releases a minute; with adaptive admission, the most the controller may set.' },
  awaySeconds: { variable: 'AWAY_SECONDS', description: 'How long a waiting visitor may be away and keep the place ([places.md](places.md#away-and-back)).' },
  claimSeconds: {
    variable: 'CLAIM_SECONDS',
    description: 'How long a visitor released while away has to come back for the replay; at most `SESSION_SECONDS`.',
  },
  locale: {
    variable: 'DEFAULT_LOCALE',
    description: 'The language its pages speak whatever the browser asks (a visitor may still pick another).',
    unset: "the browser's",
  },
  admission: { variable: 'ADMISSION', description: 'How its rate and limit are set ([adaptive-admission.md](adaptive-admission.md)).' },
  originLatencyTargetMs: {
    variable: 'ORIGIN_LATENCY_TARGET_MS',
    description: "Adaptive: the p99 latency the origin's answers to its admitted requests should stay under.",
  },
  events: {
    variable: 'EVENTS',
    description: "Its scheduled events ([drop-day.md](drop-day.md)); while one runs, its limits replace the room's.",
    accepts: 'a JSON array of events',
    unset: 'none',
  },
  botChallenge: {
    variable: 'BOT_CHALLENGE',
    description: 'Whether a held visitor solves a proof of work before taking a place ([bot-check.md](bot-check.md)).',
  },
  codeMinutes: { variable: 'CODE_MINUTES', description: 'How long a priority code issued for it stays usable ([places.md](places.md#ahead-with-a-code)).' },
  queueingStatusCode: { variable: 'QUEUEING_STATUS_CODE', description: "The status of a held API client's answer." },
  reportRetentionHours: {
    variable: 'REPORT_RETENTION_HOURS',
    description: 'How long its report is kept after its last change, in hours ([drop-day.md](drop-day.md#report)).',
  },
  connectorOrigins: {
    variable: 'CONNECTOR_ORIGINS',
    description: 'The sites whose connectors may send visitors to it and get them back with a pass. Needs `PASS_SECRET`.',
    accepts: 'a JSON array of origins, `http(s)://host[:port]`',
    unset: 'none',
  },
  parts: {
    description:
      'The parts its line is split into, each on a shard of its own, for a room past what one Redis core takes ([capacity.md](capacity.md#one-room-across-shards)). Needs Redis; refused with its events.',
    // MAX_PARTS in store/redis/parts.ts, which the configuration, a leaf, cannot name.
    accepts: '1 to 64',
    unset: '1: the line whole',
  },
  page: {
    description: 'Its own waiting page: a template and its words ([own-page.md](own-page.md)).',
    accepts: '`{template, words?}`',
    unset: 'the default page',
  },
} as const satisfies Record<string, RoomFieldDeclaration>;

export type RoomField = keyof typeof ROOM_FIELDS;

export const ROOM_FIELD_NAMES = Object.keys(ROOM_FIELDS) as RoomField[];

/** The whole-number fields of a room, each bounded as the variable it stands in for. */
export type RoomWholeField =
  'activeLimit' | 'releasePerMinute' | 'originLatencyTargetMs' | 'reportRetentionHours' | 'awaySeconds' | 'claimSeconds' | 'codeMinutes';

/** The range of a whole-number field of a room: its variable's `minimum` and `maximum`. */
export function roomFieldRange(field: RoomWholeField): { readonly min: number; readonly max: number } {
  const schema = CONFIG_SCHEMA.properties[ROOM_FIELDS[field].variable];
  return { min: schema.minimum, max: schema.maximum };
}
