/**
 * `@waiting-room/streams`: the waiting page's rules as one RxJS status stream, and the adapters
 * that feed it from a pusher-js client and a queue_info answer (structurally typed: no runtime
 * dependency but rxjs). The names and the page config it shares with servers and other clients
 * are in `@waiting-room/streams/contract`.
 */
export { createQueue$ } from './create-queue.js';
export { resolveTimings } from './timings.js';
export {
  fromPusherEvent,
  pusherOptions,
  realtimeSources,
  SubscriptionError,
  type PusherChannelLike,
  type PusherEmitterLike,
  type PusherLike,
  type PusherOptions,
  type PusherTransport,
  type RealtimeSources,
} from './pusher.js';
export { readQueueInfo, type ResponseLike } from './read-queue-info.js';
export {
  isPlaceLost,
  isPlaceMovedAway,
  isPlacePending,
  placeLost,
  placeMovedAway,
  placePending,
  type PlaceLost,
  type PlaceMovedAway,
  type PlacePending,
} from './place-lost.js';
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
