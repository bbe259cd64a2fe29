import { TIMINGS, type Timings } from '@waiting-room/streams/contract';
import { LOCALES, type Locale } from '../../locales';
import { normalizeTarget } from '../domain/request-target';
import { ConfigError } from './config-env';

/** A locale the catalogue has, named in any letter case (`pt-br`), or a ConfigError naming `where`. */
export function localeOf(value: unknown, where: string): Locale {
  const locale = typeof value === 'string' ? LOCALES.find((known) => known.toLowerCase() === value.toLowerCase()) : undefined;
  if (locale === undefined) throw new ConfigError(`${where} must be one of ${LOCALES.join(', ')}; got ${JSON.stringify(value)}.`);
  return locale;
}

/**
 * The origins in a comma-separated `list` (CONNECTOR_ORIGINS, a room's `connectorOrigins`): each
 * an http(s) scheme, host and optional port, nothing more, since a visitor is sent back to any
 * address under one of them.
 */
export function connectorOrigins(setting: string, list: string | undefined): string[] {
  const given = (list ?? '')
    .split(',')
    .map((one) => one.trim())
    .filter((one) => one !== '');
  return given.map((one) => {
    let url: URL | undefined;
    try {
      url = new URL(one);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== one.replace(/\/$/, '').toLowerCase()) {
      throw new ConfigError(`${setting}: "${one}" is not an origin: give a scheme, a host and optionally a port, e.g. https://shop.example.`);
    }
    return url.origin;
  });
}

/** A URL of one of `protocols`, as given; undefined when unset. */
export function url(name: string, raw: string | undefined, protocols: readonly string[]): string | undefined {
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL; got "${raw}".`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.join(' or ')}; got "${raw}".`);
  }
  return raw;
}

/** Comma-separated path prefixes, each one the server routes; at least one when `required`. */
export function prefixes(name: string, raw: string, required: boolean): readonly string[] {
  const list = raw
    .split(',')
    .map((prefix) => prefix.trim())
    .filter(Boolean);
  const bad = list.find((prefix) => !prefix.startsWith('/') || prefix.startsWith('//'));
  if ((list.length === 0 && required) || bad !== undefined) {
    throw new ConfigError(`${name} must list paths starting with "/", comma-separated; got "${raw}".`);
  }
  for (const prefix of list) {
    // The prefix is compared with requests' normalized paths: it must be one itself.
    const target = normalizeTarget(prefix);
    if (!target.ok || target.query !== undefined) {
      throw new ConfigError(`${name}: "${prefix}" is not a path the server routes${target.ok ? '' : ` (${target.reason})`}.`);
    }
  }
  return list;
}

export function parseTimings(name: string, raw: string): Partial<Timings> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be JSON, e.g. {"positionZeroTimeout": 2000}; got "${raw}".`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${name} must be a JSON object of timings in ms.`);
  }
  const known = Object.keys(TIMINGS);
  const timings: Record<string, number> = {};
  for (const [key, ms] of Object.entries(value)) {
    if (!known.includes(key)) {
      throw new ConfigError(`${name}: unknown timing "${key}"; known: ${known.join(', ')}.`);
    }
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms <= 0) {
      throw new ConfigError(`${name}: "${key}" must be a positive number of ms.`);
    }
    timings[key] = ms;
  }
  return timings;
}
