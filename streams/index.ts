export { createQueue$ } from './create-queue';
export { CHANNELS, ERROR_REPORTING, REALTIME, TIMINGS, type Timings } from './constants';
export { resolveTimings } from './timings';
export { isPlaceLost, placeLost, type PlaceLost } from './place-lost';
export type {
  ConnectionState,
  FailureMessage,
  Health,
  LeaveStep,
  LineMoved,
  QueuedRequest,
  QueueInfo,
  QueueOptions,
  QueueSources,
  QueueStatus,
  Replay,
  SourceErrorHandler,
  SourceName,
} from './types';
