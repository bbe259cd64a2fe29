import type { QueueStore, Release } from '../../server/store/types';

/**
 * The server's own store, unchanged, remembering when each visitor's release was decided (the
 * entry's `releasedAt`, read from the store's own answer), so that release-to-delivery latency can
 * be measured from the decision, not from the moment the event was published.
 */
export function recordingStore(inner: QueueStore) {
  /** uuid → release time (ms since the epoch), in release order. */
  const releasedAt = new Map<string, number>();
  /**
   * The `served` of each step that tells the pages the line moved (`Release.moved`: what its
   * `QueueMoved` carries) → when it was decided, to measure the move's delivery from the same
   * decision. With several instances, a batch whose move a step of another instance told less than
   * a second before waits for the next step's move by design: it is not counted as a move of its own.
   */
  const batchDecidedAt = new Map<number, number>();
  const record = (release: Release): Release => {
    const { released, served, moved } = release;
    for (const entry of released) releasedAt.set(entry.uuid, entry.releasedAt ?? Number.NaN);
    // A step that tells a move owed may release nobody: it was decided now.
    if (moved) batchDecidedAt.set(served, released[0]?.releasedAt ?? Date.now());
    return release;
  };
  // Every other method is the store's own, bound once.
  const methods = new Map<PropertyKey, unknown>([
    ['release', async (...args: Parameters<QueueStore['release']>) => record(await inner.release(...args))],
    ['releaseDue', async (...args: Parameters<QueueStore['releaseDue']>) => record(await inner.releaseDue(...args))],
  ]);
  const store = new Proxy(inner, {
    get(target, name) {
      if (methods.has(name)) return methods.get(name);
      const value: unknown = Reflect.get(target, name);
      if (typeof value !== 'function') return value;
      const bound: unknown = (value as (...args: unknown[]) => unknown).bind(target);
      methods.set(name, bound);
      return bound;
    },
  });
  return { store, releasedAt, batchDecidedAt };
}
