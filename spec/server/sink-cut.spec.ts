import fc from 'fast-check';
import { cutMarker, cutText, utf8Prefix } from '../../server/http/sink/cut';

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

describe('cutting a reported text to a UTF-8 byte budget', () => {
  // 1 + 2 + 3 + 4 bytes: every boundary case of UTF-8 in one text.
  const mixed = 'aé€😀';

  it.each([
    [0, ''],
    [1, 'a'],
    [2, 'a'],
    [3, 'aé'],
    [5, 'aé'],
    [6, 'aé€'],
    [9, 'aé€'],
    [10, 'aé€😀'],
    [11, 'aé€😀'],
  ])('should keep the whole characters that fit in %i bytes', (maxBytes, kept) => {
    expect(utf8Prefix(mixed, maxBytes)).toBe(kept);
  });

  it('should never keep half a surrogate pair', () => {
    for (let maxBytes = 0; maxBytes < 4; maxBytes++) expect(utf8Prefix('😀', maxBytes)).toBe('');
  });

  it('should leave a text that fits exactly as it is, unmarked', () => {
    const text = 'é'.repeat(512);
    expect(cutText(text, 1024)).toEqual({ text, cut: false });
  });

  it('should cut a text one byte over, filling the budget to the byte with the marker', () => {
    const text = 'x'.repeat(1025);
    const { text: kept, cut } = cutText(text, 1024);

    expect(cut).toBe(true);
    expect(kept).toBe('x'.repeat(1024 - bytes(cutMarker(1025))) + '… [cut, 1025 bytes in all]');
    expect(bytes(kept)).toBe(1024);
  });

  it('should cut before a character that would straddle the budget, leaving the bytes unused', () => {
    // The marker's length, for any total of 4 digits.
    const room = 1024 - bytes(cutMarker(1000));
    // The room ends 1 byte into the first 3-byte character: it is left out, and that byte unused.
    const text = 'a'.repeat(room - 1) + '€'.repeat(1000);

    const { text: kept } = cutText(text, 1024);

    expect(kept).toBe('a'.repeat(room - 1) + cutMarker(bytes(text)));
    expect(bytes(kept)).toBe(1023);
    expect(kept).not.toContain('\uFFFD');
  });

  it('should cut plainly when even the marker does not fit', () => {
    expect(cutText('é'.repeat(100), 9)).toEqual({ text: 'éééé', cut: true });
  });

  it('should hold for any text and budget: within the budget, a start of the text, marked when cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), fc.nat(400), (text, maxBytes) => {
        const { text: kept, cut } = cutText(text, maxBytes);
        expect(bytes(kept)).toBeLessThanOrEqual(maxBytes);
        expect(cut).toBe(bytes(text) > maxBytes);
        if (!cut) return expect(kept).toBe(text);
        const marker = cutMarker(bytes(text));
        const start = kept.endsWith(marker) ? kept.slice(0, -marker.length) : kept;
        expect(text.startsWith(start)).toBe(true);
        // Longest: the next character would not have fitted.
        const room = kept.endsWith(marker) ? maxBytes - bytes(marker) : maxBytes;
        const next = String.fromCodePoint(text.codePointAt(start.length)!);
        expect(bytes(start) + bytes(next)).toBeGreaterThan(room);
      }),
    );
  });
});
