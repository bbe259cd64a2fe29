import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import { chartSeries, type Point } from './live';
import type { ConsoleTexts } from './texts';

/**
 * The last hour of a room with uPlot: waiting and active sessions, and releases a minute on an
 * axis of their own. Drawn on a canvas, so screen readers get its summary as the label instead.
 */
export function Chart({ texts, points, room }: { readonly texts: ConsoleTexts; readonly points: readonly Point[]; readonly room: string }) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | undefined>(undefined);
  const data = chartSeries(points, room);

  useEffect(() => {
    const element = box.current;
    if (!element) return undefined;
    const chart = new uPlot(
      {
        width: Math.max(300, element.clientWidth),
        height: 220,
        series: [
          {},
          // A point every two seconds: markers would hide the lines.
          { label: texts.series.waiting, stroke: '#2456c7', width: 2, scale: 'count', points: { show: false } },
          { label: texts.series.active, stroke: '#1f8a4c', width: 2, scale: 'count', points: { show: false } },
          { label: texts.series.rate, stroke: '#c2581a', width: 1, dash: [4, 4], scale: 'rate', points: { show: false } },
        ],
        axes: [{}, { scale: 'count' }, { scale: 'rate', side: 1, grid: { show: false } }],
        scales: { x: { time: true }, count: { range: (_u, _min, max) => [0, Math.max(1, max)] }, rate: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
        legend: { live: false },
      },
      [[], [], [], []],
      element,
    );
    plot.current = chart;
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(300, element.clientWidth), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      plot.current = undefined;
    };
  }, [texts]);

  useEffect(() => {
    plot.current?.setData(data);
  });

  const waiting = data[1].at(-1) ?? 0;
  const active = data[2].at(-1) ?? 0;
  return <div className="ac-chart" ref={box} role="img" aria-label={texts.chartLabel(waiting, active)} />;
}
