import type { RoomSample, Sample } from '../../../server/domain/console/samples';
import { addSample, chartSeries, instanceFigures, roomFigures } from '../../../src/admin/live';
import { consoleTexts, FRENCH, ENGLISH } from '../../../src/admin/texts';

const T0 = 1_800_000_000_000;
const room = (fields: Partial<RoomSample> = {}): RoomSample => ({
  room: 'default',
  waiting: 10,
  active: 2,
  released: 0,
  arrived: 10,
  paused: false,
  activeLimit: 2,
  perMinute: 6,
  operatorSet: { activeLimit: false, perMinute: false },
  estimate: 2,
  ...fields,
});
const sample = (t: number, fields: Partial<RoomSample> = {}, instance = 'a', local: Partial<Sample['local']> = {}): Sample => ({
  t,
  instance,
  rooms: [room(fields)],
  local: { pageErrors: 0, originRequests: 0, originErrors: 0, originMs: 0, ...local },
});

describe("the console's live figures", () => {
  it("should add a second instance's counts for the same moment once, and keep its line", () => {
    // Instance b is of an earlier version: its samples have no count of revoked sessions.
    let points = addSample([], sample(T0, {}, 'a', { pageErrors: 1, originRequests: 10, originMs: 50, revoked: 1 }));
    points = addSample(points, sample(T0, { waiting: 9 }, 'b', { pageErrors: 2, originRequests: 30, originMs: 150 }));
    points = addSample(points, sample(T0, { waiting: 9 }, 'b', { pageErrors: 2 }));

    expect(points).toHaveLength(1);
    expect(points[0].local).toEqual({ pageErrors: 3, originRequests: 40, originErrors: 0, originMs: 200, revoked: 1 });
    expect(points[0].rooms.get('default')?.waiting).toBe(9);
    expect(instanceFigures(points, 2000)).toMatchObject({ pageErrorsPerMinute: 90, revokedPerMinute: 30, originMeanMs: 5 });
  });

  it('should keep samples in time order, an hour of them', () => {
    let points = addSample([], sample(T0 + 4000));
    points = addSample(points, sample(T0));
    points = addSample(points, sample(T0 + 2000));
    expect(points.map((point) => point.t)).toEqual([T0, T0 + 2000, T0 + 4000]);
    points = addSample(points, sample(T0 + 3_600_000 + 2000));
    expect(points.map((point) => point.t)).toEqual([T0 + 4000, T0 + 3_600_000 + 2000]);
  });

  it('should read rates over the last minute: releases, arrivals, and those who walked away', () => {
    let points = addSample([], sample(T0, { waiting: 10, released: 100, arrived: 110 }));
    points = addSample(points, sample(T0 + 30_000, { waiting: 12, released: 103, arrived: 118 }));
    // A minute later: 6 released, 10 arrived, the line grew by 1, so 3 walked away.
    points = addSample(points, sample(T0 + 60_000, { waiting: 11, released: 106, arrived: 120 }));

    expect(roomFigures(points, 'default')).toMatchObject({ releasesPerMinute: 6, arrivalsPerMinute: 10, walkAwaysPerMinute: 3 });
    expect(roomFigures(points, 'other')).toBeUndefined();
    expect(roomFigures(points.slice(0, 1), 'default')).toEqual({ now: expect.objectContaining({ waiting: 10 }) });
  });

  it('should chart waiting, active and releases a minute', () => {
    let points = addSample([], sample(T0, { released: 0 }));
    points = addSample(points, sample(T0 + 30_000, { released: 3, waiting: 7, active: 2 }));
    expect(chartSeries(points, 'default')).toEqual([
      [T0 / 1000, T0 / 1000 + 30],
      [10, 7],
      [2, 2],
      [null, 6],
    ]);
  });

  it('should speak French to a French browser, English to any other', () => {
    expect(consoleTexts('fr-CA')).toBe(FRENCH);
    expect(consoleTexts('de')).toBe(ENGLISH);
    expect(Object.keys(FRENCH).sort()).toEqual(Object.keys(ENGLISH).sort());
  });
});
