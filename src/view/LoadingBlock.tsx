import type { Texts } from '../i18n/texts';

/** The loading block; the same markup as the static one the server writes (public/index.html), so the swap does not show. */
export function LoadingBlock({ texts }: { texts: Texts }) {
  return (
    <section className="wr-block wr-loading" role="status">
      {/* For those who move by headings: the page's name, until the waiting block has its own. */}
      <h1 className="wr-sr">{texts.t('page.title')}</h1>
      <span className="wr-spinner" aria-hidden="true"></span>
      <p>{texts.t('page.loading')}</p>
    </section>
  );
}
