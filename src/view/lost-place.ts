/**
 * The view shown when the visitor's place in line was lost (beyond the specification: the server
 * no longer knows the place, e.g. it restarted, or the place expired). Only such a visitor needs
 * it, so it is loaded then, from a file of its own that imports nothing the page bundles: React's
 * `createElement` comes from the page (one React), and its texts, in both languages, live here
 * rather than in texts.ts.
 */
import type { createElement, ReactElement } from 'react';

/**
 * Builds the lost-place view; the type of `lostPlaceView`. `rejoin`: the page is about to load
 * the held GET again (the stream core's `lost` with a target, then `rejoining`); otherwise the
 * held form waits for the visitor.
 */
export type LostPlaceView = (h: typeof createElement, lang: string, rejoin: boolean) => ReactElement;

interface LostTexts {
  readonly heading: string;
  readonly why: string;
  readonly rejoining: string;
  readonly formNotSent: string;
  readonly goBack: string;
  readonly home: string;
}

const TEXTS: Record<string, LostTexts> = {
  en: {
    heading: 'Your place in line was lost',
    why: 'The waiting room restarted or your place expired.',
    rejoining: 'Taking you back in line…',
    formNotSent: 'Your form was not sent. Go back to send it again.',
    goBack: 'Go back',
    home: 'Go to the home page',
  },
  fr: {
    heading: 'Votre place dans la file a été perdue',
    why: "La salle d'attente a redémarré ou votre place a expiré.",
    rejoining: 'Nous vous remettons dans la file…',
    formNotSent: "Votre formulaire n'a pas été envoyé. Revenez en arrière pour l'envoyer à nouveau.",
    goBack: 'Revenir en arrière',
    home: "Aller à la page d'accueil",
  },
};

/**
 * The heading and why, in the page's language (`lang` of texts.ts); then either that the page
 * takes the visitor back in line, or, for a held form, that it was not sent, a "Go back" button
 * (back in history, to the form the visitor came from) and a link to the site root.
 */
export const lostPlaceView: LostPlaceView = (h, lang, rejoin) => {
  const texts = TEXTS[lang] ?? TEXTS.en;
  return h(
    'section',
    { className: 'wr-block wr-lost', role: 'alert' },
    h('h1', null, texts.heading),
    h('p', null, texts.why),
    ...(rejoin
      ? [h('p', null, texts.rejoining)]
      : [
          h('p', null, texts.formNotSent),
          h(
            'p',
            { className: 'wr-actions' },
            h('button', { type: 'button', onClick: () => history.back() }, texts.goBack),
            h('a', { href: '/' }, texts.home),
          ),
        ]),
  );
};
