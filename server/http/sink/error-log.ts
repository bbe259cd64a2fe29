import { cutText } from './cut';

/**
 * One report the page sent (through the Sentry SDK), as the admin API lists it:
 * `{message, level, release, receivedAt}`, plus `cut: true` when the sink shortened it.
 *
 * A message longer than the log's `messageBytes` (in UTF-8) is cut on a character boundary and
 * ends with `… [cut, N bytes in all]`, N being its length as sent; the marker is counted in
 * `messageBytes`. `level` (over 16 bytes) and `release` (over 128 bytes) are cut the same way,
 * ending with `… [cut, N bytes in all]` or, when that does not fit, just cut. `cut` is absent
 * when nothing was cut, so an ordinary report lists exactly as before.
 */
export interface ErrorReport {
  readonly message: string;
  readonly level: string;
  readonly release: string | null;
  /** ISO time the sink received it. */
  readonly receivedAt: string;
  /** Present, and true, when the message, the level or the release was cut. */
  readonly cut?: true;
}

/** What the log keeps at most. */
export interface ErrorLogLimits {
  /** Most reports kept. */
  readonly capacity: number;
  /**
   * Most bytes kept in all, each report counted as its JSON in `GET /admin/errors` plus the comma
   * that separates it: the listing is at most `totalBytes + 1` bytes.
   */
  readonly totalBytes: number;
  /** Longest message kept, in UTF-8 bytes, the cut marker included. */
  readonly messageBytes: number;
}

export const DEFAULT_ERROR_LOG_LIMITS: ErrorLogLimits = { capacity: 100, totalBytes: 256 * 1024, messageBytes: 1024 };

/** Longest `level` kept, in UTF-8 bytes (Sentry's are `fatal`, `error`, `warning`, `log`, `info`, `debug`). */
export const LEVEL_BYTES = 16;
/** Longest `release` kept, in UTF-8 bytes. */
export const RELEASE_BYTES = 128;

interface Kept {
  readonly report: ErrorReport;
  readonly bytes: number;
}

/**
 * The last reports, oldest first, bounded by count (`capacity`) and by bytes (`totalBytes`):
 * the oldest go first. Each report is cut to `messageBytes` as it comes in; a report that would
 * not fit in `totalBytes` alone (a small `totalBytes`, or a message JSON escapes to 6 bytes a
 * character) has its message cut further, so the newest report is always kept.
 */
export class ErrorLog {
  private readonly limits: ErrorLogLimits;
  private readonly kept: Kept[] = [];
  private bytes = 0;

  constructor(limits: Partial<ErrorLogLimits> = {}) {
    this.limits = { ...DEFAULT_ERROR_LOG_LIMITS, ...limits };
  }

  /** Keeps `report`, cut to the limits, and answers it as kept (to log the same text). */
  add(report: ErrorReport): ErrorReport {
    const level = cutText(report.level, LEVEL_BYTES);
    const release = report.release === null ? null : cutText(report.release, RELEASE_BYTES);
    const shaped = (messageBytes: number): Kept => {
      const message = cutText(report.message, messageBytes);
      const cut = message.cut || level.cut || (release?.cut ?? false);
      const kept: ErrorReport = {
        message: message.text,
        level: level.text,
        release: release?.text ?? null,
        receivedAt: report.receivedAt,
        ...(cut ? { cut: true as const } : {}),
      };
      return { report: kept, bytes: Buffer.byteLength(JSON.stringify(kept), 'utf8') + 1 };
    };

    let messageBytes = this.limits.messageBytes;
    let entry = shaped(messageBytes);
    while (entry.bytes > this.limits.totalBytes && messageBytes > 0) {
      // The JSON is at least as long as the UTF-8 it holds: cutting the excess from the message is enough, or nearly.
      const excess = entry.bytes - this.limits.totalBytes;
      messageBytes = Math.max(0, Math.min(messageBytes, Buffer.byteLength(entry.report.message, 'utf8')) - excess);
      entry = shaped(messageBytes);
    }

    this.kept.push(entry);
    this.bytes += entry.bytes;
    let drop = 0;
    let bytes = this.bytes;
    const over = () => this.kept.length - drop > this.limits.capacity || bytes > this.limits.totalBytes;
    while (this.kept.length - drop > 1 && over()) {
      bytes -= this.kept[drop].bytes;
      drop++;
    }
    if (drop > 0) this.kept.splice(0, drop);
    this.bytes = bytes;
    return entry.report;
  }

  /** The reports kept, oldest first. */
  list(): readonly ErrorReport[] {
    return this.kept.map((entry) => entry.report);
  }

  /** The bytes the reports kept count for (see `ErrorLogLimits.totalBytes`). */
  size(): number {
    return this.bytes;
  }
}
