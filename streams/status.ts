import type { QueueStatus } from './types.js';

/** The statuses shown while the visitor is still in line. */
export type LiveStatus = Extract<QueueStatus, { kind: 'loading' | 'waiting' }>;
export type Released = Extract<QueueStatus, { kind: 'released' }>;
export type Failed = Extract<QueueStatus, { kind: 'failed' }>;
export type Leaving = Extract<QueueStatus, { kind: 'leaving' }>;
export type Lost = Extract<QueueStatus, { kind: 'lost' }>;
export type Rejoining = Extract<QueueStatus, { kind: 'rejoining' }>;
export type Moved = Extract<QueueStatus, { kind: 'moved' }>;

/** True while the visitor is still in line; false once released, failed, leaving, lost, rejoining or moved. */
export function isLive(status: QueueStatus): status is LiveStatus {
  return status.kind === 'loading' || status.kind === 'waiting';
}
