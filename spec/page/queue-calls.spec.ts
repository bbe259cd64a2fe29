import { lastValueFrom } from 'rxjs';
import { isPlaceLost, isPlacePending } from '@waiting-room/streams';
import { createQueueInfo } from '../../src/adapters/queue-info';
import { createQueueRequest } from '../../src/adapters/queue-request';
import { createFakeFetch, settle } from './fakes/fake-fetch';

describe('queue_info adapter', () => {
  it('should GET the route with the uuid filled in, bypassing the HTTP cache, only when subscribed', async () => {
    const { fetch, calls } = createFakeFetch(() => ({ body: { position: 3, estimated: 2 } }));
    const queueInfo = createQueueInfo(fetch, '/queue/info/{uuid}', 'a b/c');
    expect(calls).toEqual([]);
    await expect(lastValueFrom(queueInfo())).resolves.toEqual({ position: 3, estimated: 2 });
    expect(calls).toEqual([
      {
        url: '/queue/info/a%20b%2Fc',
        init: expect.objectContaining({ method: 'GET', cache: 'no-store', credentials: 'same-origin', headers: { Accept: 'application/json' } }),
      },
    ]);
  });

  it('should call again on each subscription (cold)', async () => {
    const { fetch, calls } = createFakeFetch(() => ({ body: { position: 0, estimated: 0 } }));
    const queueInfo = createQueueInfo(fetch, '/i/{uuid}', 'u');
    await lastValueFrom(queueInfo());
    await lastValueFrom(queueInfo());
    expect(calls).toHaveLength(2);
  });

  it.each([
    ['a non-OK status', { status: 500, body: { position: 1, estimated: 1 } }, 'queue_info answered 500'],
    ['a 404 of another code (a missing route)', { status: 404, body: { error: { code: 'not_found' } } }, 'queue_info answered 404'],
    ['a 404 that is not JSON (a proxy page)', { status: 404, text: '<html>Not Found</html>' }, 'queue_info answered 404'],
    ['a 404 without a body', { status: 404 }, 'queue_info answered 404'],
    ['a 500 saying unknown_uuid', { status: 500, body: { error: { code: 'unknown_uuid' } } }, 'queue_info answered 500'],
    ['a 503', { status: 503, body: { error: { code: 'store_unavailable' } } }, 'queue_info answered 503'],
    ['a body that is not JSON', { text: '<html>' }, 'malformed'],
    ['a missing estimate', { body: { position: 1 } }, 'malformed'],
    ['a negative position', { body: { position: -1, estimated: 1 } }, 'malformed'],
    ['a position in a string', { body: { position: '1', estimated: 1 } }, 'malformed'],
    ['an infinite estimate', { text: '{"position": 1, "estimated": 1e999}' }, 'malformed'],
    ['a null body', { body: null }, 'malformed'],
    ['a network failure', { networkError: true }, 'Failed to fetch'],
  ])('should error on %s (a failed poll, not a lost place)', async (_, answer, message) => {
    const { fetch } = createFakeFetch(() => answer);
    const error = await lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(message);
    expect(isPlaceLost(error)).toBe(false);
  });

  it('should error with a lost place on a 404 whose JSON says unknown_uuid (the server does not know the place)', async () => {
    const { fetch } = createFakeFetch(() => ({ status: 404, body: { error: { code: 'unknown_uuid', message: 'No place in line has this uuid.' } } }));
    const error = await lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')()).catch((e: unknown) => e);
    expect(isPlaceLost(error)).toBe(true);
    expect((error as Error).message).toBe('queue_info answered 404 unknown_uuid');
  });

  it('should keep ticket and served when both are non-negative whole numbers', async () => {
    const { fetch } = createFakeFetch(() => ({ body: { position: 3, estimated: 2, ticket: 13, served: 10, other: 'x' } }));
    await expect(lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')())).resolves.toStrictEqual({ position: 3, estimated: 2, ticket: 13, served: 10 });
  });

  it.each([
    ['no ticket', { served: 10 }],
    ['no served', { ticket: 13 }],
    ['a negative served', { ticket: 13, served: -1 }],
    ['a fractional ticket', { ticket: 13.5, served: 10 }],
    ['a ticket in a string', { ticket: '13', served: 10 }],
    ['a null served', { ticket: 13, served: null }],
  ])('should answer without ticket and served on %s, not fail the poll', async (_, extension) => {
    const { fetch } = createFakeFetch(() => ({ body: { position: 3, estimated: 2, ...extension } }));
    await expect(lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')())).resolves.toStrictEqual({ position: 3, estimated: 2 });
  });

  it("should keep opensIn, a pre-queue's time to the opening, only when it is a finite, non-negative number", async () => {
    const answers = [{ opensIn: 30_000 }, { opensIn: 0 }, { opensIn: -1 }, { opensIn: '30000' }, { opensIn: null }];
    let call = 0;
    const { fetch } = createFakeFetch(() => ({ body: { position: 3, estimated: 2, ...answers[call++] } }));
    const read = () => lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')());
    expect(await read()).toStrictEqual({ position: 3, estimated: 2, opensIn: 30_000 });
    expect(await read()).toStrictEqual({ position: 3, estimated: 2, opensIn: 0 });
    for (let i = 0; i < 3; i++) expect(await read()).toStrictEqual({ position: 3, estimated: 2 });
  });

  it('should abort the call when unsubscribed before the answer', async () => {
    let answer: (value: { body: unknown }) => void = () => undefined;
    const { fetch, calls } = createFakeFetch(() => new Promise((resolve) => (answer = resolve)));
    const values: unknown[] = [];
    const subscription = createQueueInfo(fetch, '/i/{uuid}', 'u')().subscribe({ next: (v) => values.push(v), error: (e) => values.push(e) });
    subscription.unsubscribe();
    expect(calls[0].init.signal?.aborted).toBe(true);
    answer({ body: { position: 1, estimated: 1 } });
    await settle();
    expect(values).toEqual([]);
  });
});

describe('queue_info adapter: a place pending its bot check', () => {
  it('should fail with the pending marker on a 202, neither a lost place nor an answer', async () => {
    const { fetch } = createFakeFetch(() => ({ status: 202, body: { pending: true } }));
    const error = await lastValueFrom(createQueueInfo(fetch, '/i/{uuid}', 'u')()).catch((caught: unknown) => caught);
    expect(isPlacePending(error)).toBe(true);
    expect(isPlaceLost(error)).toBe(false);
  });
});

describe('queue_request adapter', () => {
  it('should POST {_token, user_id, uuid} as JSON with the session cookie, and not read the answer', async () => {
    const json = jest.fn();
    const calls: Array<{ url: string; init: RequestInit }> = [];
    const fetch = async (url: string, init: RequestInit) => {
      calls.push({ url, init });
      return { ok: false, status: 419, json } as unknown as Response;
    };
    const queueRequest = createQueueRequest(fetch, '/queue/request', { _token: 't', user_id: 7, uuid: 'u' });
    expect(calls).toEqual([]);
    await expect(lastValueFrom(queueRequest())).resolves.toBeUndefined();
    expect(calls).toEqual([
      {
        url: '/queue/request',
        init: expect.objectContaining({
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: '{"_token":"t","user_id":7,"uuid":"u"}',
        }),
      },
    ]);
    expect(json).not.toHaveBeenCalled();
  });

  it('should send the bot check’s solution as altcha when given one', async () => {
    const { fetch, calls } = createFakeFetch(() => ({ status: 202 }));
    await lastValueFrom(createQueueRequest(fetch, '/queue/request', { _token: 't', user_id: 0, uuid: 'u' })('payload'));
    expect(calls[0]?.init.body).toBe('{"_token":"t","user_id":0,"uuid":"u","altcha":"payload"}');
  });

  it('should error only when the call cannot be made', async () => {
    const { fetch } = createFakeFetch(() => ({ networkError: true }));
    await expect(lastValueFrom(createQueueRequest(fetch, '/q', { _token: 't', user_id: 0, uuid: 'u' })())).rejects.toThrow('Failed to fetch');
  });
});
