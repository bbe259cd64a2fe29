/**
 * The view shown instead of the waiting room when the page config is unusable. Only such a
 * config needs it, so it is loaded then, from a file of its own that imports nothing the page
 * bundles: React's `createElement` comes from the page (one React), and its texts, in both
 * languages, live here rather than in texts.ts.
 */
import type { createElement, ReactElement } from 'react';

/** Builds the config-problem view; the type of `configProblemView`. */
export type ConfigProblemView = (h: typeof createElement, lang: string, problems: readonly string[]) => ReactElement;

const TEXTS: Record<string, { readonly heading: string; readonly hint: string }> = {
  en: { heading: 'This waiting room could not start.', hint: 'Please try again in a few minutes. Details for the site team:' },
  fr: { heading: "Cette salle d'attente n'a pas pu démarrer.", hint: "Veuillez réessayer dans quelques minutes. Détails pour l'équipe du site :" },
};

/** The heading, a hint and every problem found, in the page's language (`lang` of texts.ts). */
export const configProblemView: ConfigProblemView = (h, lang, problems) => {
  const { heading, hint } = TEXTS[lang] ?? TEXTS.en;
  return h(
    'section',
    { className: 'wr-block wr-problem', role: 'alert' },
    h('h1', null, heading),
    h('p', null, hint),
    h('ul', null, ...problems.map((problem) => h('li', { key: problem }, problem))),
  );
};
