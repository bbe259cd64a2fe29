/**
 * What a terminal would not show as itself: controls (an escape sequence's ESC, a new line),
 * format characters (direction marks such as U+200F and U+061C, bidirectional overrides and
 * isolates, zero-width spaces and joiners), private-use, unassigned and lone surrogate code points,
 * line and paragraph separators, characters Unicode says to draw as nothing, every space but the
 * plain one, and a combining mark stacked on another (marks piled up to cover the lines around).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]|(?! )\p{Zs}|(?<=\p{M})\p{M}/gu;

/** Code points a terminal draws two columns wide: East Asian wide and full-width forms, emoji. */
const WIDE =
  /[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\p{Extended_Pictographic}\u{20000}-\u{3fffd}]/u;
const ZERO_WIDTH = /\p{M}/u;

/** The columns of a terminal line the tool keeps to, so that no line wraps (a wrapped line would start with a server's text). */
export const LINE_COLUMNS = 80;

/** `char` written out as `\u{…}`: seen, and doing nothing. */
const escaped = (char: string): string => `\\u{${(char.codePointAt(0) as number).toString(16)}}`;

/**
 * `text` as a terminal may show it: each character of INVISIBLE written out as `\u{…}`, so that
 * what a server answers can neither move the cursor, clear the screen, reorder the line nor hide
 * a word; and at most `max` characters, so that one line cannot fill the screen.
 */
export function printable(text: string, max = Infinity): string {
  const shown = text.replace(INVISIBLE, escaped);
  return shown.length > max ? `${shown.slice(0, max)}… (${shown.length} characters)` : shown;
}

/** How many columns `text` takes in a terminal, once printable. */
export function columns(text: string): number {
  let width = 0;
  for (const char of text) width += ZERO_WIDTH.test(char) ? 0 : WIDE.test(char) ? 2 : 1;
  return width;
}

/**
 * A field of a server's answer, whatever its type, as the tool shows it after a label of
 * `labelColumns`: a number as it is, anything else quoted as JSON quotes a string (`"` and `\`
 * escaped, so the field's end is plain), with INVISIBLE written out and runs of spaces counted
 * (`\u{20}×40`), then cut so that the whole line fits in LINE_COLUMNS. So a field can neither
 * pass for the tool's own words nor wrap into a line of its own.
 */
export function fieldText(value: unknown, labelColumns = 0): string {
  if (typeof value === 'number' && Number.isFinite(value)) return printable(String(value));
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  // No line holds more than this: the rest of a long field is never looked at.
  const shown = text
    .slice(0, 4 * LINE_COLUMNS)
    .replace(/[\\"]/g, (char) => `\\${char}`)
    .replace(INVISIBLE, escaped)
    .replace(/ {2,}/g, (spaces) => `\\u{20}×${spaces.length}`);
  const room = LINE_COLUMNS - labelColumns - 2;
  if (columns(shown) <= room) return `"${shown}"`;
  const note = `…" (cut, ${text.length} characters)`;
  let kept = '';
  for (const char of shown) {
    if (columns(kept + char) > room - columns(note) + 1) break;
    kept += char;
  }
  // Never end inside an escape written out: cut before its backslash.
  kept = kept.replace(/\\(u(\{[0-9a-f]*)?)?$|\\u\{20\}×\d*$/, '');
  return `"${kept}${note}`;
}
