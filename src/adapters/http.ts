import { Observable } from 'rxjs';

export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/**
 * One HTTP call as a cold observable: fetches on subscription, emits `read(response)` and
 * completes, errors when fetch or `read` fails; unsubscribing aborts the call.
 */
export function fromFetch<T>(fetch: FetchLike, url: string, init: RequestInit, read: (response: Response) => Promise<T> | T): Observable<T> {
  return new Observable<T>((subscriber) => {
    const abort = new AbortController();
    fetch(url, { ...init, signal: abort.signal })
      .then(read)
      .then(
        (value) => {
          subscriber.next(value);
          subscriber.complete();
        },
        (error) => subscriber.error(error),
      );
    return () => abort.abort();
  });
}
