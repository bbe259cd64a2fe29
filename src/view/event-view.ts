/**
 * What the waiting page shows of a scheduled event (beyond the specification): while its
 * pre-queue waits for the opening, when the sale opens (in the visitor's time zone, with a
 * countdown), that they are in, and that arriving earlier gives no advantage; once drawn, the way
 * to verify the draw. Only a page in a pre-queue needs it, so it is loaded then, from a file of its
 * own that imports nothing the page bundles: React's `createElement` comes from the page (one
 * React), and its texts too (the catalogue's `event.*`).
 */
import type { createElement, ReactElement } from 'react';
import type { EventFacts } from '@waiting-room/streams/contract';
import type { Texts } from '../i18n/texts';

/** Where the page stands in the event: in the pre-queue (at `now`, the opening at `opensAt`), or in line after the draw. */
export type EventMoment = { readonly phase: 'prequeue'; readonly opensAt: number; readonly now: number } | { readonly phase: 'waiting' };

/** Builds the event's part of the page; the type of `eventView`. Null when there is nothing to show. */
export type EventView = (h: typeof createElement, texts: Texts, event: EventFacts, moment: EventMoment, uuid: string) => ReactElement | null;

/** `ms` as the time left, in the visitor's language: "1 h 5 min", "4 min 5 s", "9 s" in English. */
export function timeLeft({ t }: Texts, ms: number): string {
  const seconds = Math.max(0, Math.ceil(ms / 1000));
  const [hours, minutes] = [Math.floor(seconds / 3600), Math.floor(seconds / 60) % 60];
  if (hours > 0) return t('event.leftHours', { hours, minutes });
  return minutes > 0 ? t('event.leftMinutes', { minutes, seconds: seconds % 60 }) : t('event.leftSeconds', { seconds });
}

/**
 * The address of the page that verifies the draw, for this visitor: the uuid and the commitment
 * their page was given ride in the fragment, which no server sees.
 */
export function verifyAddress(event: EventFacts, uuid: string): string {
  const fragment = new URLSearchParams({ uuid, ...(event.commitment && { commitment: event.commitment }) });
  // The contract's EVENT_ROUTES.verify, written out: importing the contract here would bundle it twice.
  return `/events/${encodeURIComponent(event.id)}/verify#${fragment.toString()}`;
}

export const eventView: EventView = (h, texts, event, moment, uuid) => {
  const { t } = texts;
  if (moment.phase == 'waiting') {
    return event.shuffle
      ? h(
          'p',
          { className: 'wr-block wr-event wr-verify' },
          t('event.drawn'),
          ' ',
          h('a', { href: verifyAddress(event, uuid), target: '_blank', rel: 'noopener' }, t('event.verify')),
        )
      : null;
  }
  const left = moment.opensAt - moment.now;
  const when = new Intl.DateTimeFormat(texts.lang, { dateStyle: 'long', timeStyle: 'short' }).format(moment.opensAt);
  return h(
    'section',
    { className: 'wr-block wr-event wr-prequeue', role: 'status' },
    h('h1', null, t('event.heading')),
    h('p', null, event.name),
    h('p', { className: 'wr-opens' }, t('event.opensAt', { time: when })),
    h(
      'p',
      { className: 'wr-countdown', role: 'timer', 'aria-live': 'off' },
      left > 0 ? t('event.opensIn', { left: timeLeft(texts, left) }) : t(event.shuffle ? 'event.drawing' : 'event.opening'),
    ),
    h('p', null, t('event.inLine')),
    h('p', null, t(event.shuffle ? 'event.noAdvantage' : 'event.inOrder')),
    h('p', { className: 'wr-hint' }, t('event.keepOpen')),
    event.commitment && h('p', { className: 'wr-hint wr-commitment' }, t('event.commitment'), ' ', h('code', null, event.commitment)),
  );
};
