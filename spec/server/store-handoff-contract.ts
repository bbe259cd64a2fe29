import { HANDOFF_RECORD_MS, MOVED_MARK_MS } from '../../server/store/handoff';
import type { HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';

/**
 * Moving a place to another browser (`offerHandoff`, `takeHandoff`, `movedAway`), the same on
 * every store: a link moves its place once, in time, with its ticket, held request and admission.
 */
export function describeHandoffStore(name: string, createStore: () => Promise<QueueStore>): void {
  const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
  const post: HeldRequest = {
    method: 'POST',
    uri: '/checkout',
    body: { contentType: 'application/x-www-form-urlencoded', raw: `item=42&note=${'x'.repeat(200)}` },
  };
  const policy: ReleasePolicy = { activeLimit: 1, sessionMs: 300_000, perMinute: 6, abandonMs: 180_000 };
  const t0 = 1_700_000_000_000;
  const offer = (uuid: string, sessionId: string, expiresAt = t0 + 600_000) => ({ uuid, sessionId, name: 'Ada', expiresAt });

  describe(`${name} store: moving a place to another browser`, () => {
    let store: QueueStore;
    beforeEach(async () => {
      store = await createStore();
    });
    afterEach(async () => {
      await store.close();
    });

    it('should move a waiting place once, with its ticket, position, held request and user id, under a new uuid', async () => {
      await store.hold('ahead', 0, get, t0);
      const place = await store.hold('phone', 7, post, t0);
      await store.hold('behind', 0, get, t0);
      expect(await store.offerHandoff('k1', offer(place.uuid, 'phone'), t0)).toBe(true);

      const outcome = await store.takeHandoff('k1', 'laptop', 'moved-1', t0 + 1_000);
      expect(outcome).toMatchObject({ moved: true, from: place.uuid, name: 'Ada' });
      expect(outcome.moved && outcome.entry).toMatchObject({
        uuid: 'moved-1',
        sessionId: 'laptop',
        userId: 7,
        ticket: place.ticket,
        state: 'waiting',
        request: post,
      });
      expect((await store.placeInLine('moved-1', t0 + 1_000))?.position).toBe(2);
      expect(await store.get(place.uuid)).toBeUndefined();
      expect(await store.movedAway(place.uuid, t0 + 1_000)).toBe(true);
      expect(await store.movedAway('moved-1', t0 + 1_000)).toBe(false);
      // The old session has nothing: a new request of it takes a new place at the back.
      expect((await store.hold('phone', 0, get, t0 + 2_000)).ticket).toBeGreaterThan(place.ticket + 1);
      // The new session has the place: holding again keeps it.
      expect((await store.hold('laptop', 7, get, t0 + 2_000, { keepRequest: true })).uuid).toBe('moved-1');
      expect((await store.stats(t0 + 2_000)).waiting).toBe(4);
    });

    it('should say why a link moves nothing: used, expired, unknown, or its place gone', async () => {
      const place = await store.hold('phone', 0, get, t0);
      await store.offerHandoff('used', offer(place.uuid, 'phone'), t0);
      await store.offerHandoff('late', offer(place.uuid, 'phone', t0 + 10_000), t0);
      await store.offerHandoff('second', offer(place.uuid, 'phone'), t0);
      expect(await store.takeHandoff('late', 'laptop', 'x1', t0 + 10_000)).toEqual({ moved: false, refusal: 'expired' });
      expect((await store.takeHandoff('used', 'laptop', 'x2', t0 + 20_000)).moved).toBe(true);
      expect(await store.takeHandoff('used', 'laptop', 'x3', t0 + 21_000)).toEqual({ moved: false, refusal: 'used' });
      expect(await store.takeHandoff('used', 'tablet', 'x4', t0 + 21_000)).toEqual({ moved: false, refusal: 'used' });
      // Made by the phone, whose place has moved: its other link moves nothing, and is used now.
      expect(await store.takeHandoff('second', 'tablet', 'x5', t0 + 22_000)).toEqual({ moved: false, refusal: 'gone' });
      expect(await store.takeHandoff('second', 'tablet', 'x6', t0 + 22_000)).toEqual({ moved: false, refusal: 'used' });
      expect(await store.takeHandoff('never-made', 'tablet', 'x7', t0)).toEqual({ moved: false, refusal: 'unknown' });
      expect((await store.get('x2'))?.sessionId).toBe('laptop');
      for (const uuid of ['x1', 'x3', 'x4', 'x5', 'x6', 'x7']) expect(await store.get(uuid)).toBeUndefined();
    });

    it('should keep a link for no one but the owner of a place in line or released and not yet replayed', async () => {
      const place = await store.hold('phone', 0, get, t0);
      expect(await store.offerHandoff('k', offer(place.uuid, 'someone-else'), t0)).toBe(false);
      expect(await store.offerHandoff('k', offer('unknown-uuid', 'phone'), t0)).toBe(false);
      expect(await store.offerHandoff('k', offer(place.uuid, 'phone'), t0)).toBe(true);
      const pending = await store.hold('checking', 0, get, t0, { pendingUntil: t0 + 60_000 });
      expect(await store.offerHandoff('p', offer(pending.uuid, 'checking'), t0)).toBe(false);
      await store.release(1, t0 + 1, policy);
      expect(await store.takeHeld(place.uuid, 'phone')).toEqual(get);
      expect(await store.offerHandoff('r', offer(place.uuid, 'phone'), t0 + 2)).toBe(false);
      expect(await store.takeHandoff('k', 'laptop', 'x', t0 + 3)).toEqual({ moved: false, refusal: 'gone' });
    });

    it('should move a released place with its admission, its held request replayed once, by the new session only', async () => {
      const place = await store.hold('phone', 0, post, t0);
      await store.release(1, t0 + 1, policy);
      await store.offerHandoff('k', offer(place.uuid, 'phone'), t0 + 2);
      const outcome = await store.takeHandoff('k', 'laptop', 'moved-r', t0 + 3);
      expect(outcome.moved && outcome.entry).toMatchObject({ uuid: 'moved-r', state: 'released', replayed: false });
      expect(await store.admit('phone', t0 + 4, policy)).toBe(false);
      expect(await store.admit('laptop', t0 + 4, policy)).toBe(true);
      expect(await store.admittedUntil('laptop', t0 + 4)).toBe(t0 + 1 + policy.sessionMs);
      expect(await store.takeHeld(place.uuid, 'phone')).toBeUndefined();
      expect(await store.takeHeld('moved-r', 'phone')).toBeUndefined();
      expect(await store.takeHeld('moved-r', 'laptop')).toEqual(post);
      expect(await store.takeHeld('moved-r', 'laptop')).toBeUndefined();
      expect((await store.stats(t0 + 4)).active).toBe(1);
    });

    it('should keep the line in order around a moved place, for releases and the sweep', async () => {
      const first = await store.hold('a', 0, get, t0);
      const second = await store.hold('b', 0, get, t0);
      const third = await store.hold('c', 0, get, t0);
      await store.offerHandoff('k', offer(second.uuid, 'b'), t0);
      await store.takeHandoff('k', 'b2', 'moved-b', t0 + 100_000);
      expect((await store.position('moved-b', t0 + 100_000))?.position).toBe(2);
      // Seen at the move: the sweep drops the others, silent since t0, not the moved place.
      expect(await store.dropAbandoned(t0 + 200_000, policy.abandonMs)).toBe(2);
      expect(await store.get(first.uuid)).toBeUndefined();
      expect(await store.get(third.uuid)).toBeUndefined();
      const released = await store.release(1, t0 + 200_001, { ...policy, activeLimit: 5 });
      expect(released.released.map((entry) => entry.uuid)).toEqual(['moved-b']);
    });

    it('should forget a link an hour after its lifetime, and the moved mark after a day', async () => {
      const place = await store.hold('phone', 0, get, t0);
      await store.offerHandoff('k', offer(place.uuid, 'phone', t0 + 1_000), t0);
      expect(await store.takeHandoff('k', 'laptop', 'x', t0 + 1_000 + HANDOFF_RECORD_MS + 1)).toEqual({ moved: false, refusal: 'unknown' });
      await store.offerHandoff('m', offer(place.uuid, 'phone'), t0);
      await store.takeHandoff('m', 'laptop', 'moved', t0 + 1);
      expect(await store.movedAway(place.uuid, t0 + MOVED_MARK_MS - 1)).toBe(true);
      expect(await store.movedAway(place.uuid, t0 + 1 + MOVED_MARK_MS)).toBe(false);
    });
  });
}
