import type { PlaceFigures } from '../../domain/report/figures';

/** The CSV's columns, in order: nothing that names a visitor (no uuid, session, user id or address). */
export const REPORT_CSV_COLUMNS = [
  'place',
  'arrived_at',
  'line_number',
  'estimate_at_arrival_min',
  'estimates_each_minute_min',
  'released_at',
  'wait_min',
  'outcome',
] as const;

/** One row a place, in arrival order, with a header row; RFC 4180 (CRLF, fields quoted where they must be). */
export function reportCsv(places: readonly PlaceFigures[]): string {
  const lines = [REPORT_CSV_COLUMNS.join(',')];
  for (const place of places) {
    lines.push(
      [
        place.place,
        new Date(place.arrivedAt).toISOString(),
        place.lineNumber,
        place.estimate,
        place.estimates.join(' '),
        place.releasedAt === undefined ? '' : new Date(place.releasedAt).toISOString(),
        place.wait ?? '',
        place.outcome,
      ]
        .map((field) => csvField(String(field)))
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A field as CSV has it: quoted, its quotes doubled, when it holds a comma, a quote or a line break. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
