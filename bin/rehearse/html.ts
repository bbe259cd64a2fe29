import type { Rehearsal } from './rehearse';
import { spoken, textReport } from './report';

const WIDTH = 720;
const HEIGHT = 220;
const PAD = 44;

const escape = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c] as string);

interface Series {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
  readonly dashed?: boolean;
}

/** One SVG chart of lines over time (seconds on x), self-contained. */
function chart(title: string, unit: string, series: readonly Series[]): string {
  const xs = series.flatMap((one) => one.points.map(([x]) => x));
  const ys = series.flatMap((one) => one.points.map(([, y]) => y));
  if (xs.length === 0) return '';
  const [x0, x1] = [Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)];
  const y1 = Math.max(1, ...ys) * 1.05;
  const sx = (x: number) => PAD + ((x - x0) / (x1 - x0)) * (WIDTH - 2 * PAD);
  const sy = (y: number) => HEIGHT - PAD + (-y / y1) * (HEIGHT - 2 * PAD);
  const lines = series.map((one) => {
    const d = one.points.map(([x, y], i) => `${i === 0 ? 'M' : 'L'}${sx(x).toFixed(1)},${sy(y).toFixed(1)}`).join('');
    return `<path d="${d}" fill="none" stroke="${one.color}" stroke-width="2"${one.dashed ? ' stroke-dasharray="6 4"' : ''}/>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const x = x0 + f * (x1 - x0);
    const y = f * y1;
    return (
      `<text x="${sx(x).toFixed(1)}" y="${HEIGHT - PAD + 16}" text-anchor="middle">${escape(spoken(x))}</text>` +
      `<text x="${PAD - 6}" y="${sy(y).toFixed(1)}" text-anchor="end" dominant-baseline="middle">${Math.round(y).toLocaleString('en-US')}</text>` +
      `<line x1="${PAD}" x2="${WIDTH - PAD}" y1="${sy(y).toFixed(1)}" y2="${sy(y).toFixed(1)}" stroke="#ddd"/>`
    );
  });
  const legend = series.map((one, i) => `<text x="${PAD + 8 + i * 170}" y="16" fill="${one.color}">■ ${escape(one.name)}</text>`);
  return `<figure><figcaption>${escape(title)} (${escape(unit)})</figcaption><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${escape(title)}">${ticks.join('')}${lines.join('')}${legend.join('')}</svg></figure>`;
}

/** The rehearsal as a page of its own: the summary and its charts in SVG, nothing fetched. */
export function htmlReport(result: Rehearsal): string {
  const t = (ms: number) => ms / 1000;
  const line = result.timeline;
  const capacity = result.origin.capacity;
  const charts = [
    chart('The line', 'visitors waiting', [{ name: 'waiting', color: '#1f6feb', points: line.map((p) => [t(p.t), p.waiting]) }]),
    chart('The origin', 'visitors admitted at once', [
      { name: 'admitted', color: '#2da44e', points: line.map((p) => [t(p.t), p.active]) },
      ...(capacity === null ? [] : [{ name: 'capacity', color: '#cf222e', dashed: true, points: line.map((p) => [t(p.t), capacity] as const) }]),
    ]),
    chart('Releases', 'a minute, in force', [{ name: 'releases/min', color: '#8250df', points: line.map((p) => [t(p.t), p.perMinute]) }]),
    chart('Waits by arrival time', 'seconds', [
      { name: 'p50', color: '#1f6feb', points: result.waitsByArrival.map((row) => [t(row.from), row.p50]) },
      { name: 'p90', color: '#bf8700', points: result.waitsByArrival.map((row) => [t(row.from), row.p90]) },
      { name: 'p99', color: '#cf222e', points: result.waitsByArrival.map((row) => [t(row.from), row.p99]) },
    ]),
    chart("The page's estimate, every minute", 'minutes off, mean', [
      { name: 'mean error', color: '#cf222e', points: result.estimate.byMinute.map((row) => [row.minute * 60, row.meanError]) },
    ]),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Rehearsal of room ${escape(result.room)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:${WIDTH}px;color:#222}pre{white-space:pre-wrap;font-size:12px}svg{width:100%;height:auto;font-size:11px}figure{margin:1.5em 0}figcaption{font-weight:600}</style>
</head><body><h1>Rehearsal of room “${escape(result.room)}”</h1>
${charts.join('\n')}
<pre>${escape(textReport(result))}</pre>
</body></html>
`;
}
