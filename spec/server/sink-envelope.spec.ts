import { EnvelopeError, parseEnvelope, reportedEvents, type EnvelopeLimits } from '../../server/http/sink/envelope';

const limits: EnvelopeLimits = { maxItems: 3, maxHeaderBytes: 64, maxEvents: 2 };
const envelope = (...lines: string[]) => Buffer.from(lines.join('\n'));
const event = (message: string) => [JSON.stringify({ type: 'event' }), JSON.stringify({ message })];

describe('parsing a Sentry envelope within bounds', () => {
  it('should read as many items as allowed and refuse one more', () => {
    const three = envelope('{}', ...event('a'), ...event('b'), ...event('c'));
    const four = envelope('{}', ...event('a'), ...event('b'), ...event('c'), ...event('d'));

    expect(parseEnvelope(three, limits)).toHaveLength(3);
    expect(() => parseEnvelope(four, limits)).toThrow(new EnvelopeError('An envelope may carry at most 3 items.'));
  });

  it('should count blank lines where an item header is due', () => {
    // Four blank lines before the end (the last newline ends the third).
    expect(() => parseEnvelope(envelope('{}', '', '', '', '', ''), limits)).toThrow(EnvelopeError);
    expect(parseEnvelope(envelope('{}', ...event('a'), ''), limits)).toHaveLength(1);
  });

  it('should refuse a header longer than maxHeaderBytes and take one exactly as long', () => {
    const header = (bytes: number) => JSON.stringify({ type: 'event', pad: 'p'.repeat(bytes - 25) });
    expect(Buffer.byteLength(header(64))).toBe(64);

    expect(parseEnvelope(envelope('{}', header(64), '{}'), limits)).toHaveLength(1);
    expect(() => parseEnvelope(envelope('{}', header(65), '{}'), limits)).toThrow(new EnvelopeError('The item header is longer than 64 bytes.'));
    expect(() => parseEnvelope(envelope(`{"pad":"${'p'.repeat(64)}"}`), limits)).toThrow(new EnvelopeError('The envelope header is longer than 64 bytes.'));
  });

  it('should read the first maxEvents events only, without parsing the others', () => {
    const items = parseEnvelope(envelope('{}', ...event('a'), ...event('b'), JSON.stringify({ type: 'event' }), 'not json'), limits);

    expect(reportedEvents(items, limits.maxEvents).map((reported) => reported.message)).toEqual(['a', 'b']);
  });

  it.each([
    [{ exception: { values: {} } }, '(no message)'],
    [{ exception: { values: 'TypeError' } }, '(no message)'],
    [{ exception: { values: [null] } }, 'Error'],
    [{ exception: { values: [{ type: 'TypeError', value: 'x' }] } }, 'TypeError: x'],
    [{ logentry: null }, '(no message)'],
    [{ logentry: { formatted: 'formatted' } }, 'formatted'],
  ])('should read any event shape without throwing: %j', (payload, message) => {
    const items = parseEnvelope(envelope('{}', JSON.stringify({ type: 'event' }), JSON.stringify(payload)));

    expect(reportedEvents(items)).toEqual([{ message, level: 'error', release: null }]);
  });
});
