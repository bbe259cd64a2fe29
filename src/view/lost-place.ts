/**
 * The view shown when the visitor's place in line was lost (beyond the specification: the server
 * no longer knows the place, e.g. it restarted, or the place expired). Only such a visitor needs
 * it, so it is loaded then, from a file of its own that imports nothing the page bundles: React's
 * `createElement` comes from the page (one React), and its texts too (the catalogue's `lost.*`).
 */
import type { createElement, ReactElement } from 'react';
import type { Texts } from '../i18n/texts';

/**
 * Builds the lost-place view; the type of `lostPlaceView`. `rejoin`: the page is about to load
 * the held GET again (the stream core's `lost` with a target, then `rejoining`); otherwise the
 * held form waits for the visitor.
 */
export type LostPlaceView = (h: typeof createElement, texts: Texts, rejoin: boolean) => ReactElement;

/**
 * The heading and why, in the page's language; then either that the page takes the visitor
 * back in line, or, for a held form, that it was not sent, a "Go back" button (back in history,
 * to the form the visitor came from) and a link to the site root.
 */
export const lostPlaceView: LostPlaceView = (h, { t }, rejoin) =>
  h(
    'section',
    { className: 'wr-block wr-lost', role: 'alert' },
    h('h1', null, t('lost.heading')),
    h('p', null, t('lost.why')),
    ...(rejoin
      ? [h('p', null, t('lost.rejoining'))]
      : [
          h('p', null, t('lost.formNotSent')),
          h(
            'p',
            { className: 'wr-actions' },
            h('button', { type: 'button', onClick: () => history.back() }, t('lost.goBack')),
            h('a', { href: '/' }, t('lost.home')),
          ),
        ]),
  );
