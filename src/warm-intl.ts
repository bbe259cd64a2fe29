/**
 * Inlined into the page's HTML by build.mjs, a classic script run as the HTML is read: builds the
 * Intl formatters of the page's language (`<html lang>`) while the browser still waits for the
 * page's scripts. A browser's first Intl formatter loads its locale data, about 0.1 s on a slow
 * phone, which would otherwise fall between the scripts' arrival and the position; the page's own
 * formatters, built later, find it loaded. Best effort: a failure here changes nothing else.
 */
import { prepareFormats } from './view/format';

setTimeout(() => {
  try {
    const lang = document.documentElement.lang;
    // The formatters of the waiting block, and the plural rules of the texts (`translator`).
    prepareFormats(lang);
    new Intl.PluralRules(lang).select(1);
  } catch {
    // An unknown language: the page's own formatters fall back as they do without this.
  }
});
