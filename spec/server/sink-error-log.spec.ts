import { ErrorLog, type ErrorReport } from '../../server/http/sink/error-log';

const report = (message: string, extra: Partial<ErrorReport> = {}): ErrorReport => ({
  message,
  level: 'error',
  release: '1.0.0',
  receivedAt: '2025-01-01T00:00:00.000Z',
  ...extra,
});

/** What `GET /admin/errors` sends for the log, in bytes. */
const listingBytes = (log: ErrorLog) => Buffer.byteLength(JSON.stringify(log.list()));

describe('the error log, bounded by count and by bytes', () => {
  it('should keep an ordinary report exactly as given, with no cut field', () => {
    const log = new ErrorLog();
    const given = report('Websoket KO - unavailable');

    expect(log.add(given)).toEqual(given);
    expect(log.list()).toEqual([given]);
  });

  it('should keep the last 100 reports, oldest first', () => {
    const log = new ErrorLog();
    for (let i = 0; i < 120; i++) log.add(report(`r${i}`));

    expect(log.list().map((kept) => kept.message)).toEqual(Array.from({ length: 100 }, (_, i) => `r${i + 20}`));
  });

  it('should cut a long message, level and release, and answer them as kept', () => {
    const log = new ErrorLog({ messageBytes: 64 });

    const kept = log.add(report('m'.repeat(10_000), { level: 'l'.repeat(100), release: 'é'.repeat(100) }));

    expect(kept).toEqual({
      message: 'm'.repeat(64 - Buffer.byteLength('… [cut, 10000 bytes in all]')) + '… [cut, 10000 bytes in all]',
      level: 'l'.repeat(16),
      // 2 bytes a character, in the 128 bytes the marker leaves.
      release: 'é'.repeat(Math.floor((128 - Buffer.byteLength('… [cut, 200 bytes in all]')) / 2)) + '… [cut, 200 bytes in all]',
      receivedAt: '2025-01-01T00:00:00.000Z',
      cut: true,
    });
    expect(log.list()).toEqual([kept]);
  });

  it('should drop the oldest reports past totalBytes, the listing within it, the newest kept in order', () => {
    const log = new ErrorLog({ totalBytes: 4096, messageBytes: 1024 });
    for (let i = 0; i < 50; i++) log.add(report(`r${i} ${'x'.repeat(1000 + i)}`));

    const messages = log
      .list()
      .map((kept) => /^r(\d+) /.exec(kept.message)![1])
      .map(Number);
    expect(listingBytes(log)).toBeLessThanOrEqual(4096 + 1);
    expect(log.size()).toBeLessThanOrEqual(4096);
    // About 1.1 KB each once cut: three fit in 4 KiB, a fourth would not.
    expect(messages).toEqual([47, 48, 49]);
    expect(log.size() + log.size() / 3).toBeGreaterThan(4096);
  });

  it('should count the bytes of the listing exactly: one past the sizes for the brackets', () => {
    const log = new ErrorLog();
    for (const message of ['a', 'é€😀', '"quoted"\n', '\u0001']) log.add(report(message));

    expect(listingBytes(log)).toBe(log.size() + 1);
  });

  it('should cut a report further when alone it would not fit in totalBytes', () => {
    const log = new ErrorLog({ totalBytes: 1024, messageBytes: 64 * 1024 });
    log.add(report('older'));

    const kept = log.add(report('z'.repeat(100_000)));

    expect(log.list()).toEqual([kept]);
    expect(kept.cut).toBe(true);
    expect(kept.message.endsWith('… [cut, 100000 bytes in all]')).toBe(true);
    expect(listingBytes(log)).toBeLessThanOrEqual(1024 + 1);
  });

  it('should fit a message whose JSON escapes are six bytes a character', () => {
    const log = new ErrorLog({ totalBytes: 1024, messageBytes: 1024 });

    log.add(report('\u0001'.repeat(1024), { release: '\u0002'.repeat(128) }));

    expect(log.list()).toHaveLength(1);
    expect(listingBytes(log)).toBeLessThanOrEqual(1024 + 1);
  });
});
