import { CONTROL_CHARACTERS } from '../server/domain/events/event';

const EVERY_CONTROL = new RegExp(CONTROL_CHARACTERS.source, 'gu');

/**
 * `text` as a terminal may show it: each control character (an escape sequence's ESC, a new
 * line, a bidirectional override) written as `\u{…}`, so that what a server answers can neither
 * move the cursor, clear the screen nor reorder the line; and at most `max` characters, so that
 * one field cannot fill the screen.
 */
export function printable(text: string, max = Infinity): string {
  const shown = text.replace(EVERY_CONTROL, (char) => `\\u{${(char.codePointAt(0) as number).toString(16)}}`);
  return shown.length > max ? `${shown.slice(0, max)}… (${shown.length} characters)` : shown;
}

/** A field of an answer, whatever its type, as one short line of text. */
export const fieldText = (value: unknown): string => printable(typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value)), 200);
