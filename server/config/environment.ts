import type { FromSchema } from 'json-schema-to-ts';
import { GATEWAY_VARIABLES } from './variables-gateway';
import { LINE_VARIABLES } from './variables-line';
import { PAGE_VARIABLES } from './variables-page';
import type { VariableSchema } from './variable';

export { ADMISSION_MODES, BOT_CHALLENGES, LOG_LEVELS, QUEUEING_STATUS_CODES, type QueueingStatusCode } from './choices';
export { ADMIN_TOKEN_MIN_LENGTH, CONFIG_KEYWORDS, DEFAULT_DIFFICULTY, MAX_DIFFICULTY, SECTIONS, type VariableSchema } from './variable';

/** Every variable of the server, in the order they are documented (variable.ts says what a declaration holds). */
const PROPERTIES = { ...GATEWAY_VARIABLES, ...LINE_VARIABLES, ...PAGE_VARIABLES } as const satisfies Record<string, VariableSchema>;

export const CONFIG_SCHEMA = { type: 'object', properties: PROPERTIES } as const;

/** The environment once validated: each variable of its type, with its default when it has one. */
export type ConfigEnv = FromSchema<typeof CONFIG_SCHEMA>;

export type ConfigVariable = keyof typeof CONFIG_SCHEMA.properties;

/** The variables in the order they are documented. */
export const VARIABLES = Object.entries(PROPERTIES) as [ConfigVariable, VariableSchema][];

/**
 * Every name the server reads from its environment: each variable and the names it had before.
 * A test clears these from its own shell before it starts a server, so nothing leaks in.
 */
export const SERVER_VARIABLES: readonly string[] = VARIABLES.flatMap(([name, schema]) => [name, ...(schema.formerly ?? [])]);
