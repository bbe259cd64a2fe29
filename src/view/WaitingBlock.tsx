import type { ReactNode } from 'react';
import type { Texts } from '../i18n/texts';
import { estimatedText } from './estimated-text';
import { formatCount, formatTime } from './format';

interface PositionProps {
  readonly texts: Texts;
  readonly position: number;
}

interface EstimateProps {
  readonly texts: Texts;
  readonly estimated: number;
  readonly updatedAt: number;
  /** The "tell me when it is my turn" control, when the browser can notify. */
  readonly children?: ReactNode;
  /** How long the visitor may leave the page and keep the place, in minutes; absent: not said. */
  readonly awayMinutes?: number;
}

/** The waiting block: position, estimated wait in minutes and when they were last updated. */
export function WaitingBlock({ texts, position, estimated, updatedAt, children, awayMinutes }: PositionProps & EstimateProps) {
  return (
    <section className="wr-block wr-waiting">
      <PositionLines texts={texts} position={position} />
      <EstimateLines texts={texts} estimated={estimated} updatedAt={updatedAt} awayMinutes={awayMinutes}>
        {children}
      </EstimateLines>
    </section>
  );
}

/** The position alone, for a room's own page, which places it apart from the estimate. */
export function PositionBlock(props: PositionProps) {
  return (
    <section className="wr-block wr-waiting">
      <PositionLines {...props} />
    </section>
  );
}

/** The estimated wait alone (with when it was updated), for a room's own page. */
export function EstimateBlock(props: EstimateProps) {
  return (
    <section className="wr-block wr-estimate">
      <EstimateLines {...props} />
    </section>
  );
}

function PositionLines({ texts, position }: PositionProps) {
  const { t, lang } = texts;
  return (
    <>
      <h1>{t('page.heading')}</h1>
      <p className="wr-position">
        {t('page.position')}
        <strong>{formatCount(lang, position)}</strong>
      </p>
    </>
  );
}

function EstimateLines({ texts, estimated, updatedAt, children, awayMinutes }: EstimateProps) {
  const { t, lang } = texts;
  return (
    <>
      <p className="wr-estimated">{estimatedText(texts, estimated)}</p>
      <p className="wr-updated">
        <time dateTime={new Date(updatedAt).toISOString()}>{t('page.updated', { time: formatTime(lang, updatedAt) })}</time>
      </p>
      <p className="wr-hint">{t('page.keepOpen')}</p>
      {awayMinutes !== undefined && <p className="wr-hint wr-away">{t('away.mayLeave', { count: awayMinutes })}</p>}
      {children}
    </>
  );
}
