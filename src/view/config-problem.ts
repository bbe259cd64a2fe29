/**
 * The view shown instead of the waiting room when the page config is unusable. Only such a
 * config needs it, so it is loaded then, from a file of its own that imports nothing the page
 * bundles: React's `createElement` comes from the page (one React), and its texts too (the
 * catalogue's `problem.*`, in the config's language when that part of it is sound).
 */
import type { createElement, ReactElement } from 'react';
import type { Texts } from '../i18n/texts';

/** Builds the config-problem view; the type of `configProblemView`. */
export type ConfigProblemView = (h: typeof createElement, texts: Texts, problems: readonly string[]) => ReactElement;

/** The heading, a hint and every problem found. */
export const configProblemView: ConfigProblemView = (h, { t }, problems) =>
  h(
    'section',
    { className: 'wr-block wr-problem', role: 'alert' },
    h('h1', null, t('problem.heading')),
    h('p', null, t('problem.hint')),
    h('ul', null, ...problems.map((problem) => h('li', { key: problem, dir: 'ltr' }, problem))),
  );
