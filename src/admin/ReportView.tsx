import { useEffect, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { consoleApi, type RoomReport } from './api';
import { Figure } from './Figure';
import { figure, type ConsoleTexts } from './texts';

/** A room's report (`GET /admin/report`), loaded on demand: its figures, two charts, and its CSV. */
export function ReportView({ texts, room }: { readonly texts: ConsoleTexts; readonly room: string }) {
  const [report, setReport] = useState<RoomReport>();
  const [failure, setFailure] = useState<string>();
  const words = texts.report;
  const load = () => {
    setFailure(undefined);
    consoleApi.report(room).then(setReport, (error: Error) => setFailure(texts.failed(error.message)));
  };
  // Built once a report: the panel renders with every live sample, and a chart is redrawn only when these change.
  const timeline = useMemo(
    () =>
      report && [
        report.timeline.map((minute) => Date.parse(minute.at) / 1000),
        report.timeline.map((minute) => minute.arrivals),
        report.timeline.map((minute) => minute.line),
      ],
    [report],
  );
  const spread = useMemo(() => report && distributions(report), [report]);
  const timelineSeries = useMemo(() => [words.series.arrivals, words.series.line], [words]);
  const spreadSeries = useMemo(() => [words.series.waits, words.series.errors], [words]);
  const n = (value: number | null | undefined, digits = 0) => figure(texts, value ?? undefined, digits);

  return (
    <div className="ac-report" data-report={room}>
      <h3>{words.heading}</h3>
      <p>
        <button type="button" onClick={load}>
          {words.load}
        </button>{' '}
        <a href={`/admin/report?room=${encodeURIComponent(room)}&format=csv`} download>
          {words.csv}
        </a>
      </p>
      {failure && (
        <p className="ac-error" role="alert">
          {failure}
        </p>
      )}
      {report && (
        <>
          <dl className="ac-figures">
            <Figure label={words.arrivals} name="report-arrivals">
              {n(report.arrivals)}
            </Figure>
            <Figure label={words.peakLine} name="report-peak">
              {n(report.peakLine)}
            </Figure>
            <Figure label={words.admitted} name="report-admitted">
              {n(report.admitted)}
            </Figure>
            <Figure label={words.abandoned} name="report-abandoned">
              {n(report.abandoned)}
            </Figure>
            <Figure label={words.waiting} name="report-waiting">
              {n(report.waiting)}
            </Figure>
            <Figure label={words.revoked} name="report-revoked">
              {n(report.revoked)}
            </Figure>
            <Figure label={words.replays} name="report-replays">
              {n(report.replays)}
            </Figure>
            <Figure label={words.botChecks} name="report-bot-checks">
              {`${n(report.botChecks.solved)} / ${n(report.botChecks.failed)}`}
            </Figure>
            <Figure label={words.waits} name="report-waits">
              {report.waits ? `${n(report.waits.p50, 2)} / ${n(report.waits.p90, 2)} / ${n(report.waits.p99, 2)}` : '–'}
            </Figure>
            <Figure label={words.estimateError} name="report-estimate-error">
              {`${n(report.estimateError.median, 2)} / ${n(report.estimateError.p90, 2)}`}
            </Figure>
          </dl>
          {timeline && <Plot label={words.timelineLabel(report.arrivals, report.peakLine)} time series={timelineSeries} data={timeline} />}
          {spread && <Plot label={words.distributionLabel(report.admitted)} series={spreadSeries} data={spread} />}
        </>
      )}
    </div>
  );
}

/** The waits and the errors by whole minutes, on one axis of minutes. */
function distributions(report: RoomReport): (number | null)[][] {
  const length = Math.max(report.waitsByMinute.length, report.errorsByMinute.length);
  const minutes = Array.from({ length }, (_, i) => i);
  return [minutes, minutes.map((i) => report.waitsByMinute[i] ?? 0), minutes.map((i) => report.errorsByMinute[i] ?? 0)];
}

const COLOURS = ['#2456c7', '#c2581a'];

/** One uPlot chart of two series; a canvas, so its label says what it shows. */
function Plot({
  label,
  series,
  data,
  time = false,
}: {
  readonly label: string;
  readonly series: readonly string[];
  readonly data: (number | null)[][];
  readonly time?: boolean;
}) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const chart = new uPlot(
      {
        width: Math.max(300, element.clientWidth),
        height: 180,
        series: [{}, ...series.map((name, i) => ({ label: name, stroke: COLOURS[i], width: 2, points: { show: false } }))],
        scales: { x: { time } },
        legend: { live: false },
      },
      data as uPlot.AlignedData,
      element,
    );
    return () => chart.destroy();
  }, [series, data, time]);
  return <div className="ac-chart" ref={box} role="img" aria-label={label} />;
}
