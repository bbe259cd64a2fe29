import type { Progress } from './progress';
import type { Texts } from './texts';

/** What the element shows, by the state it is in (also its `state` attribute, for the page's CSS). */
export type StatusState = 'idle' | 'loading' | 'waiting' | 'turn' | 'lost' | 'failed';

export interface StatusView {
  readonly state: StatusState;
  /** The one line read out to screen readers when it changes (empty: nothing to say). */
  readonly announcement: string;
  /** The heading, or the whole message outside `waiting`. */
  readonly message: string;
  /** The position, in the visitor's language (`waiting` only). */
  readonly position: string | null;
  readonly estimated: string | null;
  /** When the position was last updated, as the scheduler's epoch milliseconds. */
  readonly updatedAt: number | null;
  readonly updated: string | null;
  /** Why the position may be stale: the connection is lost, or queue_info failed (`waiting` only). */
  readonly notice: string | null;
}

const nothing = { position: null, estimated: null, updatedAt: null, updated: null, notice: null } as const;

/** Connection states in which the position may be stale (pusher-js's names). */
const DOWN = ['unavailable', 'failed', 'disconnected'];

/** What to show of `progress`, in the language of `texts`: pure, so that each state is tested alone. */
export function statusView({ held, status }: Progress, { t, count, time }: Texts): StatusView {
  const say = (state: StatusState, message: string, notice: string | null = null): StatusView => ({
    state,
    announcement: message,
    message,
    ...nothing,
    notice,
  });
  if (held == 0) return { state: 'idle', announcement: '', message: '', ...nothing };
  switch (status?.kind) {
    case undefined:
      return say('loading', t('page.loading'));
    case 'loading':
    case 'waiting': {
      const notice = DOWN.includes(status.connection) ? t('page.connectionLost') : status.failedPolls > 0 ? t('page.pollFailed') : null;
      if (status.kind == 'loading') return say('loading', t('page.loading'), notice);
      const position = count(status.position);
      const minutes = Math.round(status.estimated);
      const estimated = minutes < 1 ? t('page.estimatedSoon') : t('page.estimated', { count: minutes });
      return {
        state: 'waiting',
        announcement: t('element.announce', { position, estimated }),
        message: t('element.heading'),
        position,
        estimated,
        updatedAt: status.updatedAt,
        updated: t('page.updated', { time: time(status.updatedAt) }),
        notice,
      };
    }
    case 'released':
      return say('turn', t('element.turn'));
    case 'lost':
    case 'rejoining':
      return say('lost', t('element.lost'));
    case 'failed':
    case 'leaving':
      return say('failed', t('element.failed'));
    case 'moved':
      return say('lost', t('handoff.moved.heading'));
  }
}
