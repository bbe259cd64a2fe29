/**
 * The QR code of a "continue on another device" link, drawn by the page itself: a file of its own
 * (with its encoder, uqr), loaded only when the visitor opens that panel. Nothing is asked of any
 * other host, and the drawing is an SVG path, which the page's content policy allows.
 */
import { encode } from 'uqr';

/** A QR code as one SVG path of unit squares, in a `size` × `size` box (its quiet zone included). */
export interface QrDrawing {
  readonly size: number;
  readonly path: string;
}

/** Draws `text` as a QR code, error correction M (a link of ~80 characters reads at a glance from a screen). */
export function qrCode(text: string): QrDrawing {
  const { data, size } = encode(text, { ecc: 'M', border: 2 });
  let path = '';
  data.forEach((row, y) =>
    row.forEach((dark, x) => {
      if (dark) path += `M${x} ${y}h1v1h-1z`;
    }),
  );
  return { size, path };
}

export type QrCode = typeof qrCode;
