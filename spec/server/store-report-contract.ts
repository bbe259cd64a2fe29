import { readReport } from '../../server/domain/report/read';
import type { QueueStore, ReleasePolicy } from '../../server/store/types';

/**
 * The report every queue store must keep (`ReportStore`), run against each store: known arrivals,
 * releases and samples on a given clock give exact figures, whatever keeps them.
 */
export function describeReportStore(name: string, createStore: () => Promise<QueueStore>): void {
  const MINUTE = 60_000;
  // On a minute's start, so that minutes and waits are whole.
  const t0 = Date.UTC(2030, 0, 1, 9, 0, 0);
  const retention = 72 * 3_600_000;
  const policy: ReleasePolicy = { activeLimit: 100, sessionMs: 3_600_000, perMinute: 1, abandonMs: 3_600_000 };

  describe(`${name} report store`, () => {
    let store: QueueStore;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
    });

    /** Ten places arrive at t0 + i s; place i is released at t0 + (i + 1) min; place 9 is still waiting. */
    async function drop(): Promise<string[]> {
      const uuids: string[] = [];
      // Written when the store sees fit (the Redis store gathers them), and before any release is.
      const written: Promise<void>[] = [];
      for (let i = 0; i < 10; i++) {
        const entry = await store.hold(`s${i}`, 0, { method: 'GET', uri: '/' }, t0 + i * 1000);
        uuids.push(entry.uuid);
        written.push(store.reportArrival({ uuid: entry.uuid, heldAt: entry.heldAt, arrivedAt: t0 + i * 1000, lineNumber: i + 1, estimate: i + 1 }, retention));
      }
      for (let minute = 1; minute <= 9; minute++) {
        // Each minute's first sample: served so far, one release a minute; a later one raises the line's longest.
        await store.reportSample(t0 + minute * MINUTE, { served: minute - 1, rate: 1, waiting: 11 - minute }, retention);
        await store.reportSample(t0 + minute * MINUTE + 30_000, { served: minute, rate: 5, waiting: 20 - minute }, retention);
        const { released } = await store.release(1, t0 + minute * MINUTE + 500, policy);
        await store.reportReleases(released, t0 + minute * MINUTE + 500, retention);
      }
      await Promise.all(written);
      return uuids;
    }

    it('should give the exact figures of known arrivals and releases', async () => {
      const uuids = await drop();
      const first = await store.get(uuids[0]);
      await store.reportReplay(first!, t0 + MINUTE + 600, retention);
      await store.reportCount('botSolved', t0 + 2000, retention);
      await store.reportCount('botSolved', t0 + 3000, retention);
      await store.reportCount('botFailed', t0 + 4000, retention);
      await store.reportCount('revoked', t0 + 5 * MINUTE, retention);

      const report = await readReport(store, t0 - retention, t0 + 10 * MINUTE, t0 + 10 * MINUTE);

      expect(report).toMatchObject({
        arrivals: 10,
        peakLine: 19,
        admitted: 9,
        abandoned: 0,
        waiting: 1,
        revoked: 1,
        replays: 1,
        botChecks: { solved: 2, failed: 1 },
      });
      // Place i waited (i + 1) min + 0.5 s - i s: 1.01, 1.99, 2.98 … 8.86 min.
      const waits = Array.from({ length: 9 }, (_, i) => Math.round(((i + 1) * MINUTE + 500 - i * 1000) / 600) / 100);
      expect(report.waits).toEqual({ p50: waits[4], p90: waits[8], p99: waits[8] });
      expect(report.places.map((place) => place.outcome)).toEqual([
        ...Array(9)
          .fill('admitted')
          .map((o, i) => (i === 0 ? 'replayed' : o)),
        'waiting',
      ]);
      // Place 3 (line number 4, released at minute 4 and a half second): each minute's first sample had served 0, 1, 2, 3.
      expect(report.places[3].estimates).toEqual([4, 3, 2, 1]);
      // At arrival place i was told i + 1 min and waited (i + 1) min - (i - 0.5) s: off by |i - 0.5| / 60 min.
      expect(report.estimateError.atArrival).toEqual({ samples: 9, median: 0.06, p90: 0.13 });
      expect(report.timeline[0]).toEqual({ at: t0, arrivals: 10, admitted: 0, line: null });
      expect(report.timeline[1]).toEqual({ at: t0 + MINUTE, arrivals: 0, admitted: 1, line: 19 });
    });

    it('should count a place gone from the line unreleased as abandoned', async () => {
      const uuids = await drop();
      await store.dropAbandoned(t0 + 3 * 3_600_000, 60_000);
      const report = await readReport(store, t0 - retention, t0 + 3 * 3_600_000, t0 + 3 * 3_600_000);
      expect(report).toMatchObject({ arrivals: 10, admitted: 9, abandoned: 1, waiting: 0 });
      expect(report.places[9]).toMatchObject({ outcome: 'abandoned' });
      expect(uuids).toHaveLength(10);
    });

    it('should keep a place once, and its first release only', async () => {
      const entry = await store.hold('a', 0, { method: 'GET', uri: '/' }, t0);
      await store.reportArrival({ uuid: entry.uuid, heldAt: t0, arrivedAt: t0, lineNumber: 1, estimate: 3 }, retention);
      await store.reportArrival({ uuid: entry.uuid, heldAt: t0, arrivedAt: t0 + 5000, lineNumber: 7, estimate: 9 }, retention);
      await store.reportReleases([entry], t0 + MINUTE, retention);
      await store.reportReleases([entry], t0 + 2 * MINUTE, retention);
      const { rows } = await store.reportRead(t0, t0 + 2 * MINUTE, t0 + 2 * MINUTE);
      expect(rows).toEqual([{ uuid: entry.uuid, arrivedAt: t0, lineNumber: 1, estimate: 3, releasedAt: t0 + MINUTE, replayed: false }]);
    });

    it('should forget the report once its retention has passed since its last change', async () => {
      // Redis expires on its own clock, the memory store on the callers': a short retention, waited out on both.
      const now = Date.now();
      await store.reportArrival({ uuid: 'u1', heldAt: now, arrivedAt: now, lineNumber: 1, estimate: 1 }, 300);
      await store.reportCount('botSolved', now, 300);
      expect((await store.reportRead(now, now, now)).rows).toHaveLength(1);
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(await store.reportRead(now, now, now + 400)).toEqual({ rows: [], minutes: [] });
    });
  });
}
