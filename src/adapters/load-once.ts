/**
 * Shares one load of a lazily loaded module between every caller: the prefetch after the first
 * paint and a use that comes before it has finished wait for the same file. A failed load is
 * forgotten, so that the next call tries again.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}
