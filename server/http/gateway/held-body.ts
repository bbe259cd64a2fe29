import type { Readable } from 'node:stream';
import { HttpError } from '../errors';
import type { HeldBody } from '../../store/types';

/**
 * Reads a protected request's body whole, up to `limit` bytes: it may have to be held while the
 * visitor waits, and a replay must send the very bytes that came. Past the limit the visitor
 * gets a 413 at once, before the rest arrives; the connection's request timeout bounds a slow one.
 */
export function readBody(stream: Readable, declaredLength: string | undefined, limit: number): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
    };
    const onData = (chunk: Buffer | string) => {
      const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
      size += buffer.length;
      if (size <= limit) return void chunks.push(buffer);
      // Stop reading, but leave the socket to the answer: the 413 goes out with
      // `Connection: close`, and the rest of the body is never read.
      stop();
      stream.pause();
      reject(tooLarge(limit));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
  });
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, 'payload_too_large', `The body of a protected request may be at most ${limit} bytes (HELD_BODY_LIMIT).`, { connection: 'close' });
}

/**
 * A body as the store keeps it: text when it is valid UTF-8 (forms, JSON: readable in the
 * store, and a third smaller), base64 otherwise (an upload), so any byte comes back as it came.
 */
export function heldBody(contentType: string, bytes: Buffer): HeldBody {
  const text = bytes.toString('utf8');
  if (Buffer.byteLength(text) === bytes.length && Buffer.from(text, 'utf8').equals(bytes)) {
    return { contentType, raw: text };
  }
  return { contentType, raw: bytes.toString('base64'), encoding: 'base64' };
}

/** The bytes a held body stands for. */
export function bodyBytes(body: HeldBody): Buffer {
  return Buffer.from(body.raw, body.encoding === 'base64' ? 'base64' : 'utf8');
}

/**
 * What this instance has held of request bodies since it started: how many were held and their
 * bytes, and how many were refused for their size. Each is bounded by HELD_BODY_LIMIT, and a
 * session holds one request per room, so what the line keeps is bounded by both; these counts
 * show what it costs (`GET /admin/stats`).
 */
export class HeldBodyTally {
  private count = 0;
  private bytes = 0;
  private refusedCount = 0;

  held(bytes: number): void {
    this.count += 1;
    this.bytes += bytes;
  }

  refused(): void {
    this.refusedCount += 1;
  }

  snapshot(): { readonly count: number; readonly bytes: number; readonly refused: number } {
    return { count: this.count, bytes: this.bytes, refused: this.refusedCount };
  }
}
