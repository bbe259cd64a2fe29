/**
 * `@waiting-room/streams`: the waiting page's rules as one RxJS status stream. The names and the
 * page config it shares with servers and other clients are in `@waiting-room/streams/contract`.
 */
export { createQueue$ } from './create-queue.js';
export { resolveTimings } from './timings.js';
export { isPlaceLost, isPlacePending, placeLost, placePending, type PlaceLost, type PlacePending } from './place-lost.js';
export type {
  ConnectionState,
  FailureMessage,
  Health,
  LeaveStep,
  QueuedRequest,
  QueueOptions,
  QueueSources,
  QueueStatus,
  Replay,
  SourceErrorHandler,
  SourceName,
} from './types.js';
