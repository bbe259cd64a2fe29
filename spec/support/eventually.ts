/**
 * Polls `read` until `accept` holds for its value and returns that value; fails after
 * `timeoutMs` with `what` and the last value read, so a timeout says what was seen instead.
 */
export async function eventually<T>(what: string, read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000, intervalMs = 50): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  let lastError: unknown;
  for (;;) {
    try {
      last = await read();
      lastError = undefined;
      if (accept(last)) return last;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const seen = lastError === undefined ? JSON.stringify(last) : lastError instanceof Error ? String(lastError) : JSON.stringify(lastError);
      throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}; last seen: ${seen}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
