/** A text, possibly shortened to a byte budget. */
export interface CutText {
  readonly text: string;
  /** True when `text` is shorter than what was given. */
  readonly cut: boolean;
}

const encoder = new TextEncoder();

/**
 * The longest start of `text` whose UTF-8 encoding fits in `maxBytes`, never splitting a
 * character (a code point: a surrogate pair stays whole; a lone surrogate counts as the 3 bytes
 * of U+FFFD and becomes U+FFFD). The result is a fresh string: a slice of a huge text would
 * keep the whole text in memory.
 */
export function utf8Prefix(text: string, maxBytes: number): string {
  const room = Math.max(0, Math.floor(maxBytes));
  if (room === 0) return '';
  const bytes = new Uint8Array(room);
  const { written } = encoder.encodeInto(text, bytes);
  return Buffer.from(bytes.buffer, 0, written).toString('utf8');
}

/** What a message cut by `cutText` ends with: `… [cut, N bytes in all]`, N its UTF-8 length as sent. */
export function cutMarker(totalBytes: number): string {
  return `… [cut, ${totalBytes} bytes in all]`;
}

/**
 * `text` unchanged when its UTF-8 encoding fits in `maxBytes`; otherwise its longest start that
 * fits with `marker(bytes of text)` appended, marker included in `maxBytes`, never splitting a
 * character. When even the marker does not fit, the plain start of `text` that fits.
 */
export function cutText(text: string, maxBytes: number, marker: (totalBytes: number) => string = cutMarker): CutText {
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return { text, cut: false };
  const mark = marker(total);
  const room = maxBytes - Buffer.byteLength(mark, 'utf8');
  if (room < 0) return { text: utf8Prefix(text, maxBytes), cut: true };
  return { text: utf8Prefix(text, room) + mark, cut: true };
}
