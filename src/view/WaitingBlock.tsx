import type { ReactNode } from 'react';
import type { Texts } from '../i18n/texts';
import { estimatedText } from './estimated-text';
import { formatCount, formatTime } from './format';

interface Props {
  readonly texts: Texts;
  readonly position: number;
  readonly estimated: number;
  readonly updatedAt: number;
  /** The "tell me when it is my turn" control, when the browser can notify. */
  readonly children?: ReactNode;
}

/** The waiting block: position, estimated wait in minutes and when they were last updated. */
export function WaitingBlock({ texts, position, estimated, updatedAt, children }: Props) {
  const { t, lang } = texts;
  return (
    <section className="wr-block wr-waiting">
      <h1>{t('page.heading')}</h1>
      <p className="wr-position">
        {t('page.position')}
        <strong>{formatCount(lang, position)}</strong>
      </p>
      <p className="wr-estimated">{estimatedText(texts, estimated)}</p>
      <p className="wr-updated">
        <time dateTime={new Date(updatedAt).toISOString()}>{t('page.updated', { time: formatTime(lang, updatedAt) })}</time>
      </p>
      <p className="wr-hint">{t('page.keepOpen')}</p>
      {children}
    </section>
  );
}
