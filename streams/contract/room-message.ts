/**
 * The operator's message to a room's waiting visitors (an extension, since 1.6.0): plain text,
 * for every language or per language, in the page config, in queue_info's answers and in the
 * `QueueMessage` event on the room's line-wide channel. Each change, set or cleared, has a larger
 * `version`, so a page that hears of the message from several of them keeps the newest.
 */
export interface RoomMessageJson {
  /** Grows with each change of the room's message, a clearing included. */
  readonly version: number;
  /** The text for any language; absent when the message is cleared or given per language only. */
  readonly text?: string;
  /** The text per language (BCP 47 tags, as the catalogue spells them). */
  readonly texts?: Readonly<Record<string, string>>;
  /** The room's language: its entry in `texts` is shown to a visitor whose language has none. */
  readonly locale?: string;
}

/** Longest text of a message, in characters. */
export const MAX_MESSAGE_LENGTH = 500;

const isText = (value: unknown): value is string => typeof value == 'string' && value.length > 0 && value.length <= MAX_MESSAGE_LENGTH;

/**
 * A message as a page shows it, or null when it is no message: `version` must be a non-negative
 * whole number; a `text`, a `texts` entry or a `locale` that is not a string within bounds is left out.
 */
export function roomMessageOf(value: unknown): RoomMessageJson | null {
  if (typeof value != 'object' || value === null) return null;
  const { version, text, texts, locale } = value as Record<string, unknown>;
  if (!Number.isSafeInteger(version) || (version as number) < 0) return null;
  const kept =
    typeof texts == 'object' && texts !== null && !Array.isArray(texts)
      ? Object.fromEntries(Object.entries(texts).filter((entry): entry is [string, string] => isText(entry[1])))
      : {};
  return {
    version: version as number,
    ...(isText(text) && { text }),
    ...(Object.keys(kept).length > 0 && { texts: kept }),
    ...(typeof locale == 'string' && locale.length <= 35 && { locale }),
  };
}

/** The newer of two messages (by `version`; the first on a tie). */
export const newerMessage = (kept: RoomMessageJson | null, heard: RoomMessageJson | null): RoomMessageJson | null =>
  heard && (!kept || heard.version > kept.version) ? heard : kept;

/**
 * The text a visitor reading `locale` is shown: the message's text in that language (its tag in
 * any letter case), else in the room's language, else its text for any language; '' when it has
 * none (cleared).
 */
export function messageTextFor(message: RoomMessageJson | null, locale: string): string {
  if (!message) return '';
  const texts = message.texts ?? {};
  const inLanguage = (tag: string | undefined) =>
    tag === undefined ? undefined : Object.entries(texts).find(([key]) => key.toLowerCase() == tag.toLowerCase())?.[1];
  return inLanguage(locale) ?? inLanguage(message.locale) ?? message.text ?? '';
}
