import type { Texts } from './texts';
import { formatCount, formatTime } from './format';

interface Props {
  readonly texts: Texts;
  readonly position: number;
  readonly estimated: number;
  readonly updatedAt: number;
}

/** The waiting block: position, estimated wait in minutes and when they were last updated. */
export function WaitingBlock({ texts, position, estimated, updatedAt }: Props) {
  return (
    <section className="wr-block wr-waiting">
      <h1>{texts.heading}</h1>
      <p className="wr-position">
        {texts.position}
        <strong>{formatCount(texts.lang, position)}</strong>
      </p>
      <p className="wr-estimated">{texts.estimated(estimated)}</p>
      <p className="wr-updated">
        <time dateTime={new Date(updatedAt).toISOString()}>{texts.updated(formatTime(texts.lang, updatedAt))}</time>
      </p>
      <p className="wr-hint">{texts.keepOpen}</p>
    </section>
  );
}
