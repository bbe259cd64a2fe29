import fc from 'fast-check';
import { PlacesPerAddressError } from '../../server/store/errors';
import { ABANDON_BATCH } from '../../server/store/memory';
import type { HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';
import { describeCodes } from './store-codes-contract';

/**
 * The behaviour every queue store must have, run against each implementation so that the
 * memory store and the Redis store stay interchangeable.
 */
export function describeQueueStore(name: string, createStore: () => Promise<QueueStore>): void {
  const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
  const post: HeldRequest = {
    method: 'POST',
    uri: '/checkout',
    body: { contentType: 'application/x-www-form-urlencoded', raw: 'item=42&qty=1' },
  };
  const policy: ReleasePolicy = { activeLimit: 2, sessionMs: 300_000, perMinute: 6, abandonMs: 180_000 };
  const t0 = 1_700_000_000_000;

  describe(`${name} queue store`, () => {
    let store: QueueStore;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
    });

    describeCodes(() => store);

    const positions = async (uuids: string[], now = t0) => Promise.all(uuids.map(async (uuid) => (await store.placeInLine(uuid, now))?.position));

    describe('admission', () => {
      it('should admit sessions while nobody waits and fewer than the active limit are active', async () => {
        expect(await store.admit('a', t0, policy)).toBe(true);
        expect(await store.admit('b', t0, policy)).toBe(true);
        expect(await store.admit('c', t0, policy)).toBe(false);
        expect(await store.admit('a', t0 + 1, policy)).toBe(true);
        expect((await store.stats(t0)).active).toBe(2);
      });

      it('should free a place when an admission ends', async () => {
        await store.admit('a', t0, policy);
        await store.admit('b', t0, policy);
        expect(await store.admit('c', t0 + policy.sessionMs, policy)).toBe(true);
      });

      it('should say until when a session is admitted, and nothing once its admission ended or was revoked', async () => {
        await store.admit('a', t0, policy);
        expect(await store.admittedUntil('a', t0 + 1)).toBe(t0 + policy.sessionMs);
        expect(await store.admittedUntil('a', t0 + policy.sessionMs)).toBeUndefined();
        expect(await store.admittedUntil('never-admitted', t0)).toBeUndefined();
        await store.admit('b', t0, policy);
        await store.revoke('b', t0 + 1);
        expect(await store.admittedUntil('b', t0 + 1)).toBeUndefined();
      });

      it("should free a session's slot at once when it is revoked, and say whether it was admitted", async () => {
        await store.admit('a', t0, policy);
        await store.admit('b', t0, policy);
        expect(await store.admit('c', t0 + 1, policy)).toBe(false);

        expect(await store.revoke('a', t0 + 2)).toBe(true);
        expect((await store.stats(t0 + 2)).active).toBe(1);
        expect(await store.admit('c', t0 + 3, policy)).toBe(true);
        expect(await store.revoke('a', t0 + 4)).toBe(false);
        expect(await store.revoke('never-admitted', t0 + 4)).toBe(false);
      });

      it("should end a released visitor's admission on revoke and keep every waiting place", async () => {
        const first = await store.hold('first', 0, get, t0);
        const second = await store.hold('second', 0, get, t0);
        const third = await store.hold('third', 0, get, t0);
        await store.release(1, t0 + 1, policy);
        expect((await store.stats(t0 + 1)).active).toBe(1);

        expect(await store.revoke('first', t0 + 2)).toBe(true);
        expect(await store.revoke('second', t0 + 2)).toBe(false);
        expect((await store.stats(t0 + 2)).active).toBe(0);
        expect(await positions([first.uuid, second.uuid, third.uuid], t0 + 2)).toEqual([0, 1, 2]);
        expect(await store.admit('first', t0 + 3, policy)).toBe(false);
      });

      it("should keep a revoked admission's slot for keepSlotMs, admitting nobody with it, then give it to the next", async () => {
        await store.admit('a', t0, policy);
        await store.admit('b', t0, policy);
        expect(await store.revoke('a', t0 + 1000, 5000)).toBe(true);
        expect(await store.admittedUntil('a', t0 + 1000)).toBeUndefined();
        expect((await store.stats(t0 + 1000)).active).toBe(2);
        expect(await store.admit('c', t0 + 5999, policy)).toBe(false);
        expect(await store.admit('c', t0 + 6000, policy)).toBe(true);
        // Nor does a release go past the limit while the slot is kept.
        await store.revoke('b', t0 + 7000, 5000);
        await store.hold('w', 0, get, t0 + 7000);
        expect((await store.releaseDue(t0 + 8000, policy)).released).toHaveLength(0);
        expect((await store.releaseDue(t0 + 12_000, policy)).released.map((entry) => entry.sessionId)).toEqual(['w']);
      });

      it('should keep a revoked slot no longer than the admission would have lasted', async () => {
        await store.admit('a', t0, policy);
        await store.revoke('a', t0 + policy.sessionMs - 10, 5000);
        expect((await store.stats(t0 + policy.sessionMs - 10)).active).toBe(1);
        expect((await store.stats(t0 + policy.sessionMs)).active).toBe(0);
      });

      it('should list each revocation in the feed after its cursor, until the revoked admission would have ended', async () => {
        const first = await store.revocations(undefined, t0);
        expect(first).toMatchObject({ revoked: [], more: false });
        await store.admit('a', t0, policy);
        await store.admit('b', t0 + 2000, policy);
        await store.revoke('a', t0 + 10, 5000);
        expect(await store.revoke('never-admitted', t0 + 10, 5000)).toBe(false);
        const second = await store.revocations(first.cursor, t0 + 20);
        expect(second.revoked).toEqual([{ session: 'a', expiresAt: Math.floor((t0 + policy.sessionMs) / 1000) }]);
        expect((await store.revocations(second.cursor, t0 + 30)).revoked).toEqual([]);
        await store.revoke('b', t0 + 40, 5000);
        expect((await store.revocations(second.cursor, t0 + 50)).revoked.map((one) => one.session)).toEqual(['b']);
        // A cursor of another store, or none, reads every revocation still in force.
        expect((await store.revocations('another-epoch.1', t0 + 50)).revoked.map((one) => one.session)).toEqual(['a', 'b']);
        expect((await store.revocations(undefined, t0 + 50)).revoked.map((one) => one.session)).toEqual(['a', 'b']);
        expect((await store.revocations('not a cursor', t0 + 50)).revoked.map((one) => one.session)).toEqual(['a', 'b']);
        // Once a's admission would have ended, its passes have expired: the feed forgets it.
        expect((await store.revocations(undefined, t0 + policy.sessionMs)).revoked.map((one) => one.session)).toEqual(['b']);
        expect((await store.revocations(undefined, t0 + 2000 + policy.sessionMs)).revoked).toEqual([]);
      });

      it("should end a revoked session's next admission at least a second after the revoked one", async () => {
        await store.admit('a', t0, policy);
        await store.revoke('a', t0, 0);
        expect(await store.admit('a', t0, policy)).toBe(true);
        const revokedEnd = Math.floor((t0 + policy.sessionMs) / 1000);
        expect(Math.floor((await store.admittedUntil('a', t0))! / 1000)).toBeGreaterThan(revokedEnd);
        // Released from the line too.
        await store.revoke('a', t0 + 1, 0);
        await store.hold('a', 0, get, t0 + 1);
        await store.release(1, t0 + 2, policy);
        expect(Math.floor((await store.admittedUntil('a', t0 + 2))! / 1000)).toBeGreaterThan(revokedEnd + 1);
      });

      it('should hold newcomers while somebody waits, even under the active limit', async () => {
        await store.hold('w', 0, get, t0);
        expect(await store.admit('a', t0, policy)).toBe(false);
      });
    });

    describe('arrive', () => {
      it('should let a session through when it can be admitted, taking no place', async () => {
        expect(await store.arrive('a', 0, get, t0, policy)).toEqual({ admitted: true });
        expect(await store.arrive('a', 0, get, t0 + 1, policy)).toEqual({ admitted: true });
        expect((await store.stats(t0)).waiting).toBe(0);
      });

      it('should hold a session the room has no room for, with its place as placeInLine reads it', async () => {
        await store.arrive('a', 0, get, t0, policy);
        await store.arrive('b', 0, get, t0, policy);
        const first = await store.arrive('c', 7, get, t0, policy);
        const second = await store.arrive('d', 0, get, t0 + 1, policy);
        if (first.admitted || second.admitted) throw new Error('held sessions were admitted');
        expect(first.place).toEqual({ entry: expect.objectContaining({ sessionId: 'c', userId: 7, state: 'waiting', request: get }), position: 1, served: 0 });
        expect(second.place.position).toBe(2);
        expect(await store.placeInLine(second.place.entry.uuid, t0 + 1)).toEqual({ ...second.place, recentReleases: [] });
        const again = await store.arrive('c', 7, get, t0 + 2, policy);
        expect(!again.admitted && again.place.entry.uuid).toBe(first.place.entry.uuid);
      });

      it('should answer the line’s served with the place, as a poll reads it', async () => {
        await Promise.all(['a', 'b', 'c'].map((session, i) => store.arrive(session, 0, get, t0 + i, undefined)));
        await store.release(2, t0 + 10, policy);
        const held = await store.arrive('d', 0, get, t0 + 11, undefined);
        if (held.admitted) throw new Error('a pre-queue admits nobody');
        expect(held.place).toMatchObject({ position: 2, served: 2 });
        expect(await store.position(held.place.entry.uuid, t0 + 12)).toEqual({ position: 2, ticket: held.place.entry.ticket, served: 2 });
        expect(await store.placeInLine(held.place.entry.uuid, t0 + 12)).toMatchObject({ position: 2, served: 2 });
      });

      it('should hold whatever the room has without limits (a pre-queue), and refuse past the places of an address', async () => {
        const held = await store.arrive('a', 0, get, t0, undefined);
        expect(held.admitted).toBe(false);
        const cap = { address: 'ip-1', placesPerAddress: 1 };
        await store.arrive('b', 0, get, t0, undefined, cap);
        await expect(store.arrive('c', 0, get, t0, undefined, cap)).rejects.toBeInstanceOf(PlacesPerAddressError);
        expect((await store.stats(t0)).waiting).toBe(2);
      });
    });

    describe('hold', () => {
      it('should give each session one place, in arrival order', async () => {
        const a = await store.hold('a', 0, get, t0);
        const b = await store.hold('b', 7, post, t0);
        const c = await store.hold('c', 0, get, t0);
        expect(a.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
        expect(new Set([a.uuid, b.uuid, c.uuid]).size).toBe(3);
        expect(await positions([a.uuid, b.uuid, c.uuid])).toEqual([1, 2, 3]);
        expect(b).toMatchObject({ sessionId: 'b', userId: 7, request: post, state: 'waiting' });
      });

      it('should keep the place and replace the held request when the session is held again', async () => {
        const first = await store.hold('a', 0, get, t0);
        await store.hold('b', 0, get, t0);
        const again = await store.hold('a', 5, post, t0 + 1000);
        expect(again.uuid).toBe(first.uuid);
        expect(again.ticket).toBe(first.ticket);
        expect(again).toMatchObject({ request: post, userId: 5, lastSeen: t0 + 1000 });
        expect(await positions([first.uuid])).toEqual([1]);
        expect((await store.stats(t0)).waiting).toBe(2);
      });

      it('should keep the held request of a place the session has when asked to, and hold it in a new place', async () => {
        const first = await store.hold('a', 0, post, t0);
        const again = await store.hold('a', 0, get, t0 + 1000, { keepRequest: true });
        const fresh = await store.hold('b', 0, get, t0, { keepRequest: true });
        expect(again).toMatchObject({ uuid: first.uuid, ticket: first.ticket, request: post, lastSeen: t0 + 1000 });
        expect((await store.get(first.uuid))?.request).toEqual(post);
        expect(fresh).toMatchObject({ sessionId: 'b', request: get, state: 'waiting' });
      });

      it('should give a new place once the released session’s admission has ended', async () => {
        const first = await store.hold('a', 0, get, t0);
        await store.release(1, t0, policy);
        await store.releaseDue(t0 + policy.sessionMs, policy);
        const second = await store.hold('a', 0, get, t0 + policy.sessionMs);
        expect(second.uuid).not.toBe(first.uuid);
        expect(await store.get(first.uuid)).toBeUndefined();
      });

      it('should keep the held request exactly as received', async () => {
        const requests: HeldRequest[] = [
          { method: 'DELETE', uri: '/checkout/42?reason=%E2%9C%93&empty=' },
          { method: 'POST', uri: '/checkout', body: { contentType: 'text/plain', raw: '' } },
          {
            method: 'PATCH',
            uri: `/checkout?${'tag=a&'.repeat(100)}end=1`,
            body: { contentType: 'application/json; charset=utf-8', raw: JSON.stringify({ note: 'ünïcødé ✓\n"quoted"', list: [1, 2] }) },
          },
        ];
        const held = await Promise.all(requests.map((request, i) => store.hold(`r${i}`, 0, request, t0)));
        expect(held.map((e) => e.request)).toEqual(requests);
        expect(await Promise.all(held.map(async (e) => (await store.get(e.uuid))?.request))).toEqual(requests);
        await store.release(3, t0, policy);
        expect(await Promise.all(held.map((e, i) => store.takeHeld(e.uuid, `r${i}`)))).toEqual(requests);
      });

      it('should give distinct tickets to concurrent holds', async () => {
        const entries = await Promise.all(Array.from({ length: 50 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        expect(new Set(entries.map((e) => e.ticket)).size).toBe(50);
        const found = await positions(entries.map((e) => e.uuid));
        expect([...found].sort((x, y) => x! - y!)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
      });
    });

    describe('placeInLine and touch', () => {
      it('should answer undefined for an unknown uuid', async () => {
        expect(await store.placeInLine('00000000-0000-4000-8000-000000000000', t0)).toBeUndefined();
        expect(await store.touch('00000000-0000-4000-8000-000000000000', t0)).toBe(false);
      });

      it('should mark the visitor as seen', async () => {
        const a = await store.hold('a', 0, get, t0);
        await store.placeInLine(a.uuid, t0 + 5000);
        expect((await store.get(a.uuid))?.lastSeen).toBe(t0 + 5000);
        expect(await store.touch(a.uuid, t0 + 9000)).toBe(true);
        expect((await store.get(a.uuid))?.lastSeen).toBe(t0 + 9000);
      });

      it('should report position 0 and the release time once released', async () => {
        const a = await store.hold('a', 0, get, t0);
        await store.release(1, t0 + 42, policy);
        expect(await store.placeInLine(a.uuid, t0 + 50)).toMatchObject({
          position: 0,
          entry: { state: 'released', releasedAt: t0 + 42 },
          recentReleases: [t0 + 42],
        });
      });
    });

    describe('position', () => {
      it('should answer undefined for an unknown uuid', async () => {
        expect(await store.position('00000000-0000-4000-8000-000000000000', t0)).toBeUndefined();
      });

      it('should give the position and served as placeInLine counts them, and mark the visitor as seen', async () => {
        const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        await store.release(1, t0 + 10, policy);
        expect(await store.position(c.uuid, t0 + 5000)).toEqual({ position: 2, ticket: c.ticket, served: 1 });
        expect((await store.get(c.uuid))?.lastSeen).toBe(t0 + 5000);
        const place = await store.placeInLine(b.uuid, t0 + 5000);
        expect(await store.position(b.uuid, t0 + 5000)).toEqual({ position: place?.position, ticket: b.ticket, served: 1 });
        expect(await store.position(a.uuid, t0 + 6000)).toEqual({ position: 0, ticket: a.ticket, served: 1 });
      });

      it('should count in served the silent visitors dropped at the head', async () => {
        const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((s) => store.hold(s, 0, get, t0)));
        await store.touch(b.uuid, t0 + policy.abandonMs);
        await store.touch(c.uuid, t0 + policy.abandonMs);
        await store.release(1, t0 + policy.abandonMs + 1, policy);
        expect(await store.get(a.uuid)).toBeUndefined();
        expect(await store.position(c.uuid, t0 + policy.abandonMs + 2)).toEqual({ position: 1, ticket: c.ticket, served: 2 });
      });
    });

    describe('recent releases', () => {
      it('should give the release times placeInLine gives, with served read in the same step', async () => {
        const held = await Promise.all(['a', 'b', 'c'].map((s) => store.hold(s, 0, get, t0)));
        expect(await store.recentReleases()).toEqual({ served: 0, times: [] });
        await store.release(2, t0 + 1000, policy);
        await store.release(1, t0 + 2000, policy);
        const place = await store.placeInLine(held[2].uuid, t0 + 3000);
        expect(await store.recentReleases()).toEqual({ served: 3, times: place?.recentReleases });
        expect(place?.recentReleases).toEqual([t0 + 2000, t0 + 1000, t0 + 1000]);
      });

      it('should change the times only when served grows', async () => {
        const held = await Promise.all(['a', 'b'].map((s) => store.hold(s, 0, get, t0)));
        const before = await store.recentReleases();
        await store.hold('c', 0, get, t0 + 1);
        await store.touch(held[1].uuid, t0 + 2);
        await store.releaseDue(t0 + 3, { ...policy, perMinute: 0 });
        expect(await store.recentReleases()).toEqual(before);
        await store.releaseDue(t0 + 4, policy);
        const after = await store.recentReleases();
        expect(after.served).toBeGreaterThan(before.served);
        expect(after.times).toEqual([t0 + 4]);
      });

      it('should list the latest release times, newest first, at most 50', async () => {
        const held = await Promise.all(Array.from({ length: 60 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        for (let i = 0; i < 60; i++) await store.release(1, t0 + i * 1000, policy);
        const place = await store.placeInLine(held[59].uuid, t0 + 60_000);
        expect(place?.recentReleases).toEqual(Array.from({ length: 50 }, (_, i) => t0 + (59 - i) * 1000));
        expect((await store.recentReleases()).times).toEqual(place?.recentReleases);
      });
    });

    describe("the operator's limits", () => {
      it('should have none until set, then change field by field, null going back to none', async () => {
        expect(await store.limits()).toEqual({});
        expect(await store.setLimits({ activeLimit: 5, perMinute: 0 })).toEqual({ activeLimit: 5, perMinute: 0 });
        expect(await store.setLimits({ perMinute: 12 })).toEqual({ activeLimit: 5, perMinute: 12 });
        expect(await store.setLimits({ activeLimit: null })).toEqual({ perMinute: 12 });
        expect(await store.limits()).toEqual({ perMinute: 12 });
      });
    });

    describe('arrivals', () => {
      it('should count every place taken, and not a held request that replaces a waiting one', async () => {
        await store.hold('a', 0, get, t0);
        await store.hold('a', 0, post, t0 + 1);
        await store.hold('b', 0, get, t0 + 2);
        await store.release(1, t0 + 3, policy);
        await store.dropAbandoned(t0 + 3 + policy.abandonMs + 10, policy.abandonMs);
        // a released, b walked away: 2 arrived, 1 released, none waiting, so 1 left.
        expect(await store.stats(t0 + 4)).toMatchObject({ arrived: 2, released: 1, waiting: 0 });
      });
    });

    describe('release', () => {
      it('should release the head of the line first and move the others up', async () => {
        const [a, b, c] = await Promise.all(['a', 'b', 'c'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const { released } = await store.release(2, t0 + 10, policy);
        expect(released.map((e) => e.uuid)).toEqual([a.uuid, b.uuid]);
        expect(await positions([a.uuid, b.uuid, c.uuid], t0 + 10)).toEqual([0, 0, 1]);
        expect(await store.stats(t0 + 10)).toEqual({ waiting: 1, pending: 0, active: 2, released: 2, paused: false, arrived: 3 });
      });

      it('should admit the released sessions', async () => {
        await store.hold('a', 0, get, t0);
        await store.release(1, t0, policy);
        expect(await store.admit('a', t0 + 1, policy)).toBe(true);
      });

      it('should skip and drop visitors silent for longer than the abandon time', async () => {
        const silent = await store.hold('silent', 0, get, t0);
        const present = await store.hold('present', 0, get, t0);
        const later = t0 + policy.abandonMs + 1;
        await store.touch(present.uuid, later);
        const { released } = await store.release(1, later, policy);
        expect(released.map((e) => e.uuid)).toEqual([present.uuid]);
        expect(await store.get(silent.uuid)).toBeUndefined();
        expect((await store.stats(later)).waiting).toBe(0);
      });

      it('should release nobody twice when released from several places at once', async () => {
        const held = await Promise.all(Array.from({ length: 30 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        const batches = (await Promise.all(Array.from({ length: 6 }, () => store.release(7, t0, policy)))).map((batch) => batch.released);
        const released = batches.flat().map((e) => e.uuid);
        expect(new Set(released).size).toBe(released.length);
        expect([...released].sort()).toEqual(held.map((e) => e.uuid).sort());
        const order = batches.flat().map((e) => e.ticket);
        for (const batch of batches) {
          const tickets = batch.map((e) => e.ticket);
          expect(tickets).toEqual([...tickets].sort((x, y) => x - y));
        }
        expect(order.length).toBe(30);
      });

      it('should answer served with every release: the places that have left the head of the line so far', async () => {
        const [silent, a, b] = await Promise.all(['silent', 'a', 'b'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const later = t0 + policy.abandonMs + 10;
        await Promise.all([a, b].map((e) => store.touch(e.uuid, later)));
        // The silent one leaves the head too, dropped: two places have gone for one release.
        expect(await store.release(1, later, policy)).toEqual({ released: [expect.objectContaining({ uuid: a.uuid })], served: 2, moved: true });
        expect(await store.get(silent.uuid)).toBeUndefined();
        expect(await store.releaseDue(later, { ...policy, perMinute: 0 })).toEqual({ released: [], served: 2, moved: false });
        expect(await store.release(5, later, policy)).toEqual({ released: [expect.objectContaining({ uuid: b.uuid })], served: 3, moved: true });
        expect(await store.release(1, later, policy)).toEqual({ released: [], served: 3, moved: false });
        expect((await store.releaseDue(later + 60_000, { ...policy, activeLimit: 10 })).served).toBe(3);
      });
    });

    describe('abandonment', () => {
      const abandonMs = policy.abandonMs;

      it('should drop a visitor who walked away from the middle of the line, and move those behind up', async () => {
        const [a, gone, c, d] = await Promise.all(['a', 'gone', 'c', 'd'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const later = t0 + abandonMs + 10;
        await Promise.all([a, c, d].map((e) => store.touch(e.uuid, t0 + 5000)));
        expect(await positions([a.uuid, c.uuid, d.uuid], t0 + 5000)).toEqual([1, 3, 4]);

        expect(await store.dropAbandoned(later, abandonMs)).toBe(1);

        expect(await store.get(gone.uuid)).toBeUndefined();
        expect(await store.position(gone.uuid, later)).toBeUndefined();
        expect(await store.position(c.uuid, later)).toEqual({ position: 2, ticket: c.ticket, served: 0 });
        expect(await positions([a.uuid, c.uuid, d.uuid], later)).toEqual([1, 2, 3]);
        expect((await store.stats(later)).waiting).toBe(3);
        // Nobody left the head: served and the release times stay as they were.
        expect(await store.recentReleases()).toEqual({ served: 0, times: [] });
        // The one who walked away starts again at the end.
        const back = await store.hold('gone', 0, get, later);
        expect(back.uuid).not.toBe(gone.uuid);
        expect(await positions([back.uuid], later)).toEqual([4]);
      });

      it('should keep every visitor who showed up within the abandon time, whichever way', async () => {
        const [held, touched, polled, asked] = await Promise.all(['held', 'touched', 'polled', 'asked'].map((s) => store.hold(s, 0, get, t0)));
        const shown = t0 + 60_000;
        await store.hold('held', 0, post, shown);
        await store.touch(touched.uuid, shown);
        await store.position(polled.uuid, shown);
        await store.placeInLine(asked.uuid, shown);

        expect(await store.dropAbandoned(t0 + abandonMs + 1, abandonMs)).toBe(0);
        expect(await store.dropAbandoned(shown + abandonMs, abandonMs)).toBe(0);
        expect(await store.dropAbandoned(shown + abandonMs + 1, abandonMs)).toBe(4);
        expect(await Promise.all([held, touched, polled, asked].map((e) => store.get(e.uuid)))).toEqual([undefined, undefined, undefined, undefined]);
        expect((await store.stats(shown + abandonMs + 1)).waiting).toBe(0);
      });

      it('should never drop a released visitor, who no longer waits and may replay their request', async () => {
        const a = await store.hold('a', 0, post, t0);
        await store.release(1, t0, policy);
        const later = t0 + abandonMs * 10;
        expect(await store.dropAbandoned(later, abandonMs)).toBe(0);
        expect(await store.takeHeld(a.uuid, 'a')).toEqual(post);
      });

      it('should drop the waiting place a new session had when another session moves to it, moving those behind up', async () => {
        expect(await store.admit('old', t0, policy)).toBe(true);
        await store.hold('first', 0, get, t0);
        const stale = await store.hold('new', 0, get, t0);
        const behind = await store.hold('behind', 0, get, t0);

        await store.moveSession('old', 'new', 7);

        expect(await store.get(stale.uuid)).toBeUndefined();
        expect(await positions([behind.uuid])).toEqual([2]);
        expect((await store.stats(t0)).waiting).toBe(2);
      });

      it(`should drop at most ${ABANDON_BATCH} a call, so that one call never holds the store for long`, async () => {
        const count = ABANDON_BATCH + 5;
        const held = await Promise.all(Array.from({ length: count }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        const stays = await store.hold('stays', 0, get, t0);
        const later = t0 + abandonMs + 1;
        await store.touch(stays.uuid, later);

        expect(await store.dropAbandoned(later, abandonMs)).toBe(ABANDON_BATCH);
        expect((await store.stats(later)).waiting).toBe(6);
        expect(await store.dropAbandoned(later, abandonMs)).toBe(5);
        expect(await store.dropAbandoned(later, abandonMs)).toBe(0);
        expect(await store.get(held[count - 1].uuid)).toBeUndefined();
        expect(await store.position(stays.uuid, later)).toEqual({ position: 1, ticket: stays.ticket, served: 0 });
      });

      it('should drop each walk-away once when every instance sweeps at once', async () => {
        await Promise.all(Array.from({ length: 30 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        const later = t0 + abandonMs + 1;
        const dropped = await Promise.all(Array.from({ length: 8 }, () => store.dropAbandoned(later, abandonMs)));
        expect(dropped.reduce((sum, n) => sum + n, 0)).toBe(30);
        expect((await store.stats(later)).waiting).toBe(0);
      });
    });

    describe('positions', () => {
      type Step =
        | { readonly kind: 'hold'; readonly who: number }
        | { readonly kind: 'seen'; readonly which: number; readonly how: 'position' | 'placeInLine' | 'touch' }
        | { readonly kind: 'wait'; readonly ms: number }
        | { readonly kind: 'sweep' }
        | { readonly kind: 'release'; readonly count: number };
      const steps = fc.array<Step>(
        fc.oneof(
          fc.record({ kind: fc.constant('hold' as const), who: fc.nat(11) }),
          fc.record({
            kind: fc.constant('seen' as const),
            which: fc.nat(),
            how: fc.constantFrom('position' as const, 'placeInLine' as const, 'touch' as const),
          }),
          fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 1500 }) }),
          fc.record({ kind: fc.constant('sweep' as const) }),
          fc.record({ kind: fc.constant('release' as const), count: fc.nat(3) }),
        ),
        { maxLength: 40 },
      );

      it('should equal each waiting visitor’s rank among those still in line, whatever holds, visits, sweeps and releases came before', async () => {
        const abandonMs = 1000;
        const quick: ReleasePolicy = { ...policy, activeLimit: 1_000, abandonMs };
        await fc.assert(
          fc.asyncProperty(steps, async (run) => {
            const line = await createStore();
            // The model: the places still waiting in arrival order, and the places that left the head.
            let waiting: { session: string; uuid: string; lastSeen: number }[] = [];
            const released = new Map<string, string>();
            let served = 0;
            let now = t0;
            try {
              for (const step of run) {
                if (step.kind === 'hold') {
                  const session = `s${step.who}`;
                  const entry = await line.hold(session, 0, get, now);
                  const place = waiting.find((one) => one.session === session);
                  if (place) {
                    expect(entry.uuid).toBe(place.uuid);
                    place.lastSeen = now;
                  } else {
                    // A released session held again leaves its old place for a new one at the end.
                    released.delete(session);
                    waiting.push({ session, uuid: entry.uuid, lastSeen: now });
                  }
                } else if (step.kind === 'seen' && waiting.length > 0) {
                  const index = step.which % waiting.length;
                  const place = waiting[index];
                  if (step.how === 'position') expect(await line.position(place.uuid, now)).toMatchObject({ position: index + 1, served });
                  if (step.how === 'placeInLine') expect((await line.placeInLine(place.uuid, now))?.position).toBe(index + 1);
                  if (step.how === 'touch') expect(await line.touch(place.uuid, now)).toBe(true);
                  place.lastSeen = now;
                } else if (step.kind === 'wait') {
                  now += step.ms;
                } else if (step.kind === 'sweep') {
                  const stay = waiting.filter((one) => now - one.lastSeen <= abandonMs);
                  expect(await line.dropAbandoned(now, abandonMs)).toBe(waiting.length - stay.length);
                  waiting = stay;
                } else if (step.kind === 'release') {
                  const out: string[] = [];
                  while (out.length < step.count && waiting.length > 0) {
                    const head = waiting.shift()!;
                    served++;
                    if (now - head.lastSeen > abandonMs) continue;
                    out.push(head.uuid);
                    released.set(head.session, head.uuid);
                  }
                  const result = await line.release(step.count, now, quick);
                  expect({ released: result.released.map((e) => e.uuid), served: result.served }).toEqual({ released: out, served });
                }
                expect((await line.stats(now)).waiting).toBe(waiting.length);
              }
              const expected = [...waiting.map((_, i) => ({ position: i + 1, served })), ...[...released].map(() => ({ position: 0, served }))];
              const uuids = [...waiting.map((one) => one.uuid), ...released.values()];
              expect(
                (await Promise.all(uuids.map((uuid) => line.position(uuid, now)))).map((place) => place && { position: place.position, served: place.served }),
              ).toEqual(expected);
            } finally {
              await line.close();
            }
          }),
          { numRuns: 50 },
        );
      });
    });

    describe('away and back', () => {
      // The defaults: 30 minutes away, and the claim window of a release while away.
      const away = { ...policy, abandonMs: 1_800_000, perMinute: 60, activeLimit: 1, claimMs: 120_000 };

      it('should keep a silent place for the away time while those ahead leave, and give it up after', async () => {
        const ahead = await Promise.all(['a', 'b'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const gone = await store.hold('gone', 0, get, t0 + 2);
        // Those ahead keep polling: one is released, the other walks away from the line meanwhile.
        const back = t0 + 2 + away.abandonMs;
        await store.touch(ahead[0].uuid, t0 + 1000);
        expect((await store.releaseDue(t0 + 1000, away)).released.map((e) => e.uuid)).toEqual([ahead[0].uuid]);
        await store.touch(ahead[1].uuid, back - 1);

        // Silent for all the away time: still in line. Coming back (a queue_info), moved up by the release.
        expect(await store.dropAbandoned(back, away.abandonMs)).toBe(0);
        expect((await store.get(gone.uuid))?.state).toBe('waiting');
        expect(await store.position(gone.uuid, back)).toEqual({ position: 2, ticket: gone.ticket, served: 1 });

        // Away again, a moment longer than the away time: given up, and those behind move up.
        const behind = await store.hold('behind', 0, get, back);
        const late = back + away.abandonMs + 1;
        await Promise.all([ahead[1], behind].map((entry) => store.touch(entry.uuid, late)));
        expect(await store.dropAbandoned(late, away.abandonMs)).toBe(1);
        expect(await store.get(gone.uuid)).toBeUndefined();
        expect(await store.position(behind.uuid, late)).toMatchObject({ position: 2 });
      });

      it('should keep a place released while away, and its held request, for the claim window, then give it up', async () => {
        const two = { ...away, activeLimit: 2, perMinute: 120 };
        const [a, b] = [await store.hold('a', 0, post, t0), await store.hold('b', 0, post, t0)];
        const released = t0 + 1000;
        expect((await store.releaseDue(released, two)).released.map((e) => e.uuid)).toEqual([a.uuid, b.uuid]);

        // Within the window: position 0, and the held request replayed, once.
        const within = released + two.claimMs - 1;
        await store.releaseDue(within, two);
        expect(await store.position(a.uuid, within)).toMatchObject({ position: 0 });
        expect(await store.takeHeld(a.uuid, 'a')).toEqual(post);
        expect(await store.takeHeld(a.uuid, 'a')).toBeUndefined();

        // Past the window, unclaimed: the place is forgotten (queue_info answers 404), its request with it.
        const past = released + two.claimMs;
        await store.releaseDue(past, two);
        expect(await store.get(b.uuid)).toBeUndefined();
        expect(await store.position(b.uuid, past)).toBeUndefined();
        expect(await store.takeHeld(b.uuid, 'b')).toBeUndefined();
      });

      it('should keep a released place for the admission when no claim window is set', async () => {
        const a = await store.hold('a', 0, get, t0);
        const { claimMs: _none, ...noClaim } = away;
        await store.releaseDue(t0 + 1000, noClaim);
        await store.releaseDue(t0 + 1000 + noClaim.sessionMs - 1, noClaim);
        expect((await store.get(a.uuid))?.state).toBe('released');
        await store.releaseDue(t0 + 1000 + noClaim.sessionMs, noClaim);
        expect(await store.get(a.uuid)).toBeUndefined();
      });
    });

    describe('releaseAgain', () => {
      it('should release no place that no failover took a release from: waiting, released or unknown', async () => {
        const [released, waiting] = await Promise.all(['a', 'b'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        expect((await store.release(1, t0 + 10, policy)).released.map((entry) => entry.uuid)).toEqual([released.uuid]);
        for (const uuid of [waiting.uuid, released.uuid, '00000000-0000-4000-8000-000000000000']) {
          expect(await store.releaseAgain(uuid, t0 + 20, policy)).toBeUndefined();
        }
        expect((await store.get(waiting.uuid))?.state).toBe('waiting');
        expect((await store.placeInLine(waiting.uuid, t0 + 30))?.position).toBe(1);
      });
    });

    describe('releaseDue', () => {
      it('should tell the line moved at most once a second, and a move owed by the next step, even one that releases nobody', async () => {
        const held = await Promise.all(['a', 'b', 'c', 'd'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const fast = { ...policy, activeLimit: 10, perMinute: 600 };
        const step = async (now: number) => {
          const { released, served, moved } = await store.releaseDue(now, fast);
          return { released: released.length, served, moved };
        };

        expect(await step(t0 + 1000)).toEqual({ released: 4, served: 4, moved: true });
        await store.hold('e', 0, get, t0 + 1100);
        // Another instance's step, half a second later: the pages heard of the line 500 ms ago.
        expect(await step(t0 + 1500)).toEqual({ released: 1, served: 5, moved: false });
        // Nobody left to release: the move owed is told now.
        expect(await step(t0 + 2000)).toEqual({ released: 0, served: 5, moved: true });
        expect(await step(t0 + 3000)).toEqual({ released: 0, served: 5, moved: false });
        void held;
      });

      it('should tell a move owed even while paused or with a rate of 0', async () => {
        await Promise.all(['a', 'b', 'c'].map((s, i) => store.hold(s, 0, get, t0 + i)));
        const fast = { ...policy, activeLimit: 10, perMinute: 60 };
        expect((await store.releaseDue(t0 + 1000, fast)).moved).toBe(true);
        expect((await store.releaseDue(t0 + 1500, { ...fast, perMinute: 120 })).moved).toBe(false);
        await store.setPaused(true);

        expect(await store.releaseDue(t0 + 2000, fast)).toEqual({ released: [], served: 2, moved: true });
        expect((await store.releaseDue(t0 + 3000, { ...fast, perMinute: 0 })).moved).toBe(false);
      });

      it('should release at most the per-minute rate', async () => {
        const held = await Promise.all(['a', 'b', 'c'].map((s) => store.hold(s, 0, get, t0)));
        const wide = { ...policy, activeLimit: 10 };
        expect((await store.releaseDue(t0, wide)).released.map((e) => e.uuid)).toEqual([held[0].uuid]);
        expect((await store.releaseDue(t0 + 5_000, wide)).released).toEqual([]);
        expect((await store.releaseDue(t0 + 10_000, wide)).released.map((e) => e.uuid)).toEqual([held[1].uuid]);
      });

      it('should keep the per-minute pace when the loop runs every second', async () => {
        const held = await Promise.all(['a', 'b', 'c'].map((s) => store.hold(s, 0, get, t0)));
        const wide = { ...policy, activeLimit: 10 };
        const releasedAt: number[] = [];
        for (let now = t0; now <= t0 + 20_000; now += 1000) {
          await Promise.all(held.map((e) => store.touch(e.uuid, now)));
          if ((await store.releaseDue(now, wide)).released.length > 0) releasedAt.push(now - t0);
        }
        expect(releasedAt).toEqual([0, 10_000, 20_000]);
      });

      it('should not release past the active limit', async () => {
        await store.admit('x', t0, policy);
        await store.admit('y', t0, policy);
        const a = await store.hold('a', 0, get, t0);
        expect((await store.releaseDue(t0, policy)).released).toEqual([]);
        await store.touch(a.uuid, t0 + policy.sessionMs);
        expect((await store.releaseDue(t0 + policy.sessionMs, policy)).released).toHaveLength(1);
      });

      it('should release the rate a minute when it is not a whole number a second, with no burst after a pause', async () => {
        await Promise.all(Array.from({ length: 200 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        const loop = async (perMinute: number, from: number, seconds: number) => {
          let released = 0;
          for (let second = 1; second <= seconds; second++) {
            released += (await store.releaseDue(from + second * 1000, { ...policy, activeLimit: 1000, perMinute, abandonMs: 3_600_000 })).released.length;
          }
          return released;
        };
        // 1.5 a second: the half must not be lost each second (it was: 60 a minute, not 90).
        expect(await loop(90, t0, 60)).toBeGreaterThanOrEqual(89);
        await store.setPaused(true);
        await loop(90, t0 + 60_000, 30);
        await store.setPaused(false);
        // After the pause: a second's worth and one more at most, not thirty seconds' worth.
        expect(
          (await store.releaseDue(t0 + 91_000, { ...policy, activeLimit: 1000, perMinute: 90, abandonMs: 3_600_000 })).released.length,
        ).toBeLessThanOrEqual(2);
      });

      it('should release nobody while paused or with a rate of 0', async () => {
        await store.hold('a', 0, get, t0);
        await store.setPaused(true);
        expect((await store.releaseDue(t0, policy)).released).toEqual([]);
        expect((await store.stats(t0)).paused).toBe(true);
        await store.setPaused(false);
        expect((await store.releaseDue(t0, { ...policy, perMinute: 0 })).released).toEqual([]);
        expect((await store.releaseDue(t0, policy)).released).toHaveLength(1);
      });

      it('should release each visitor once when every instance runs the loop at once', async () => {
        await Promise.all(Array.from({ length: 10 }, (_, i) => store.hold(`s${i}`, 0, get, t0)));
        const fast = { ...policy, activeLimit: 100, perMinute: 600 };
        const rounds = await Promise.all(Array.from({ length: 8 }, () => store.releaseDue(t0, fast)));
        const released = rounds.flatMap((round) => round.released).map((e) => e.uuid);
        expect(new Set(released).size).toBe(released.length);
        expect(released.length).toBe(10);
      });
    });

    describe('takeHeld', () => {
      it('should restore the held request once, for its own session only', async () => {
        const a = await store.hold('a', 0, post, t0);
        expect(await store.takeHeld(a.uuid, 'a')).toBeUndefined();
        await store.release(1, t0, policy);
        expect(await store.takeHeld(a.uuid, 'intruder')).toBeUndefined();
        const results = await Promise.all([store.takeHeld(a.uuid, 'a'), store.takeHeld(a.uuid, 'a')]);
        expect(results.filter(Boolean)).toEqual([post]);
        expect(await store.takeHeld(a.uuid, 'a')).toBeUndefined();
        expect((await store.get(a.uuid))?.replayed).toBe(true);
      });
    });

    describe('moveSession', () => {
      it('should move a waiting place, its held request and ticket, to the new session and user', async () => {
        await store.hold('before', 0, get, t0);
        const a = await store.hold('old', 0, post, t0 + 1);
        const behind = await store.hold('after', 0, get, t0 + 2);

        await store.moveSession('old', 'new', 7);

        expect(await store.get(a.uuid)).toEqual({ ...a, sessionId: 'new', userId: 7 });
        expect(await positions([a.uuid, behind.uuid])).toEqual([2, 3]);
        expect((await store.stats(t0)).waiting).toBe(3);
        const again = await store.hold('new', 7, get, t0 + 3);
        expect(again).toMatchObject({ uuid: a.uuid, ticket: a.ticket, sessionId: 'new' });
        await store.release(3, t0 + 4, policy);
        expect(await store.takeHeld(a.uuid, 'old')).toBeUndefined();
        expect(await store.takeHeld(a.uuid, 'new')).toEqual(get);
        expect(await store.takeHeld(a.uuid, 'new')).toBeUndefined();
      });

      it('should leave the old session nothing: a new place at the end, no admission, no held request', async () => {
        const a = await store.hold('old', 0, post, t0);
        await store.hold('other', 0, get, t0);
        await store.moveSession('old', 'new', 7);

        const planted = await store.hold('old', 0, get, t0 + 1);
        expect(planted.uuid).not.toBe(a.uuid);
        expect(await positions([a.uuid, planted.uuid])).toEqual([1, 3]);
        await store.release(3, t0 + 2, policy);
        expect(await store.takeHeld(a.uuid, 'old')).toBeUndefined();
        expect(await store.takeHeld(a.uuid, 'new')).toEqual(post);
        expect(await store.takeHeld(planted.uuid, 'new')).toBeUndefined();
        expect(await store.takeHeld(planted.uuid, 'old')).toEqual(get);
      });

      it('should move a released place with its admission, and only once replay its held request', async () => {
        const a = await store.hold('old', 0, post, t0);
        await store.hold('b', 0, get, t0);
        await store.release(1, t0 + 10, policy);
        const full = { ...policy, activeLimit: 1 };

        await store.moveSession('old', 'new', 7);

        expect(await store.placeInLine(a.uuid, t0 + 20)).toMatchObject({
          position: 0,
          entry: { state: 'released', releasedAt: t0 + 10, sessionId: 'new', userId: 7 },
        });
        expect(await store.admit('new', t0 + 20, full)).toBe(true);
        expect(await store.admit('old', t0 + 20, full)).toBe(false);
        expect(await store.takeHeld(a.uuid, 'old')).toBeUndefined();
        const results = await Promise.all([store.takeHeld(a.uuid, 'new'), store.takeHeld(a.uuid, 'new')]);
        expect(results.filter(Boolean)).toEqual([post]);
        expect((await store.stats(t0 + 20)).active).toBe(1);
      });

      it('should keep a replayed place replayed', async () => {
        const a = await store.hold('old', 0, post, t0);
        await store.release(1, t0, policy);
        expect(await store.takeHeld(a.uuid, 'old')).toEqual(post);

        await store.moveSession('old', 'new', 7);

        expect(await store.get(a.uuid)).toMatchObject({ sessionId: 'new', replayed: true });
        expect(await store.takeHeld(a.uuid, 'new')).toBeUndefined();
      });

      it('should move an admission without a place, ending when it did', async () => {
        const full = { ...policy, activeLimit: 1 };
        expect(await store.admit('old', t0, full)).toBe(true);

        await store.moveSession('old', 'new', 7);

        expect(await store.admit('old', t0 + 1, full)).toBe(false);
        expect(await store.admit('new', t0 + 1, full)).toBe(true);
        expect((await store.stats(t0 + 1)).active).toBe(1);
        expect(await store.admit('new', t0 + policy.sessionMs, { ...full, activeLimit: 0 })).toBe(false);
        expect((await store.stats(t0 + policy.sessionMs)).active).toBe(0);
      });

      it('should change nothing when the old session has neither a place nor an admission', async () => {
        const full = { ...policy, activeLimit: 1 };
        const other = await store.hold('other', 0, get, t0);
        await store.release(1, t0, policy);

        await store.moveSession('nobody', 'other', 7);

        expect(await store.get(other.uuid)).toEqual({ ...other, state: 'released', releasedAt: t0 });
        expect(await store.admit('other', t0 + 1, full)).toBe(true);
        expect(await store.stats(t0 + 1)).toMatchObject({ waiting: 0, active: 1 });
      });

      it('should replace what the new session already had with what the old one had', async () => {
        const full = { ...policy, activeLimit: 2 };
        const old = await store.hold('old', 0, post, t0);
        const stale = await store.hold('new', 0, get, t0);
        const last = await store.hold('last', 0, get, t0);
        await store.release(1, t0, policy);

        await store.moveSession('old', 'new', 7);

        expect(await store.get(stale.uuid)).toBeUndefined();
        expect(await store.get(old.uuid)).toMatchObject({ sessionId: 'new', state: 'released' });
        expect((await store.release(1, t0 + 2, policy)).released.map((e) => e.uuid)).toEqual([last.uuid]);
        expect(await store.admit('new', t0 + 3, full)).toBe(true);
        expect(await store.takeHeld(old.uuid, 'new')).toEqual(post);
      });

      it('should only change the user id when both sessions are the same', async () => {
        const a = await store.hold('same', 0, get, t0);
        await store.release(1, t0, policy);

        await store.moveSession('same', 'same', 7);

        expect(await store.get(a.uuid)).toMatchObject({ sessionId: 'same', userId: 7, state: 'released' });
        expect(await store.admit('same', t0 + 1, { ...policy, activeLimit: 0 })).toBe(true);
        expect(await store.takeHeld(a.uuid, 'same')).toEqual(get);
      });
    });

    describe('pending places (the bot check)', () => {
      const pendingFor = 300_000;
      const pendingHold = (session: string, now = t0) => store.hold(session, 0, get, now, { pendingUntil: now + pendingFor });

      it('should keep a pending place out of the line: no ticket, no position, not waiting, nobody delayed', async () => {
        const before = await store.hold('before', 0, get, t0);
        const bot = await pendingHold('bot');
        const after = await store.hold('after', 0, get, t0 + 1);

        expect(bot).toMatchObject({ state: 'pending', ticket: 0, pendingUntil: t0 + pendingFor });
        expect(await store.position(bot.uuid, t0 + 2)).toEqual({ position: 0, ticket: 0, served: 0, pending: true });
        expect(await positions([before.uuid, after.uuid])).toEqual([1, 2]);
        expect(await store.stats(t0 + 2)).toMatchObject({ waiting: 2, pending: 1, arrived: 2 });
        expect((await store.release(5, t0 + 3, policy)).released.map((entry) => entry.uuid)).toEqual([before.uuid, after.uuid]);
        expect(await store.get(bot.uuid)).toMatchObject({ state: 'pending' });
      });

      it('should not hold newcomers back while only pending places are out of the line', async () => {
        await pendingHold('bot');
        expect(await store.admit('a', t0, policy)).toBe(true);
      });

      it('should let a pending place enter the line at the back, once: later calls leave it where it is', async () => {
        const early = await pendingHold('early');
        const other = await store.hold('other', 0, get, t0 + 1);

        expect(await store.enterLine(early.uuid, t0 + 2)).toBe('waiting');
        expect(await store.get(early.uuid)).toMatchObject({ state: 'waiting', ticket: other.ticket + 1 });
        expect(await positions([other.uuid, early.uuid], t0 + 3)).toEqual([1, 2]);

        expect(await store.enterLine(early.uuid, t0 + 4)).toBe('waiting');
        expect(await positions([early.uuid], t0 + 4)).toEqual([2]);
        expect(await store.stats(t0 + 4)).toMatchObject({ waiting: 2, pending: 0, arrived: 2 });
        await store.release(2, t0 + 5, policy);
        expect(await store.enterLine(early.uuid, t0 + 6)).toBe('released');
        expect(await store.enterLine('nobody', t0 + 6)).toBeUndefined();
      });

      it('should keep a session’s pending place when it is held again, until the later time', async () => {
        const first = await pendingHold('a');
        const again = await store.hold('a', 0, post, t0 + 10_000, { pendingUntil: t0 + 10_000 + pendingFor });

        expect(again).toMatchObject({ uuid: first.uuid, state: 'pending', request: post, pendingUntil: t0 + 10_000 + pendingFor });
        await store.dropAbandoned(t0 + pendingFor, policy.abandonMs);
        expect(await store.get(first.uuid)).toMatchObject({ state: 'pending' });
      });

      it('should let a pending place enter the line when the session is held again with the check off', async () => {
        const waiting = await store.hold('w', 0, get, t0);
        const pending = await pendingHold('p');

        const again = await store.hold('p', 0, get, t0 + 5);

        expect(again).toMatchObject({ uuid: pending.uuid, state: 'waiting' });
        expect(await positions([waiting.uuid, pending.uuid], t0 + 5)).toEqual([1, 2]);
      });

      it('should drop a pending place when its time comes, in the sweep, without counting it as a walk-away', async () => {
        const bot = await pendingHold('bot');
        // Seen all along: a pending place goes at its time whatever it does.
        await store.touch(bot.uuid, t0 + pendingFor - 1);

        expect(await store.dropAbandoned(t0 + pendingFor - 1, policy.abandonMs)).toBe(0);
        expect(await store.get(bot.uuid)).toBeDefined();
        expect(await store.dropAbandoned(t0 + pendingFor, policy.abandonMs)).toBe(0);
        expect(await store.get(bot.uuid)).toBeUndefined();
        expect((await store.stats(t0 + pendingFor)).pending).toBe(0);
        const next = await pendingHold('bot', t0 + pendingFor);
        expect(next.uuid).not.toBe(bot.uuid);
      });

      it('should drop a place that is still pending, and only such a place', async () => {
        const bot = await pendingHold('bot');
        const waiting = await store.hold('w', 0, get, t0);

        expect(await store.dropPending(waiting.uuid)).toBe(false);
        expect(await store.dropPending(bot.uuid)).toBe(true);
        expect(await store.get(bot.uuid)).toBeUndefined();
        expect(await store.dropPending(bot.uuid)).toBe(false);
        expect(await store.get(waiting.uuid)).toMatchObject({ state: 'waiting' });
      });

      it('should move a pending place with its session, still pending', async () => {
        const bot = await pendingHold('old');
        await store.moveSession('old', 'new', 7);
        expect(await store.get(bot.uuid)).toMatchObject({ sessionId: 'new', userId: 7, state: 'pending' });
        expect(await store.enterLine(bot.uuid, t0 + 1)).toBe('waiting');
      });

      it('should restore no held request of a pending place', async () => {
        const bot = await pendingHold('bot');
        expect(await store.takeHeld(bot.uuid, 'bot')).toBeUndefined();
      });
    });

    describe('places per address', () => {
      const cap = { address: '192.0.2.1', placesPerAddress: 2 };

      it('should refuse a new place past the cap, changing nothing, and count places of other addresses apart', async () => {
        await store.hold('a', 0, get, t0, cap);
        await store.hold('b', 0, get, t0, { ...cap, pendingUntil: t0 + 1000 });

        await expect(store.hold('c', 0, get, t0, cap)).rejects.toBeInstanceOf(PlacesPerAddressError);
        await expect(store.hold('c', 0, get, t0, cap)).rejects.toThrow('This address already holds 2 places in line.');
        expect(await store.stats(t0)).toMatchObject({ waiting: 1, pending: 1, arrived: 1 });
        await store.hold('d', 0, get, t0, { ...cap, address: '2001:db8::/64' });
        await store.hold('e', 0, get, t0, { address: '192.0.2.1' });
        expect((await store.stats(t0)).waiting).toBe(3);
      });

      it('should keep counting a session held again, which takes no new place', async () => {
        const a = await store.hold('a', 0, get, t0, cap);
        await store.hold('b', 0, get, t0, cap);
        expect((await store.hold('a', 0, post, t0 + 1, cap)).uuid).toBe(a.uuid);
      });

      it('should free a place of the address when one is released, walks away, is dropped pending or is replaced', async () => {
        const one = { ...cap, placesPerAddress: 1 };
        const a = await store.hold('a', 0, get, t0, one);
        await store.release(1, t0, policy);
        await store.hold('b', 0, get, t0, one);
        await store.dropAbandoned(t0 + policy.abandonMs + 1, policy.abandonMs);
        const c = await store.hold('c', 0, get, t0 + policy.abandonMs + 1, { ...one, pendingUntil: t0 + policy.abandonMs + 2 });
        await store.dropAbandoned(t0 + policy.abandonMs + 2, policy.abandonMs);
        expect(await store.get(c.uuid)).toBeUndefined();
        const d = await store.hold('d', 0, get, t0 + policy.abandonMs + 3, { ...one, pendingUntil: t0 + policy.abandonMs + 100 });
        await store.dropPending(d.uuid);
        const e = await store.hold('e', 0, get, t0 + policy.abandonMs + 4, one);
        // A signed-in session moved onto 'e' replaces what 'e' had.
        await store.hold('g', 0, get, t0 + policy.abandonMs + 4, { ...one, address: '198.51.100.7' });
        await store.moveSession('g', 'e', 7);
        expect(await store.get(e.uuid)).toBeUndefined();
        await store.hold('x', 0, get, t0 + policy.abandonMs + 5, one);
        await expect(store.hold('y', 0, get, t0 + policy.abandonMs + 5, one)).rejects.toBeInstanceOf(PlacesPerAddressError);
        expect(await store.get(a.uuid)).toMatchObject({ state: 'released' });
      });

      it('should count a place entered from pending once', async () => {
        const a = await store.hold('a', 0, get, t0, { ...cap, pendingUntil: t0 + 1000 });
        await store.enterLine(a.uuid, t0 + 1);
        await store.hold('b', 0, get, t0 + 2, cap);
        await expect(store.hold('c', 0, get, t0 + 3, cap)).rejects.toBeInstanceOf(PlacesPerAddressError);
      });
    });

    describe('the bot check’s difficulty', () => {
      it('should keep the operator’s difficulty until it is cleared', async () => {
        expect(await store.challengeDifficulty()).toBeUndefined();
        expect(await store.setChallengeDifficulty(400)).toBe(400);
        expect(await store.challengeDifficulty()).toBe(400);
        expect(await store.setChallengeDifficulty(null)).toBeUndefined();
        expect(await store.challengeDifficulty()).toBeUndefined();
      });
    });

    describe('the operator’s message', () => {
      it('should have none until one is set', async () => {
        expect(await store.message()).toBeUndefined();
      });

      it('should keep the texts with a version that grows with each change, a clearing included', async () => {
        const set = await store.setMessage({ text: 'Doors open at 10 <soon>', texts: { en: 'Doors open at 10', fr: 'Ouverture à 10 h' } }, t0);
        expect(set).toEqual({ version: t0, text: 'Doors open at 10 <soon>', texts: { en: 'Doors open at 10', fr: 'Ouverture à 10 h' } });
        expect(await store.message()).toEqual(set);
        // The same now again still gives a larger version.
        const again = await store.setMessage({ text: 'Sold out soon' }, t0);
        expect(again).toEqual({ version: t0 + 1, text: 'Sold out soon' });
        const cleared = await store.setMessage(null, t0 + 1);
        expect(cleared).toEqual({ version: t0 + 2 });
        expect(await store.message()).toEqual(cleared);
        expect(await store.setMessage({ texts: { 'pt-BR': 'Olá' } }, t0 + 5000)).toEqual({ version: t0 + 5000, texts: { 'pt-BR': 'Olá' } });
      });
    });
  });
}
