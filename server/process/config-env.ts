import envSchema from 'env-schema';
import type Ajv from 'ajv';
import type { ErrorObject } from 'ajv';
import { CONFIG_KEYWORDS, CONFIG_SCHEMA, VARIABLES, type ConfigEnv, type ConfigVariable, type VariableSchema } from '../config/environment';

export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration value that cannot be used; `main.ts` prints it and exits. */
export class ConfigError extends Error {}

/** The environment read against the schema. */
export interface ReadEnvironment {
  /** Every variable of its type, its default applied where it has one. */
  readonly values: ConfigEnv;
  /** The variables that were set (by their name or a former one), for the rules on what was given. */
  readonly given: ReadonlySet<ConfigVariable>;
}

const SCHEMA = { ...CONFIG_SCHEMA, additionalProperties: false };

let ajv: Ajv | undefined;
/** One validator for every read, so that the schema is compiled once; it knows our annotations. */
const withKeywords = (fresh: Ajv): Ajv => (ajv ??= fresh.addVocabulary([...CONFIG_KEYWORDS]));

const TRUE = ['1', 'true', 'yes', 'on'];
const FALSE = ['0', 'false', 'no', 'off'];

/**
 * Reads every variable of the schema from `env`: trimmed, empty meaning unset, a former name read
 * when the current one is unset (saying so through `notice`), then checked and typed by the schema
 * with its defaults. Throws a `ConfigError` naming the variable when a value cannot be used.
 */
export function readEnvironment(env: Env, notice: (message: string) => void): ReadEnvironment {
  const data: Record<string, string> = {};
  /** The name each value was read under, for messages. */
  const names = new Map<string, string>();
  for (const [name, schema] of VARIABLES) {
    const value = set(env[name]);
    const former = (schema.formerly ?? []).find((old) => set(env[old]) !== undefined);
    if (former !== undefined) {
      notice(
        value === undefined ? `${former} is now called ${name}; the old name still works.` : `${former} is ignored: it is now called ${name}, which is set.`,
      );
    }
    const raw = value ?? (former === undefined ? undefined : set(env[former]));
    if (raw === undefined) continue;
    data[name] = normalized(schema, raw);
    names.set(name, value === undefined ? (former as string) : name);
  }
  let values: ConfigEnv;
  try {
    values = envSchema<ConfigEnv>({ schema: SCHEMA, data, env: false, ajv: { customOptions: withKeywords } });
  } catch (error) {
    const first = (error as { errors?: ErrorObject[] }).errors?.[0];
    const name = first?.instancePath.slice(1);
    const schema = VARIABLES.find(([known]) => known === name)?.[1];
    if (name === undefined || schema === undefined) throw error;
    throw new ConfigError(problem(names.get(name) ?? name, schema, data[name] ?? ''));
  }
  return { values, given: new Set(names.keys() as Iterable<ConfigVariable>) };
}

function set(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Flags in the words people write them in, and choices in any letter case (`pt-br`, `INFO`). */
function normalized(schema: VariableSchema, raw: string): string {
  if (schema.type === 'boolean') {
    const word = raw.toLowerCase();
    return TRUE.includes(word) ? 'true' : FALSE.includes(word) ? 'false' : word;
  }
  return schema.enum?.find((choice) => choice.toLowerCase() === raw.toLowerCase()) ?? raw;
}

/** What a refused value should be, in the schema's terms. */
function problem(name: string, schema: VariableSchema, raw: string): string {
  const range = `from ${schema.minimum} to ${schema.maximum}`;
  if (schema.type === 'integer') return `${name} must be a whole number ${range}; got "${raw}".`;
  if (schema.type === 'number') return `${name} must be a number ${range}; got "${raw}".`;
  if (schema.type === 'boolean') return `${name} must be true or false; got "${raw}".`;
  if (schema.enum !== undefined) return `${name} must be one of ${schema.enum.join(', ')}; got "${raw}".`;
  if (schema.minLength !== undefined) {
    // The value may be a secret: only its length is said.
    return `${name} must be at least ${schema.minLength} characters long${schema.hint === undefined ? '' : ` (got ${raw.length}); ${schema.hint}`}.`;
  }
  return `${name} cannot be "${raw}".`;
}
