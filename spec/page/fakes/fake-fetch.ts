/** A fetch double: records each call and answers from `answer`, a function of the URL. */
export interface FakeAnswer {
  readonly status?: number;
  readonly body?: unknown;
  /** A body that is not JSON. */
  readonly text?: string;
  /** Rejects like a network failure. */
  readonly networkError?: boolean;
}

export interface FetchCall {
  readonly url: string;
  readonly init: RequestInit;
}

export function createFakeFetch(answer: (url: string, init: RequestInit) => FakeAnswer | Promise<FakeAnswer>) {
  const calls: FetchCall[] = [];
  const fetch = async (url: string, init: RequestInit): Promise<Response> => {
    calls.push({ url, init });
    const reply = await answer(url, init);
    if (init.signal?.aborted) throw new DOMException('aborted', 'AbortError');
    if (reply.networkError) throw new TypeError('Failed to fetch');
    const status = reply.status ?? 200;
    return {
      ok: status >= 200 && status < 300,
      status,
      json: async () => (reply.text !== undefined ? JSON.parse(reply.text) : reply.body),
    } as Response;
  };
  return { fetch, calls };
}

/** Lets pending promise callbacks (fetch answers, dynamic imports) run. */
export const settle = async (rounds = 5): Promise<void> => {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
};
