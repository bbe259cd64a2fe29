import { MAX_MESSAGE_LENGTH, type RoomMessageJson } from '@waiting-room/streams/contract';
import type { Clock } from './clock';
import { DomainError } from './errors';
import type { ReleasePublisher } from './release-publisher';
import type { MessageTexts, QueueStore, StoredMessage } from '../store/types';

/** How long an instance answers with the message it read from the store before reading it again. */
const MESSAGE_READ_MS = 1000;

/**
 * Largest message as JSON, in bytes: the event carrying it stays within what an outside Pusher
 * Channels service accepts (10 KB an event), channel name and envelope included.
 */
export const MAX_MESSAGE_BYTES = 8192;

/** What a room's message works with, all given at construction. */
export interface RoomMessageParts {
  readonly store: Pick<QueueStore, 'message' | 'setMessage'>;
  readonly clock: Clock;
  readonly publisher: Pick<ReleasePublisher, 'publishMessage'>;
  /** The room's public line-wide channel: the message goes there, and reaches its pages only. */
  readonly queueChannel: string;
  /** The room's language: its text is what a visitor whose language has none reads. */
  readonly locale: string;
  /** The tags a message's `texts` may use: the languages the server speaks, as the catalogue spells them. */
  readonly find: (tag: string) => string | undefined;
}

/**
 * The operator's message to those waiting in one room (`PUT /admin/message`): kept in the room's
 * store, so every instance answers it (page configs, queue_info) within a second of a change made
 * on another, and pushed at once as `QueueMessage` on the line's channel, which reaches every
 * instance's pages through the fan-out.
 */
export class RoomMessage {
  private read?: { readonly at: number; readonly message: Promise<RoomMessageJson | undefined> };

  constructor(private readonly parts: RoomMessageParts) {}

  /** The message as pages get it (undefined when none was ever set), read again at most once a second. */
  current(): Promise<RoomMessageJson | undefined> {
    const now = this.parts.clock.now();
    if (this.read && now - this.read.at < MESSAGE_READ_MS) return this.read.message;
    const message = this.parts.store.message().then((stored) => stored && this.json(stored));
    // A failed read is not kept: the next call reads again.
    message.catch(() => (this.read = undefined));
    this.read = { at: now, message };
    return message;
  }

  /**
   * The message for a page config, a held JSON or a queue_info answer: as `current`, or none when
   * the store cannot be read, since the line goes on without it.
   */
  shown(): Promise<RoomMessageJson | undefined> {
    return this.current().catch(() => undefined);
  }

  /**
   * Sets the message (null clears it) after checking it (`DomainError` invalid otherwise), keeps it
   * in the store and tells every page of the line. Answers it as pages get it.
   */
  async change(texts: MessageTexts | null): Promise<RoomMessageJson> {
    const checked = texts && this.checked(texts);
    const message = this.json(await this.parts.store.setMessage(checked, this.parts.clock.now()));
    this.read = { at: this.parts.clock.now(), message: Promise.resolve(message) };
    await this.parts.publisher.publishMessage(this.parts.queueChannel, message);
    return message;
  }

  private json(stored: StoredMessage): RoomMessageJson {
    const hasTexts = stored.texts !== undefined && Object.keys(stored.texts).length > 0;
    return { ...stored, ...(hasTexts && { locale: this.parts.locale }) };
  }

  /**
   * The texts with each tag spelled as the catalogue does; refused when there is no text at all,
   * a text is empty, too long, or not plain text (control characters, HTML tags), a tag is not a language
   * the server speaks, or a visitor in the room's language would have none to read.
   */
  private checked({ text, texts }: MessageTexts): MessageTexts {
    const refuse = (code: string, why: string): never => {
      throw new DomainError('invalid', code, why);
    };
    const tagged = Object.entries(texts ?? {}).map(([tag, one]) => {
      const locale = this.parts.find(tag) ?? refuse('bad_message_language', `"${tag.slice(0, 40)}" is not a language this server speaks.`);
      return [locale, plain(one, `texts.${locale}`, refuse)] as const;
    });
    if (text === undefined && tagged.length === 0) refuse('bad_message', 'Send "text", or "texts" with at least one language.');
    if (text === undefined && !tagged.some(([locale]) => locale === this.parts.locale)) {
      refuse('bad_message', `"texts" must have the room's language (${this.parts.locale}), or come with "text" for every other language.`);
    }
    const checked: MessageTexts = {
      ...(text !== undefined && { text: plain(text, 'text', refuse) }),
      ...(tagged.length > 0 && { texts: Object.fromEntries(tagged) }),
    };
    if (Buffer.byteLength(JSON.stringify(checked)) > MAX_MESSAGE_BYTES) {
      refuse('bad_message', `The message is over ${MAX_MESSAGE_BYTES} bytes as JSON: send fewer languages or shorter texts.`);
    }
    return checked;
  }
}

/**
 * Control characters but tab and line breaks (a message may have lines), and the marks that turn
 * text's direction around (which can make it read as something else).
 */
// eslint-disable-next-line no-control-regex -- these are what the test is for
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]/;

/** A tag of markup (`<b>`, `</p>`, `<a href…>`): pages show a message as it is, so it would show as written. */
const MARKUP = /<\/?[a-z][^>]*>/i;

/** One text, trimmed, within bounds, and plain: pages show it as text, never as HTML. */
function plain(value: string, field: string, refuse: (code: string, why: string) => never): string {
  const text = value.trim();
  if (text.length === 0 || text.length > MAX_MESSAGE_LENGTH) refuse('bad_message', `"${field}" must be 1 to ${MAX_MESSAGE_LENGTH} characters.`);
  if (CONTROL.test(text) || MARKUP.test(text)) {
    refuse('bad_message', `"${field}" must be plain text, without control characters or HTML tags: pages show it as it is written.`);
  }
  return text;
}
