import type { Rehearsal } from './rehearse';

/** A duration in words a person reads at a glance: 45 s, 12.5 min, 3.2 h. */
export function spoken(seconds: number): string {
  if (!Number.isFinite(seconds)) return '–';
  const sign = seconds < 0 ? '−' : '';
  const s = Math.abs(seconds);
  if (s < 120) return `${sign}${Math.round(s * 10) / 10} s`;
  if (s < 7200) return `${sign}${Math.round(s / 6) / 10} min`;
  return `${sign}${Math.round(s / 360) / 10} h`;
}

const count = (value: number) => value.toLocaleString('en-US');

/** The rehearsal as text: what the event will look like. */
export function textReport(result: Rehearsal): string {
  const lines: string[] = [];
  const { crowd, policy, waits, origin, estimate, drain } = result;
  const opening = result.event ? `event "${result.event.id}", opening ${result.event.opensAt}` : 'no event: times from the first arrival';
  lines.push(`Rehearsal of room "${result.room}" (${result.admission} admission), ${opening}`);
  lines.push(
    `Crowd: ${count(crowd.visitors)} visitors${crowd.bots > 0 ? `, ${count(crowd.bots)} of them bots (${crowd.botCheck ? 'the bot check keeps them out' : 'no bot check: they wait like anyone'})` : ''}`,
  );
  lines.push(
    `Policy at the end: ${count(policy.perMinute)} releases a minute, ${count(policy.activeLimit)} admitted at once, sessions of ${spoken(policy.sessionSeconds)}`,
  );
  lines.push('');
  lines.push(
    drain
      ? `The line drains ${spoken(drain.fromFirstArrival)} after the first arrival (${spoken(drain.fromOpening)} after the opening).`
      : 'The line does not drain within the time given (--max).',
  );
  lines.push(
    `Waits of the ${count(waits.through)} people let in (of ${count(waits.people)}): p50 ${spoken(waits.p50)}, p90 ${spoken(waits.p90)}, p99 ${spoken(waits.p99)}, longest ${spoken(waits.max)}.`,
  );
  const load = [`peak ${count(origin.peakActive)} admitted at once`];
  if (origin.capacity !== null) {
    load.push(
      `capacity ${count(origin.capacity)} (${Math.round((origin.peakActive / origin.capacity) * 100)} % at the peak, over it for ${spoken(origin.overCapacitySeconds ?? 0)})`,
    );
  }
  if (origin.peakOriginMs !== null) load.push(`its answers up to ${count(origin.peakOriginMs)} ms by the curve`);
  lines.push(`Origin: ${load.join('; ')}.`);
  if (estimate.atArrival) {
    lines.push(
      `The page's estimate (${count(estimate.tracked)} visitors followed): at arrival off by ${estimate.atArrival.meanError} min on average ` +
        `(${signed(estimate.atArrival.bias)} min bias, ${Math.round(estimate.atArrival.within1 * 100)} % within a minute)` +
        (estimate.everyMinute ? `; minute by minute off by ${estimate.everyMinute.meanError} min (${signed(estimate.everyMinute.bias)} bias).` : '.'),
    );
  }
  lines.push('');
  lines.push('Waits by arrival time');
  lines.push(
    table(
      ['arrived', 'people', 'p50', 'p90', 'p99', 'estimated', 'waited'],
      result.waitsByArrival.map((row) => [
        `${spoken(row.from / 1000)} – ${spoken(row.to / 1000)}`,
        count(row.visitors),
        spoken(row.p50),
        spoken(row.p90),
        spoken(row.p99),
        row.estimated === null ? '–' : `${row.estimated} min`,
        row.waited === null ? '–' : `${row.waited} min`,
      ]),
    ),
  );
  lines.push('');
  lines.push('The line over time');
  const points = result.timeline;
  const every = Math.max(1, Math.ceil(points.length / 20));
  const shown = points.filter((_, i) => i % every === 0 || i === points.length - 1);
  const originColumn = points.some((point) => point.originMs !== undefined);
  lines.push(
    table(
      ['time', 'waiting', 'admitted', 'releases/min', ...(originColumn ? ['origin ms'] : [])],
      shown.map((point) => [
        spoken(point.t / 1000),
        count(point.waiting),
        count(point.active),
        count(point.perMinute),
        ...(originColumn ? [count(point.originMs ?? 0)] : []),
      ]),
    ),
  );
  lines.push('');
  lines.push(`Rehearsed in ${result.tookSeconds} s.`);
  return lines.join('\n');
}

const signed = (value: number) => (value > 0 ? `+${value}` : `${value}`);

function table(head: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = head.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i].length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  return [line(head), ...rows.map(line)].join('\n');
}
