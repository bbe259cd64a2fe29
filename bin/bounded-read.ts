/** Most bytes `verify-draw` reads of an answer by default: a draw of about a million entrants. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

/** An answer longer than the reader allows. */
export class AnswerTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`the answer is larger than ${limit} bytes`);
  }
}

/**
 * The body of `response` as text, read as it streams (after decompression), and given up with
 * `AnswerTooLarge` as soon as it passes `limit` bytes: a server can make its answer as long as it
 * likes, and the reader holds no more of it than that.
 */
export async function readBounded(response: Response, limit: number): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (declared > limit || response.body === null) {
    await response.body?.cancel();
    if (declared > limit) throw new AnswerTooLarge(limit);
    return '';
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > limit) {
      await reader.cancel();
      throw new AnswerTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
