import type { Clock } from '../../domain/clock';
import { readReport } from '../../domain/report/read';
import type { ReportFigures } from '../../domain/report/figures';
import type { Rooms } from '../../domain/rooms';
import { HttpError } from '../errors';
import { ADMIN_SECURITY, errorResponses, failsWith } from '../openapi';
import type { SchemaTypedApp } from '../type-provider';
import { reportCsv } from '../admin/report-csv';

export interface ReportRouteOptions {
  readonly rooms: Rooms;
  readonly clock: Clock;
}

/** How much longer than the retention the report reads back for arrivals still kept. */
const READ_BACK_MS = 24 * 3_600_000;

const MINUTES = { type: ['number', 'null'], description: 'Minutes.' } as const;
const SPREAD = {
  type: 'object',
  properties: { samples: { type: 'integer' }, median: MINUTES, p90: MINUTES },
} as const;

/** The JSON answer, every field described (the console draws it). */
const REPORT_SCHEMA = {
  type: 'object',
  properties: {
    room: { type: 'string' },
    event: {
      type: ['object', 'null'],
      description: 'The event the report covers (its pre-queue to its end); null: every place kept.',
      properties: { id: { type: 'string' }, name: { type: 'string' } },
    },
    from: { type: 'string', description: 'ISO 8601: the earliest arrival covered.' },
    to: { type: 'string', description: 'ISO 8601: the latest arrival covered.' },
    generatedAt: { type: 'string' },
    retentionHours: { type: 'integer', description: 'How long the report is kept after its last change (REPORT_RETENTION_HOURS).' },
    arrivals: { type: 'integer', description: 'Places that entered the line.' },
    peakLine: { type: 'integer', description: 'The longest line sampled (every instance samples it each second while anyone waits).' },
    admitted: { type: 'integer', description: 'Places released.' },
    abandoned: { type: 'integer', description: 'Places gone from the line unreleased: silent past AWAY_SECONDS, or replaced.' },
    waiting: { type: 'integer', description: 'Places still in line.' },
    revoked: { type: 'integer', description: 'Admissions the site revoked.' },
    replays: { type: 'integer', description: 'Held requests (not GET) restored by a replay.' },
    botChecks: { type: 'object', properties: { solved: { type: 'integer' }, failed: { type: 'integer' } } },
    waits: {
      type: ['object', 'null'],
      description: 'The waits of those admitted, arrival to release, in minutes, by nearest rank.',
      properties: { p50: { type: 'number' }, p90: { type: 'number' }, p99: { type: 'number' } },
    },
    estimateError: {
      type: 'object',
      description:
        'The estimate against the wait really had, |estimated − waited| in minutes, over the estimates given to admitted places at arrival and at each minute after; bias: the median of estimated − waited.',
      properties: { ...SPREAD.properties, bias: MINUTES, atArrival: SPREAD },
    },
    waitsByMinute: { type: 'array', items: { type: 'integer' }, description: 'Admitted places by whole minutes waited.' },
    errorsByMinute: { type: 'array', items: { type: 'integer' }, description: 'Estimates by whole minutes of error.' },
    timeline: {
      type: 'array',
      description: 'Each minute: arrivals, releases, and the longest line sampled (null: not sampled).',
      items: {
        type: 'object',
        properties: { at: { type: 'string' }, arrivals: { type: 'integer' }, admitted: { type: 'integer' }, line: { type: ['integer', 'null'] } },
      },
    },
  },
} as const;

/**
 * `GET /admin/report`: a room's report, during an event and after it, read from the store so that
 * it is the line's whichever instance answers. JSON (the figures and a minute-by-minute timeline)
 * or `format=csv` (one row a place, in arrival order, without uuid, session, user or address).
 */
export async function reportRoutes(app: SchemaTypedApp, options: ReportRouteOptions): Promise<void> {
  const { rooms, clock } = options;
  app.get(
    '/report',
    {
      schema: {
        summary: "A room's report: arrivals, the line, admissions, waits and the estimate's accuracy",
        description:
          'Kept in the store for REPORT_RETENTION_HOURS after its last change. With `event`, the places that arrived from its pre-queue (or opening) to its end. `format=csv`: one row a place.',
        tags: ['admin'],
        security: ADMIN_SECURITY,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            room: failsWith({ type: 'string', description: 'The room; the first when absent.' }, 'bad_room', '"room" must be a room\'s name.'),
            event: failsWith({ type: 'string', maxLength: 64, description: "An event's id." }, 'bad_event', '"event" must be an event\'s id.'),
            format: failsWith({ type: 'string', enum: ['json', 'csv'], default: 'json' }, 'bad_format', '"format" must be json or csv.'),
          },
        },
        response: { 200: REPORT_SCHEMA, ...errorResponses(400, 401, 404) },
      },
    },
    async (request, reply) => {
      const { event: eventId, format } = request.query;
      const room = rooms.named(request.query.room);
      const now = clock.now();
      const retentionMs = room.report.retentionMs;
      // What the store still keeps: a bucket lasts the retention after its last write (a release
      // may come long after the arrivals it holds), read back a day further.
      let from = now - retentionMs - READ_BACK_MS;
      let to = now;
      let event: { id: string; name: string } | null = null;
      if (eventId !== undefined) {
        const found = (await room.store.events()).events.find((each) => each.id === eventId);
        if (!found) throw new HttpError(404, 'unknown_event', 'This room has no event with this id.');
        from = Date.parse(found.prequeueStartTime ?? found.eventStartTime);
        to = Math.min(now, Date.parse(found.eventEndTime));
        event = { id: found.id, name: found.name };
      }
      const figures = await readReport(room.store, from, Math.max(from, to), now);
      reply.header('cache-control', 'no-store');
      if (format === 'csv') {
        const name = `report-${room.name}${event ? `-${event.id}` : ''}.csv`;
        return reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${name}"`).send(reportCsv(figures.places));
      }
      return answer(room.name, event, from, to, now, retentionMs, figures);
    },
  );
}

function answer(room: string, event: { id: string; name: string } | null, from: number, to: number, now: number, retentionMs: number, figures: ReportFigures) {
  const { places: _places, timeline, ...rest } = figures;
  return {
    room,
    event,
    from: new Date(from).toISOString(),
    to: new Date(to).toISOString(),
    generatedAt: new Date(now).toISOString(),
    retentionHours: Math.round(retentionMs / 3_600_000),
    ...rest,
    timeline: timeline.map((minute) => ({ ...minute, at: new Date(minute.at).toISOString() })),
  };
}
