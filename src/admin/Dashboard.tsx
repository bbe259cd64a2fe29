import { useEffect, useState } from 'react';
import type { LiveSnapshot } from '../../server/domain/console/samples';
import { consoleApi, type ConsoleSession } from './api';
import { addSample, instanceFigures, type Point } from './live';
import { liveSamples$, type LiveStatus } from './realtime';
import { RoomPanel } from './RoomPanel';
import { Figure } from './Figure';
import { figure, type ConsoleTexts } from './texts';

export interface DashboardProps {
  readonly texts: ConsoleTexts;
  readonly session: ConsoleSession;
  readonly onSignedOut: () => void;
}

/** The last hour from `GET /admin/live`, then each sample as it is pushed; one panel per room. */
export function Dashboard({ texts, session, onSignedOut }: DashboardProps) {
  const [snapshot, setSnapshot] = useState<LiveSnapshot>();
  const [points, setPoints] = useState<Point[]>([]);
  const [status, setStatus] = useState<LiveStatus>('connecting');
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    let live = true;
    consoleApi
      .live()
      .then((loaded) => {
        if (!live) return;
        setSnapshot(loaded);
        setPoints(loaded.history.reduce<Point[]>((all, sample) => addSample(all, sample), []));
      })
      .catch((error: Error) => live && setFailure(texts.failed(error.message)));
    return () => {
      live = false;
    };
  }, [texts]);

  useEffect(() => {
    if (!snapshot) return undefined;
    const subscription = liveSamples$(snapshot, session).subscribe(({ sample, status: next }) => {
      setStatus(next);
      if (sample) setPoints((all) => addSample(all, sample));
    });
    return () => subscription.unsubscribe();
  }, [snapshot, session]);

  const signOut = async () => {
    await consoleApi.signOut(session).catch(() => undefined);
    onSignedOut();
  };
  const local = snapshot ? instanceFigures(points, snapshot.sampleMs) : undefined;

  return (
    <>
      <header className="ac-header">
        <h1>{texts.title}</h1>
        <p className={`ac-status ac-status-${status}`} role="status" aria-live="polite">
          {status === 'live' ? texts.live : status === 'connecting' ? texts.connecting : texts.offline}
        </p>
        <button type="button" className="ac-secondary" onClick={() => void signOut()}>
          {texts.signOut}
        </button>
      </header>
      {failure && (
        <p className="ac-error" role="alert">
          {failure}
        </p>
      )}
      {snapshot && local && (
        <section className="ac-card ac-instance" aria-label={texts.origin(snapshot.origin)}>
          <h2>{texts.origin(snapshot.origin)}</h2>
          <dl className="ac-figures">
            <Figure label={texts.originLatency} name="origin-latency">
              {local.originMeanMs === undefined ? '–' : `${figure(texts, local.originMeanMs, 1)} ms`}
            </Figure>
            <Figure label={texts.originErrorsPerMinute} name="origin-errors">
              {figure(texts, local.originErrorsPerMinute, 1)}
            </Figure>
            <Figure label={texts.pageErrorsPerMinute} name="page-errors">
              {figure(texts, local.pageErrorsPerMinute, 1)}
            </Figure>
            <Figure label={texts.revokedPerMinute} name="revoked">
              {figure(texts, local.revokedPerMinute, 1)}
            </Figure>
          </dl>
        </section>
      )}
      {snapshot?.rooms.map((room) => (
        <RoomPanel key={room} texts={texts} session={session} room={room} points={points} />
      ))}
    </>
  );
}
