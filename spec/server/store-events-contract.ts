import type { DropEvent } from '../../server/domain/events/event';
import type { HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';

/**
 * The events part of the store contract (`event-store.ts`), run against each implementation:
 * the events kept with a version, and each transition of a pre-queue and its draw taking effect
 * once, whoever calls it first.
 */
export function describeEventStore(name: string, createStore: () => Promise<QueueStore>): void {
  const get: HeldRequest = { method: 'GET', uri: '/checkout' };
  const policy: ReleasePolicy = { activeLimit: 1000, sessionMs: 300_000, perMinute: 6, abandonMs: 180_000 };
  const t0 = 1_700_000_000_000;
  const seed = 'ab'.repeat(32);
  const drop: DropEvent = {
    id: 'spring-drop',
    name: 'Spring drop',
    prequeueStartTime: '2030-05-01T09:30:00.000Z',
    eventStartTime: '2030-05-01T10:00:00.000Z',
    eventEndTime: '2030-05-01T12:00:00.000Z',
    shuffleAtEventStart: true,
    queueingMethod: 'fifo',
    activeLimit: null,
    releasePerMinute: null,
    botChallenge: 'pow',
  };

  describe(`${name} store: events and draws`, () => {
    let store: QueueStore;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
    });

    const holdAll = async (sessions: string[], now = t0) => {
      const entries = [];
      for (const session of sessions) entries.push(await store.hold(session, 0, get, now));
      return entries;
    };
    const positionsOf = (uuids: string[]) => Promise.all(uuids.map(async (uuid) => (await store.position(uuid, t0))?.position));

    it('should keep the events with a version, and refuse a save made against an older version', async () => {
      expect(await store.events()).toEqual({ version: 0, events: [] });
      expect(await store.saveEvents(0, [drop])).toBe(true);
      expect(await store.events()).toEqual({ version: 1, events: [drop] });
      expect(await store.saveEvents(0, [])).toBe(false);
      expect(await store.saveEvents(1, [])).toBe(true);
      expect(await store.events()).toEqual({ version: 2, events: [] });
    });

    it('should start a pre-queue once: the first seed and the last ticket given before it are kept', async () => {
      await holdAll(['before-1', 'before-2']);
      expect(await store.eventState(drop.id)).toEqual({});
      const first = await store.startPrequeue(drop.id, seed);
      await holdAll(['during']);
      const again = await store.startPrequeue(drop.id, 'cd'.repeat(32));
      expect(first).toEqual({ seed, afterTicket: 2 });
      expect(again).toEqual(first);
      expect(await store.startPrequeue('no-draw', null)).toEqual({ afterTicket: 3 });
    });

    it('should open once, freezing the entrants: those who came during the pre-queue, not those before or after', async () => {
      const [before] = await holdAll(['before']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(['e1', 'e2', 'e3']);
      const opened = await store.openEvent(drop.id);
      const [later] = await holdAll(['later']);
      expect(await store.openEvent(drop.id)).toEqual(opened);
      expect(opened).toEqual({ seed, afterTicket: 1, openTicket: 4 });
      expect(await store.entrantsOf(drop.id)).toEqual(entrants.map((entry) => entry.uuid));
      expect(await store.countAfter(1)).toBe(4);
      expect(before.ticket).toBe(1);
      expect(later.ticket).toBe(5);
    });

    it('should count as entrants only those still in line', async () => {
      await store.startPrequeue(drop.id, seed);
      const [gone, stays] = await holdAll(['gone', 'stays']);
      await store.touch(stays.uuid, t0 + policy.abandonMs);
      expect(await store.dropAbandoned(t0 + policy.abandonMs + 1, policy.abandonMs)).toBe(1);
      await store.openEvent(drop.id);
      expect(await store.entrantsOf(drop.id)).toEqual([stays.uuid]);
      expect(gone.uuid).not.toBe(stays.uuid);
    });

    it('should open an event without a pre-queue with no entrants', async () => {
      await holdAll(['a', 'b']);
      expect(await store.openEvent('plain')).toEqual({ afterTicket: 2, openTicket: 2 });
      expect(await store.entrantsOf('plain')).toEqual([]);
    });

    it('should apply a draw once: the entrants in its order, behind those ahead, ahead of later arrivals', async () => {
      const [ahead] = await holdAll(['ahead']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(['e1', 'e2', 'e3', 'e4']);
      await store.openEvent(drop.id);
      const [later] = await holdAll(['later']);
      const order = [entrants[2], entrants[0], entrants[3], entrants[1]].map((entry) => entry.uuid);

      expect(await store.applyDraw(drop.id, order)).toBe(true);
      expect(await store.applyDraw(drop.id, [...order].reverse())).toBe(false);

      expect(await positionsOf([ahead.uuid, ...order, later.uuid])).toEqual([1, 2, 3, 4, 5, 6]);
      expect(await Promise.all(order.map(async (uuid) => (await store.get(uuid))?.ticket))).toEqual([2, 3, 4, 5]);
      expect(await store.entrantsOf(drop.id)).toEqual(order);
      expect((await store.eventState(drop.id)).drawn).toBe(true);
      const released = await store.release(3, t0 + 1, policy);
      expect(released.released.map((entry) => entry.uuid)).toEqual([ahead.uuid, order[0], order[1]]);
    });

    it('should keep the whole draw, and reorder only the entrants still waiting', async () => {
      await store.startPrequeue(drop.id, seed);
      const [a, b, c] = await holdAll(['a', 'b', 'c']);
      await store.openEvent(drop.id);
      await store.release(1, t0, policy);
      expect(await store.applyDraw(drop.id, [c.uuid, b.uuid, a.uuid])).toBe(true);
      expect(await positionsOf([c.uuid, b.uuid, a.uuid])).toEqual([1, 2, 0]);
      expect(await store.entrantsOf(drop.id)).toEqual([c.uuid, b.uuid, a.uuid]);
    });

    it('should let one caller claim the announcement of an opening', async () => {
      const claims = await Promise.all([store.claimAnnouncement(drop.id), store.claimAnnouncement(drop.id)]);
      expect(claims.sort()).toEqual([false, true]);
      expect((await store.eventState(drop.id)).announced).toBe(true);
    });

    it("should forget an event's state", async () => {
      await store.startPrequeue(drop.id, seed);
      await store.forgetEvent(drop.id);
      expect(await store.eventState(drop.id)).toEqual({});
      expect(await store.entrantsOf(drop.id)).toEqual([]);
    });

    describe('random releases', () => {
      it('should draw among everyone waiting, not take the head, and leave served alone', async () => {
        const back: number[] = [];
        for (let run = 0; run < 4; run++) {
          const line = await holdAll(Array.from({ length: 40 }, (_, i) => `r${run}-${i}`));
          const before = (await store.recentReleases()).served;
          const { released, served } = await store.release(20, t0, { ...policy, random: true });
          expect(released).toHaveLength(20);
          expect(served).toBe(before);
          back.push(released.filter((entry) => line.findIndex((held) => held.uuid === entry.uuid) >= 20).length);
          // Those left move up to the head, in their order.
          const left = line.filter((held) => !released.some((entry) => entry.uuid === held.uuid));
          expect(await positionsOf(left.map((held) => held.uuid))).toEqual(left.map((_, i) => i + 1));
          await store.release(20, t0, policy);
        }
        // The number drawn from the back half follows a hypergeometric law of mean 10 and spread 1.6.
        for (const count of back) expect(count).toBeGreaterThanOrEqual(3);
        for (const count of back) expect(count).toBeLessThanOrEqual(17);
      });

      it("should draw in the release loop's step too", async () => {
        const line = await holdAll(Array.from({ length: 30 }, (_, i) => `s${i}`));
        const drawn = new Set<string>();
        for (let step = 0; step < 10; step++) {
          const { released } = await store.releaseDue(t0 + step * 10_000, { ...policy, perMinute: 6, random: true });
          released.forEach((entry) => drawn.add(entry.uuid));
        }
        expect(drawn.size).toBe(10);
        const heads = line.slice(0, 10).map((entry) => entry.uuid);
        expect([...drawn].sort()).not.toEqual([...heads].sort());
      });
    });
  });
}
