import type { DropEvent } from '../../server/domain/events/event';
import { drawKey, drawOrder } from '../../server/domain/events/draw';
import type { HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';

/**
 * A draw key that puts `uuid` at `rank`: 64 hex digits whose first 32 bits are the rank, as the
 * store sorts keys. Real keys (HMACs) spread as evenly; a store may rely on it (a handful of keys at
 * most share their first 32 bits).
 */
export const rankKey = (rank: number) => rank.toString(16).padStart(8, '0').padEnd(64, '0');

/**
 * Puts event `id`'s entrants in `order` through the store's stepped draw: each keyed by its rank,
 * then placed `step` at a time. True when these steps did it, false when it was done already.
 */
export async function drawInOrder(store: QueueStore, id: string, order: readonly string[], step = 2): Promise<boolean> {
  const { openTicket, drawn } = await store.eventState(id);
  if (drawn) return false;
  await store.addDrawKeys(
    id,
    order.map((uuid, rank) => ({ uuid, key: rankKey(rank) })),
    openTicket ?? 0,
  );
  for (;;) {
    const done = await store.placeDrawn(id, step);
    if (!done) throw new Error(`The draw of ${id} was refused: not every entrant is keyed.`);
    if (done.done) return true;
  }
}

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
      const [during] = await holdAll(['during']);
      const again = await store.startPrequeue(drop.id, 'cd'.repeat(32));
      expect(first).toEqual({ seed, afterTicket: 2 });
      expect(again).toEqual(first);
      expect(await store.startPrequeue('no-draw', null)).toEqual({ afterTicket: during.ticket });
    });

    it('should open once, freezing the entrants: those who came during the pre-queue, not those before or after', async () => {
      const [before] = await holdAll(['before']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(['e1', 'e2', 'e3']);
      const opened = await store.openEvent(drop.id);
      const [later] = await holdAll(['later']);
      expect(await store.openEvent(drop.id)).toEqual(opened);
      expect(opened).toEqual({ seed, afterTicket: 1, openTicket: entrants[2].ticket });
      expect(await store.entrantsOf(drop.id)).toEqual(entrants.map((entry) => entry.uuid));
      expect(await store.countAfter(1)).toBe(4);
      expect(before.ticket).toBe(1);
      expect(entrants[0].ticket).toBeGreaterThan(1);
      expect(later.ticket).toBeGreaterThan(entrants[2].ticket);
      expect((await store.stats(t0)).arrived).toBe(5);
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

      expect(await drawInOrder(store, drop.id, order)).toBe(true);
      expect(await drawInOrder(store, drop.id, [...order].reverse())).toBe(false);

      expect(await positionsOf([ahead.uuid, ...order, later.uuid])).toEqual([1, 2, 3, 4, 5, 6]);
      const tickets = await Promise.all([ahead, ...order.map((uuid) => ({ uuid })), later].map(async ({ uuid }) => (await store.get(uuid))?.ticket ?? 0));
      expect(tickets).toEqual([...tickets].sort((a, b) => a - b));
      expect(new Set(tickets).size).toBe(6);
      expect(await store.entrantsOf(drop.id)).toEqual(order);
      expect((await store.eventState(drop.id)).drawn).toBe(true);
      const released = await store.release(3, t0 + 1, policy);
      expect(released.released.map((entry) => entry.uuid)).toEqual([ahead.uuid, order[0], order[1]]);
    });

    it('should draw only the entrants still waiting when the draw reaches them', async () => {
      await store.startPrequeue(drop.id, seed);
      const [a, b, c] = await holdAll(['a', 'b', 'c']);
      await store.openEvent(drop.id);
      await store.release(1, t0, policy);
      expect(await drawInOrder(store, drop.id, [c.uuid, b.uuid, a.uuid])).toBe(true);
      expect(await positionsOf([c.uuid, b.uuid, a.uuid])).toEqual([1, 2, 0]);
      expect(await store.entrantsOf(drop.id)).toEqual([c.uuid, b.uuid]);
    });

    it('should key the entrants a page at a time, to the opening once open', async () => {
      await holdAll(['before']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(['e1', 'e2', 'e3']);
      const first = await store.unkeyedEntrants(drop.id, 2);
      expect(first).toEqual({ uuids: [entrants[0].uuid, entrants[1].uuid], mark: entrants[1].ticket });
      await store.addDrawKeys(
        drop.id,
        first.uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
        first.mark,
      );
      expect(await store.unkeyedEntrants(drop.id, 2)).toEqual({ uuids: [entrants[2].uuid], mark: entrants[2].ticket });
      await store.openEvent(drop.id);
      await holdAll(['later']);
      expect(await store.placeDrawn(drop.id, 10)).toBeUndefined();
      const last = await store.unkeyedEntrants(drop.id, 2);
      expect(last).toEqual({ uuids: [entrants[2].uuid], mark: entrants[2].ticket });
      await store.addDrawKeys(
        drop.id,
        last.uuids.map((uuid) => ({ uuid, key: drawKey(seed, uuid) })),
        last.mark,
      );
      expect(await store.unkeyedEntrants(drop.id, 2)).toEqual({ uuids: [], mark: entrants[2].ticket });
      expect(await store.placeDrawn(drop.id, 10)).toEqual({ placed: 3, done: true });
      const order = drawOrder(
        seed,
        entrants.map((entry) => entry.uuid),
      ).map((drawn) => drawn.uuid);
      expect(await store.entrantsOf(drop.id)).toEqual(order);
      expect(await positionsOf(order)).toEqual([2, 3, 4]);
    });

    it('should release, while the draw is placed, the drawn entrants in order and never one not placed yet', async () => {
      const ahead = await holdAll(['ahead-1', 'ahead-2']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(Array.from({ length: 9 }, (_, i) => `e${i}`));
      await store.openEvent(drop.id);
      const [later] = await holdAll(['later']);
      // An order that puts the last arrivals first: each step swaps places from the back.
      const order = [...entrants].reverse().map((entry) => entry.uuid);
      await store.addDrawKeys(
        drop.id,
        order.map((uuid, rank) => ({ uuid, key: rankKey(rank) })),
        entrants[8].ticket,
      );
      const drawing = { ...policy, perMinute: 6000, drawing: drop.id };
      const released: string[] = [];
      const take = async (count: number) => released.push(...(await store.release(count, t0, drawing)).released.map((entry) => entry.uuid));
      await take(5);
      expect(released).toEqual(ahead.map((entry) => entry.uuid));
      for (let step = 0; step < 4; step++) {
        await store.placeDrawn(drop.id, 2);
        await take(1);
        released.push(...(await store.releaseDue(t0 + (step + 1) * 1000, drawing)).released.map((entry) => entry.uuid));
      }
      expect(released).toEqual([...ahead.map((entry) => entry.uuid), ...order.slice(0, 8)]);
      expect(await store.placeDrawn(drop.id, 2)).toEqual({ placed: 1, done: true });
      await take(5);
      expect(released).toEqual([...ahead.map((entry) => entry.uuid), ...order, later.uuid]);
      expect(await store.entrantsOf(drop.id)).toEqual(order);
    });

    it('should keep, after every step, everyone in line once, the drawn so far first in draw order', async () => {
      const [ahead] = await holdAll(['ahead']);
      await store.startPrequeue(drop.id, seed);
      const entrants = await holdAll(Array.from({ length: 40 }, (_, i) => `e${i}`));
      await store.openEvent(drop.id);
      const [later] = await holdAll(['later']);
      // Keyed in an order that takes places from anywhere in the pre-queue.
      const order = drawOrder(
        seed,
        entrants.map((entry) => entry.uuid),
      ).map((drawn) => drawn.uuid);
      await store.addDrawKeys(
        drop.id,
        order.map((uuid, rank) => ({ uuid, key: rankKey(rank) })),
        (await store.eventState(drop.id)).openTicket as number,
      );
      const everyone = [ahead, ...entrants, later].map((entry) => entry.uuid);
      for (let placed = 0; placed < 40;) {
        const step = await store.placeDrawn(drop.id, 7);
        placed += step?.placed ?? 0;
        const places = await Promise.all(everyone.map((uuid) => store.position(uuid, t0)));
        expect(places.map((place) => place?.position).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(everyone.map((_, i) => i + 1));
        expect(new Set(places.map((place) => place?.ticket)).size).toBe(everyone.length);
        expect(await positionsOf(order.slice(0, placed))).toEqual(order.slice(0, placed).map((_, i) => i + 2));
        expect(await positionsOf([ahead.uuid, later.uuid])).toEqual([1, everyone.length]);
      }
      expect(await positionsOf(order)).toEqual(order.map((_, i) => i + 2));
    });

    it('should release nobody of the pre-queue before its first step, those ahead of it at once', async () => {
      const [ahead] = await holdAll(['ahead']);
      await store.startPrequeue(drop.id, seed);
      await holdAll(['e1', 'e2']);
      await store.openEvent(drop.id);
      const { released } = await store.release(3, t0, { ...policy, drawing: drop.id });
      expect(released.map((entry) => entry.uuid)).toEqual([ahead.uuid]);
      expect((await store.release(3, t0, { ...policy, random: true, drawing: drop.id })).released).toEqual([]);
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
