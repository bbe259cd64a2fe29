import { CONFIG_SCHEMA, type ConfigVariable } from './environment';

/**
 * A room's fields in ROOMS or ROOMS_FILE, declared once: what each is, and the environment
 * variable it stands in for in that room, whose range and choices it takes (a room's
 * `activeLimit` is checked against ACTIVE_LIMIT's bounds).
 */
export const ROOM_FIELDS = {
  name: { description: '1 to 32 lower-case letters, digits or dashes' },
  protect: { variable: 'PROTECT', description: 'its path prefixes' },
  activeLimit: { variable: 'ACTIVE_LIMIT', description: 'sessions admitted at once' },
  releasePerMinute: { variable: 'RELEASE_PER_MINUTE', description: 'releases a minute' },
  locale: { description: 'the language its pages speak whatever the browser asks' },
  admission: { variable: 'ADMISSION', description: '`fixed` or `adaptive`' },
  originLatencyTargetMs: { variable: 'ORIGIN_LATENCY_TARGET_MS', description: 'the p99 latency adaptive admission aims under' },
  events: { variable: 'EVENTS', description: 'its own scheduled events' },
  botChallenge: { variable: 'BOT_CHALLENGE', description: 'its bot check' },
  queueingStatusCode: { variable: 'QUEUEING_STATUS_CODE', description: "a held API client's status" },
  connectorOrigins: { variable: 'CONNECTOR_ORIGINS', description: 'the sites whose connectors send visitors to it' },
  page: { description: 'its own waiting page: a template and its words' },
} as const satisfies Record<string, { readonly variable?: ConfigVariable; readonly description: string }>;

export type RoomField = keyof typeof ROOM_FIELDS;

export const ROOM_FIELD_NAMES = Object.keys(ROOM_FIELDS) as RoomField[];

/** The whole-number fields of a room, each bounded as the variable it stands in for. */
export type RoomWholeField = 'activeLimit' | 'releasePerMinute' | 'originLatencyTargetMs';

/** The range of a whole-number field of a room: its variable's `minimum` and `maximum`. */
export function roomFieldRange(field: RoomWholeField): { readonly min: number; readonly max: number } {
  const schema = CONFIG_SCHEMA.properties[ROOM_FIELDS[field].variable];
  return { min: schema.minimum, max: schema.maximum };
}
