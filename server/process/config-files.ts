import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { Messages } from '@waiting-room/streams/contract';
import { ENGLISH, type Locale } from '../../locales';
import { catalogueProblems } from '../../locales/check';
import type { ConfigEnv } from '../config/environment';
import type { LanguageSettings } from '../http/languages';
import { ConfigError } from './config-env';
import { localeOf } from './config-values';

/**
 * A setting given as JSON, inline in `name` or in the file `name_FILE` (not both): its parsed value
 * and where it came from, for messages; undefined when neither is set. `example` shows its shape.
 */
export function jsonSetting(
  name: string,
  inline: string | undefined,
  file: string | undefined,
  example: string,
): { source: string; value: unknown } | undefined {
  if (inline !== undefined && file !== undefined) throw new ConfigError(`Set ${name} or ${name}_FILE, not both.`);
  if (inline === undefined && file === undefined) return undefined;
  const source = inline !== undefined ? name : `${name}_FILE (${file})`;
  let text = inline;
  if (text === undefined) {
    try {
      text = readFileSync(file as string, 'utf8');
    } catch (error) {
      throw new ConfigError(`${name}_FILE cannot be read: ${(error as Error).message}`);
    }
  }
  try {
    return { source, value: JSON.parse(text) };
  } catch {
    throw new ConfigError(`${source} must be JSON: ${example}.`);
  }
}

/**
 * DEFAULT_LOCALE (English unless set) and MESSAGES_DIR: a folder of `<locale>.json` files, each
 * some messages of that locale in the site's own words, checked like the catalogue (known keys,
 * the same placeholders and plural forms) so that a typo stops the start instead of showing.
 */
export function languagesConfig(v: ConfigEnv): LanguageSettings {
  const defaultLocale = v.DEFAULT_LOCALE;
  const dir = v.MESSAGES_DIR;
  const overrides: Partial<Record<Locale, Messages>> = {};
  if (dir === undefined) return { defaultLocale, overrides };
  let files: string[];
  try {
    files = readdirSync(dir).filter((file) => file.endsWith('.json'));
  } catch (error) {
    throw new ConfigError(`MESSAGES_DIR cannot be read: ${(error as Error).message}`);
  }
  for (const file of files) {
    const locale = localeOf(file.replace(/\.json$/, ''), `MESSAGES_DIR: ${file} (named after its locale)`);
    let messages: unknown;
    try {
      messages = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
    } catch (error) {
      throw new ConfigError(`MESSAGES_DIR: ${file} must be JSON: ${(error as Error).message}`);
    }
    const problems = catalogueProblems(locale, messages, ENGLISH, true);
    if (problems.length > 0) throw new ConfigError(`MESSAGES_DIR: ${file}: ${problems.join('; ')}.`);
    overrides[locale] = messages as Messages;
  }
  return { defaultLocale, overrides };
}
