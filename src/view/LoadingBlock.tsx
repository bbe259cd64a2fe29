import type { Texts } from './texts';

/** The loading block; the same markup as the static one in public/index.html, so the swap does not show. */
export function LoadingBlock({ texts }: { texts: Texts }) {
  return (
    <section className="wr-block wr-loading" role="status">
      <span className="wr-spinner" aria-hidden="true"></span>
      <p>{texts.loading}</p>
    </section>
  );
}
