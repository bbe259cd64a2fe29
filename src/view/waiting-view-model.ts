import type { QueueStatus } from '@waiting-room/streams';

/** A notice shown while the page keeps waiting without fresh news. */
export type Notice = 'connectionLost' | 'pollFailed' | null;

/** What the view renders, derived from one status. */
export type WaitingView =
  | { readonly phase: 'loading'; readonly notice: Notice }
  | {
      readonly phase: 'waiting';
      readonly position: number;
      /** Whole minutes. */
      readonly estimated: number;
      readonly updatedAt: number;
      readonly notice: Notice;
    }
  /** Beyond the spec: in a scheduled event's pre-queue, which opens at `opensAt`; `now` for its countdown. */
  | { readonly phase: 'prequeue'; readonly opensAt: number; readonly now: number; readonly notice: Notice }
  | { readonly phase: 'released' | 'leaving' }
  /** Beyond the spec: the place in line was lost; `rejoin`: the page is about to join the line again. */
  | { readonly phase: 'lost'; readonly rejoin: boolean }
  /** Beyond the spec: the place moved to another browser ("continue on another device"). */
  | { readonly phase: 'moved' };

export const LOADING_VIEW: WaitingView = { phase: 'loading', notice: null };

const LOST = ['unavailable', 'failed', 'disconnected'];

/** Maps one status to its view. A failure is shown as leaving: the page leaves right after. */
export function toWaitingView(status: QueueStatus): WaitingView {
  if (status.kind == 'released') return { phase: 'released' };
  if (status.kind == 'moved') return { phase: 'moved' };
  if (status.kind == 'failed' || status.kind == 'leaving') return { phase: 'leaving' };
  if (status.kind == 'lost' || status.kind == 'rejoining') {
    return { phase: 'lost', rejoin: status.kind == 'rejoining' || status.rejoin != null };
  }
  const notice: Notice = LOST.includes(status.connection) ? 'connectionLost' : status.failedPolls > 0 ? 'pollFailed' : null;
  return status.kind == 'loading'
    ? status.opensAt
      ? { phase: 'prequeue', opensAt: status.opensAt, now: Date.now(), notice }
      : { phase: 'loading', notice }
    : { phase: 'waiting', position: status.position, estimated: Math.round(status.estimated), updatedAt: status.updatedAt, notice };
}
