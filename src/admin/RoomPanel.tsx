import { useState, type FormEvent } from 'react';
import { consoleApi, type ConsoleSession } from './api';
import { Chart } from './Chart';
import { ReportView } from './ReportView';
import { roomFigures, type Point } from './live';
import { Figure } from './Figure';
import { figure, type ConsoleTexts } from './texts';

export interface RoomPanelProps {
  readonly texts: ConsoleTexts;
  readonly session: ConsoleSession;
  readonly room: string;
  readonly points: readonly Point[];
}

/** One room: its figures, its last hour, and the operator's actions on it. */
export function RoomPanel({ texts, session, room, points }: RoomPanelProps) {
  const figures = roomFigures(points, room);
  const [message, setMessage] = useState<{ readonly text: string; readonly error?: boolean }>();
  const [busy, setBusy] = useState(false);
  const id = `ac-room-${room}`;
  const act = async (action: () => Promise<string>) => {
    setBusy(true);
    try {
      setMessage({ text: await action() });
    } catch (error) {
      setMessage({ text: texts.failed((error as Error).message), error: true });
    } finally {
      setBusy(false);
    }
  };
  const now = figures?.now;

  const release = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const count = Number((event.currentTarget.elements.namedItem('count') as HTMLInputElement).value);
    void act(async () => texts.released((await consoleApi.release(session, room, count)).released.length));
  };
  const saveLimits = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const fields = event.currentTarget.elements;
    const value = (name: string) => {
      const text = (fields.namedItem(name) as HTMLInputElement).value.trim();
      return text === '' ? undefined : Number(text);
    };
    void act(async () => {
      await consoleApi.limits(session, room, { activeLimit: value('activeLimit'), releasePerMinute: value('releasePerMinute') });
      return texts.saved;
    });
  };
  const showMessage = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const text = (event.currentTarget.elements.namedItem('text') as HTMLTextAreaElement).value;
    void act(async () => {
      await consoleApi.message(session, room, text);
      return texts.messageSaved;
    });
  };
  const clearMessage = () =>
    act(async () => {
      await consoleApi.message(session, room, null);
      return texts.messageCleared;
    });
  const resetLimits = () =>
    act(async () => {
      await consoleApi.limits(session, room, { activeLimit: null, releasePerMinute: null });
      return texts.saved;
    });

  return (
    <section className="ac-card ac-room" aria-labelledby={`${id}-heading`} data-room={room}>
      <h2 id={`${id}-heading`}>
        {texts.room(room)}
        {now && <span className={now.paused ? 'ac-badge ac-paused' : 'ac-badge'}>{now.paused ? texts.paused : texts.running}</span>}
      </h2>
      {!now ? (
        <p className="ac-muted">{texts.noData}</p>
      ) : (
        <>
          <dl className="ac-figures">
            <Figure label={texts.waiting} name="waiting">
              {figure(texts, now.waiting)}
            </Figure>
            <Figure label={texts.active} name="active">
              {figure(texts, now.active)} <small>{texts.ofLimit(now.activeLimit)}</small>
            </Figure>
            <Figure label={texts.releasesPerMinute} name="releases">
              {figure(texts, figures.releasesPerMinute, 1)}
            </Figure>
            <Figure label={texts.estimate} name="estimate">
              {texts.minutes(now.estimate)}
            </Figure>
            <Figure label={texts.arrivalsPerMinute} name="arrivals">
              {figure(texts, figures.arrivalsPerMinute, 1)}
            </Figure>
            <Figure label={texts.walkAwaysPerMinute} name="walk-aways">
              {figure(texts, figures.walkAwaysPerMinute, 1)}
            </Figure>
            {now.codes && (
              <Figure label={texts.codesUsed} name="codes">
                {figure(texts, now.codes.used)} <small>{texts.ofIssued(now.codes.issued)}</small>
              </Figure>
            )}
          </dl>
          {now.admission && (
            <p className="ac-admission" data-figure="admission">
              <strong>{texts.admission}</strong> {now.admission.mode}
              {now.admission.activeLimit !== undefined && ` · ${texts.activeLimit}: ${figure(texts, now.admission.activeLimit)}`}
              {now.admission.perMinute !== undefined && ` · ${texts.perMinute}: ${figure(texts, now.admission.perMinute)}`}
              {now.admission.reason && ` · ${now.admission.reason}`}
            </p>
          )}
          <Chart texts={texts} points={points} room={room} />
        </>
      )}
      <div className="ac-actions">
        <button
          type="button"
          disabled={busy || !now}
          onClick={() => void act(async () => ((await consoleApi.pause(session, room, !now?.paused)).paused ? texts.paused : texts.running))}
        >
          {now?.paused ? texts.resume : texts.pause}
        </button>
        <form onSubmit={release} aria-labelledby={`${id}-release`}>
          <h3 id={`${id}-release`}>{texts.releaseHeading}</h3>
          <label htmlFor={`${id}-count`}>{texts.releaseCount}</label>
          <input id={`${id}-count`} name="count" type="number" min={1} max={10000} step={1} defaultValue={1} required />
          <button type="submit" disabled={busy}>
            {texts.release}
          </button>
        </form>
        <form onSubmit={saveLimits} aria-labelledby={`${id}-limits`}>
          <h3 id={`${id}-limits`}>{texts.limitsHeading}</h3>
          <label htmlFor={`${id}-active-limit`}>
            {texts.activeLimit}
            {now?.operatorSet.activeLimit && <small> ({texts.operatorSet})</small>}
          </label>
          <input
            id={`${id}-active-limit`}
            name="activeLimit"
            type="number"
            min={1}
            max={1000000}
            step={1}
            placeholder={now ? String(now.activeLimit) : undefined}
          />
          <label htmlFor={`${id}-per-minute`}>
            {texts.perMinute}
            {now?.operatorSet.perMinute && <small> ({texts.operatorSet})</small>}
          </label>
          <input
            id={`${id}-per-minute`}
            name="releasePerMinute"
            type="number"
            min={0}
            max={1000000}
            step={1}
            placeholder={now ? String(now.perMinute) : undefined}
          />
          <button type="submit" disabled={busy}>
            {texts.save}
          </button>
          <button type="button" className="ac-secondary" disabled={busy} onClick={() => void resetLimits()}>
            {texts.reset}
          </button>
        </form>
        <form onSubmit={showMessage} aria-labelledby={`${id}-message`}>
          <h3 id={`${id}-message`}>{texts.messageHeading}</h3>
          <label htmlFor={`${id}-message-text`}>{texts.messageLabel}</label>
          <textarea id={`${id}-message-text`} name="text" maxLength={500} rows={2} required />
          <button type="submit" disabled={busy}>
            {texts.messageSet}
          </button>
          <button type="button" className="ac-secondary" disabled={busy} onClick={() => void clearMessage()}>
            {texts.messageClear}
          </button>
        </form>
      </div>
      <p className={message?.error ? 'ac-error' : 'ac-message'} role="status" aria-live="polite">
        {message?.text}
      </p>
      <ReportView texts={texts} room={room} />
    </section>
  );
}
