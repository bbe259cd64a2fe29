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

/** The units of a countdown, largest first, in seconds. */
const UNITS = [
  ['day', 86_400],
  ['hour', 3600],
  ['minute', 60],
  ['second', 1],
] as const;

/** Intl formatters take a while to build on a slow phone: one set per language, not one a second. */
const formats = new Map<string, { readonly units: Intl.NumberFormat[]; readonly list: Intl.ListFormat; readonly when: Intl.DateTimeFormat }>();

function formatsOf(lang: string) {
  let found = formats.get(lang);
  if (!found) {
    found = {
      units: UNITS.map(([unit]) => new Intl.NumberFormat(lang, { style: 'unit', unit, unitDisplay: 'short' })),
      list: new Intl.ListFormat(lang, { type: 'unit', style: 'narrow' }),
      // The visitor's own time zone (the browser's), named, so that nobody misreads the hour.
      when: new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' }),
    };
    formats.set(lang, found);
  }
  return found;
}

/**
 * `ms` as the time left, in the visitor's language and its own unit names, to the second: its
 * largest unit and the next ("1 hr, 5 min", "4 min 5 sec", "9 sec" in English; "1 h et 5 min" in French).
 */
export function timeLeft(lang: string, ms: number): string {
  let left = Math.max(0, Math.ceil(ms / 1000));
  const amounts = UNITS.map(([, seconds]) => {
    const amount = Math.floor(left / seconds);
    left -= amount * seconds;
    return amount;
  });
  const first = amounts.findIndex((amount) => amount > 0);
  const largest = first < 0 ? UNITS.length - 1 : first;
  const { units, list } = formatsOf(lang);
  const shown = [largest, largest + 1].filter((i) => i < UNITS.length && (i == largest || amounts[i] > 0));
  return list.format(shown.map((i) => units[i].format(amounts[i])));
}

/** When the sale opens, as a date and time in the visitor's language and time zone. */
export const openingTime = (lang: string, opensAt: number): string => formatsOf(lang).when.format(opensAt);

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
  return h(
    'section',
    { className: 'wr-block wr-event wr-prequeue', role: 'status' },
    h('h1', null, t('event.heading')),
    h('p', null, event.name),
    h('p', { className: 'wr-opens' }, t('event.opensAt', { time: openingTime(texts.lang, moment.opensAt) })),
    h(
      'p',
      { className: 'wr-countdown', role: 'timer', 'aria-live': 'off' },
      left > 0 ? t('event.opensIn', { left: timeLeft(texts.lang, left) }) : t(event.shuffle ? 'event.drawing' : 'event.opening'),
    ),
    h('p', null, t('event.inLine')),
    h('p', null, t(event.shuffle ? 'event.noAdvantage' : 'event.inOrder')),
    h('p', { className: 'wr-hint' }, t('event.keepOpen')),
    event.commitment && h('p', { className: 'wr-hint wr-commitment' }, t('event.commitment'), ' ', h('code', null, event.commitment)),
  );
};
