import { NEVER, type Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import type { ConnectionState, QueuedRequest, QueueSources, QueueStatus } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import type { PollResult } from '../../streams/rules/queue-info';

/** A fresh scheduler per test, comparing frames deeply. */
export function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Sources that never say anything, with the given ones instead. */
export function sourcesWith(given: Partial<QueueSources>): QueueSources {
  return {
    state$: NEVER,
    error$: NEVER,
    subscribed$: NEVER,
    release$: NEVER,
    subscribe: () => NEVER,
    queueInfo: () => NEVER,
    queueRequest: () => NEVER,
    ...given,
  };
}

export const GET_REQUEST: QueuedRequest = { uuid: 'u-1', uri: '/checkout?item=42', method: 'get', hash: '#pay' };
export const PUT_REQUEST: QueuedRequest = { uuid: 'u-2', uri: '/cart/7', method: 'put', hash: '#x' };

/** Connection states by marble letter. */
export const STATES: Record<string, ConnectionState> = {
  i: 'initialized',
  g: 'connecting',
  c: 'connected',
  u: 'unavailable',
  f: 'failed',
  d: 'disconnected',
};

export const info = (position: number, estimated = position * 2): QueueInfo => ({ position, estimated });
export const answer = (position: number, at: number, estimated = position * 2): PollResult => ({
  ok: true,
  info: info(position, estimated),
  at,
});
export const FAILED_CALL: PollResult = { ok: false };

export const loading = (connection: ConnectionState, failedPolls = 0): QueueStatus => ({
  kind: 'loading',
  connection,
  failedPolls,
});

export const waitingAt = (
  position: number,
  updatedAt: number,
  connection: ConnectionState = 'connected',
  failedPolls = 0,
  estimated = position * 2,
): QueueStatus => ({ kind: 'waiting', position, estimated, updatedAt, connection, failedPolls });

export const NAVIGATE: QueueStatus = { kind: 'released', replay: { kind: 'navigate', target: '/checkout?item=42#pay' } };
export const BACK: QueueStatus = { kind: 'leaving', step: 'back' };
export const ROOT: QueueStatus = { kind: 'leaving', step: 'root' };
export const UNAVAILABLE_FAILED: QueueStatus = { kind: 'failed', message: 'Websoket KO - unavailable' };
export const POSITION_ZERO_FAILED: QueueStatus = { kind: 'failed', message: 'Websocket KO - position 0 depuis 10sec' };

/** A call factory answering with each given observable in turn, the last one from then on. */
export function callsOf<T>(...calls: Array<Observable<T>>): () => Observable<T> {
  let next = 0;
  return () => calls[Math.min(next++, calls.length - 1)];
}
