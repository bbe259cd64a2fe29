import { MemoryStore, type MemoryStoreState } from '../../server/store/memory';
import { drawInOrder } from './store-events-contract';
import type { HeldRequest, QueueStore, ReleasePolicy } from '../../server/store/types';

const policy: ReleasePolicy = { activeLimit: 3, sessionMs: 300_000, perMinute: 6, abandonMs: 180_000 };
const t0 = 1_700_000_000_000;
const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
const post: HeldRequest = {
  method: 'POST',
  uri: '/checkout',
  body: { contentType: 'application/x-www-form-urlencoded', raw: 'item=42&qty=1&note=%C3%A9t%C3%A9' },
};

/** When the line below was saved. */
const saved = t0 + 200_000;

/**
 * A line with every kind of state: an admission without a place, a released visitor who
 * replayed and one who did not, a hole where a visitor walked away, a held POST body, a session
 * moved at sign-in, release times, a release bucket, and the pause.
 */
async function busyLine() {
  const store = new MemoryStore();
  await store.admit('through', t0, policy);
  const replayed = await store.hold('replayed', 0, get, t0);
  const released = await store.hold('released', 4, post, t0 + 1);
  const gone = await store.hold('gone', 0, get, t0 + 2);
  const signedIn = await store.hold('anonymous', 0, post, t0 + 3);
  const last = await store.hold('last', 0, get, t0 + 4);
  await store.release(2, t0 + 10, policy);
  await store.takeHeld(replayed.uuid, 'replayed');
  await store.touch(signedIn.uuid, saved);
  await store.touch(last.uuid, saved - 1);
  await store.dropAbandoned(saved, policy.abandonMs);
  await store.moveSession('anonymous', 'signed-in', 7);
  await store.releaseDue(saved, policy);
  await store.setPaused(true);
  return { store, uuids: { replayed: replayed.uuid, released: released.uuid, gone: gone.uuid, signedIn: signedIn.uuid, last: last.uuid } };
}

/** Asks the store every contract question about the line, in an order that changes it on the way. */
async function transcript(store: QueueStore, uuids: Record<string, string>) {
  const all = Object.values(uuids);
  const at = saved + 1000;
  const answers: Record<string, unknown> = {};
  answers.stats = await store.stats(at);
  answers.recent = await store.recentReleases();
  answers.entries = await Promise.all(all.map((uuid) => store.get(uuid)));
  answers.positions = await Promise.all(all.map((uuid) => store.position(uuid, at)));
  answers.takeHeld = [
    await store.takeHeld(uuids.replayed, 'replayed'),
    await store.takeHeld(uuids.released, 'released'),
    await store.takeHeld(uuids.released, 'released'),
    await store.takeHeld(uuids.signedIn, 'signed-in'),
  ];
  answers.admit = [await store.admit('through', at, policy), await store.admit('replayed', at, policy), await store.admit('stranger', at, policy)];
  answers.newcomer = (await store.position((await store.hold('newcomer', 0, get, at)).uuid, at))?.position;
  await store.moveSession('signed-in', 'again', 9);
  answers.moved = await store.get(uuids.signedIn);
  answers.whilePaused = (await store.releaseDue(at, policy)).released.length;
  await store.setPaused(false);
  // Every admission has ended: the bucket allows one release a tick, the silent newcomer is dropped at last.
  const later = t0 + 400_000;
  await store.touch(uuids.signedIn, later);
  await store.touch(uuids.last, later);
  const due = [];
  for (let tick = 0; tick < 30; tick += 1) {
    const { released, served } = await store.releaseDue(later + tick * 1000, policy);
    due.push({ released: released.map((entry) => entry.uuid), served });
  }
  answers.due = due;
  answers.afterDue = await store.stats(later + 30_000);
  answers.forgotten = await Promise.all(all.map((uuid) => store.get(uuid)));
  return answers;
}

const roundTrip = (store: MemoryStore) => MemoryStore.fromState(JSON.parse(JSON.stringify(store.toState())));

describe('memory store state', () => {
  it('should answer every contract question the same once written as JSON and read back', async () => {
    const { store, uuids } = await busyLine();
    const copy = roundTrip(store);

    const expected = await transcript(store, uuids);
    expect(await transcript(copy, uuids)).toEqual(expected);
    // The line is what it should be, so that the comparison above means something.
    expect(expected).toMatchObject({
      stats: { waiting: 2, active: 3, released: 2, paused: true },
      recent: { served: 2, times: [t0 + 10, t0 + 10] },
      positions: [{ position: 0, served: 2 }, { position: 0, served: 2 }, undefined, { position: 1, served: 2 }, { position: 2, served: 2 }],
      takeHeld: [undefined, post, undefined, undefined],
      admit: [true, true, false],
      newcomer: 3,
      moved: { sessionId: 'again', userId: 9, request: post, state: 'waiting' },
      whilePaused: 0,
    });
    expect((expected.due as { released: string[] }[]).flatMap((step) => step.released)).toEqual([uuids.signedIn, uuids.last]);
  });

  it('should keep the held POST body and every field of each place', async () => {
    const { store, uuids } = await busyLine();
    const copy = roundTrip(store);
    for (const uuid of Object.values(uuids)) expect(await copy.get(uuid)).toEqual(await store.get(uuid));
    expect((await copy.get(uuids.signedIn))?.request).toEqual(post);
    expect(await copy.get(uuids.replayed)).toMatchObject({ state: 'released', replayed: true, releasedAt: t0 + 10 });
  });

  it('should keep pending places, the places each address holds and the operator’s difficulty', async () => {
    const store = new MemoryStore();
    const cap = { address: '192.0.2.1', placesPerAddress: 2 };
    const pending = await store.hold('p', 0, get, t0, { ...cap, pendingUntil: t0 + 1000 });
    await store.hold('w', 0, get, t0, cap);
    await store.setChallengeDifficulty(321);

    const copy = roundTrip(store);

    expect(await copy.get(pending.uuid)).toEqual(pending);
    expect(await copy.challengeDifficulty()).toBe(321);
    await expect(copy.hold('x', 0, get, t0, cap)).rejects.toThrow('This address already holds 2 places');
    expect(await copy.enterLine(pending.uuid, t0 + 1)).toBe('waiting');
    expect(await copy.stats(t0 + 1)).toMatchObject({ waiting: 2, pending: 0 });
  });

  it('should keep the operator’s message and its version', async () => {
    const store = new MemoryStore();
    await store.setMessage({ text: 'Back at noon', texts: { fr: 'De retour à midi' } }, t0);
    const copy = roundTrip(store);
    expect(await copy.message()).toEqual({ version: t0, text: 'Back at noon', texts: { fr: 'De retour à midi' } });
    expect((await copy.setMessage(null, t0)).version).toBe(t0 + 1);
  });

  it('should keep the revocation feed, its cursor and the slots it keeps', async () => {
    const store = new MemoryStore();
    await store.admit('a', t0, policy);
    await store.admit('b', t0, policy);
    const before = await store.revocations(undefined, t0);
    await store.revoke('a', t0 + 1, 5000);
    const back = MemoryStore.fromState(JSON.parse(JSON.stringify(store.toState())));
    expect(await back.revocations(before.cursor, t0 + 2)).toEqual(await store.revocations(before.cursor, t0 + 2));
    expect((await back.revocations(before.cursor, t0 + 2)).revoked.map((one) => one.session)).toEqual(['a']);
    expect((await back.stats(t0 + 2)).active).toBe(2);
    expect(() => MemoryStore.fromState({ ...store.toState(), revocations: { epoch: 'e', sequence: 0, list: [['a', 1, 1]] } })).toThrow(
      'revocations.list[0][2] is above revocations.sequence',
    );
  });

  it('should be plain JSON, with a version', async () => {
    const fresh = new MemoryStore().toState();
    expect(JSON.parse(JSON.stringify(fresh))).toEqual(fresh);
    const busy = (await busyLine()).store.toState();
    expect(JSON.parse(JSON.stringify(busy))).toEqual(busy);
    expect(busy.version).toBe(1);
  });

  it('should carry a line of 10,000 with holes, ranks intact', async () => {
    const store = new MemoryStore();
    const uuids: string[] = [];
    for (let i = 0; i < 10_000; i++) uuids.push((await store.hold(`s${i}`, 0, get, i % 3 === 0 ? t0 : saved)).uuid);
    await store.dropAbandoned(saved + 1, policy.abandonMs);
    await store.release(100, saved + 1, policy);
    const copy = roundTrip(store);
    const sample = uuids.filter((_, i) => i % 97 === 1);
    expect(await Promise.all(sample.map((uuid) => copy.position(uuid, saved + 2)))).toEqual(
      await Promise.all(sample.map((uuid) => store.position(uuid, saved + 2))),
    );
    expect(await copy.stats(saved + 2)).toEqual(await store.stats(saved + 2));
  });

  it('should keep an event whose name was saved with control characters, each shown as a space', () => {
    const store = new MemoryStore();
    const state = JSON.parse(JSON.stringify(store.toState()));
    state.events = {
      version: 1,
      list: [{ id: 'old', name: 'Old\u001b[2Jdrop', eventStartTime: '2030-01-01T00:00:00Z', eventEndTime: '2030-01-03T00:00:00Z' }],
      states: [],
    };
    const copy = MemoryStore.fromState(state);
    return expect(copy.events()).resolves.toMatchObject({ events: [{ id: 'old', name: 'Old [2Jdrop' }] });
  });

  it("should carry the events and where each one's pre-queue and draw stand", async () => {
    const store = new MemoryStore();
    const drop = {
      id: 'drop',
      name: 'Drop',
      prequeueStartTime: '2030-05-01T09:30:00.000Z',
      eventStartTime: '2030-05-01T10:00:00.000Z',
      eventEndTime: '2030-05-01T11:00:00.000Z',
      shuffleAtEventStart: true,
      queueingMethod: 'fifo' as const,
      activeLimit: 5,
      releasePerMinute: null,
      botChallenge: 'off' as const,
    };
    await store.saveEvents(0, [drop]);
    await store.startPrequeue('drop', '0f'.repeat(32));
    const entrants = [];
    for (const session of ['a', 'b', 'c']) entrants.push((await store.hold(session, 0, get, t0)).uuid);
    await store.openEvent('drop');
    await drawInOrder(store, 'drop', [...entrants].reverse());
    await store.startPrequeue('next', null);
    const copy = roundTrip(store);
    expect(await copy.events()).toEqual(await store.events());
    expect(await copy.eventState('drop')).toEqual({ seed: '0f'.repeat(32), afterTicket: 0, openTicket: 3, drawn: true });
    expect(await copy.eventState('next')).toEqual(await store.eventState('next'));
    expect(await copy.entrantsOf('drop')).toEqual([...entrants].reverse());
    expect(await drawInOrder(copy, 'drop', entrants)).toBe(false);
    expect(await Promise.all(entrants.map(async (uuid) => (await copy.position(uuid, t0))?.position))).toEqual([3, 2, 1]);
    expect(await copy.saveEvents(1, [])).toBe(true);
  });

  it('should go on with a draw stopped half-way, from where it stood', async () => {
    const store = new MemoryStore();
    await store.startPrequeue('drop', '0f'.repeat(32));
    const entrants = [];
    for (const session of ['a', 'b', 'c', 'd', 'e']) entrants.push((await store.hold(session, 0, get, t0)).uuid);
    await store.openEvent('drop');
    const order = [entrants[3], entrants[0], entrants[4], entrants[2], entrants[1]];
    await store.addDrawKeys(
      'drop',
      order.map((uuid, rank) => ({ uuid, key: rank.toString(16).padStart(64, '0') })),
      5,
    );
    expect(await store.placeDrawn('drop', 2)).toEqual({ placed: 2, done: false });
    const copy = roundTrip(store);
    expect(await copy.placeDrawn('drop', 2)).toEqual({ placed: 2, done: false });
    expect(await copy.placeDrawn('drop', 2)).toEqual({ placed: 1, done: true });
    expect(await copy.entrantsOf('drop')).toEqual(order);
    expect(await Promise.all(order.map(async (uuid) => (await copy.position(uuid, t0))?.position))).toEqual([1, 2, 3, 4, 5]);
  });

  describe('refuses what it cannot trust, whole', () => {
    let valid: MemoryStoreState;
    let uuids: Record<string, string>;
    beforeAll(async () => {
      const line = await busyLine();
      valid = JSON.parse(JSON.stringify(line.store.toState())) as MemoryStoreState;
      uuids = line.uuids;
    });
    const changed = (change: (state: any) => void) => {
      const state = JSON.parse(JSON.stringify(valid));
      change(state);
      return state;
    };
    const entryOf = (state: any, uuid: string) => state.entries.find((entry: any) => entry.uuid === uuid);

    it.each<[string, () => unknown, RegExp]>([
      ['nothing', () => undefined, /not an object/],
      ['text', () => 'line', /not an object/],
      ['a list', () => [], /not an object/],
      ['another file', () => ({ sessionSecret: 'x'.repeat(32), port: 8080 }), /version/],
      ['a later version', () => changed((state) => (state.version = 2)), /version 2/],
      ['a state without its entries', () => changed((state) => delete state.entries), /\bentries\b/],
      ['an entry without a session', () => changed((state) => delete state.entries[0].sessionId), /entries\[0\]\.sessionId/],
      ['an entry with a fractional ticket', () => changed((state) => (state.entries[0].ticket = 1.5)), /entries\[0\]\.ticket/],
      ['two places with one ticket', () => changed((state) => (entryOf(state, uuids.last).ticket = entryOf(state, uuids.signedIn).ticket)), /ticket/],
      ['two places with one uuid', () => changed((state) => (entryOf(state, uuids.last).uuid = uuids.signedIn)), /uuid/],
      ['a ticket not yet given', () => changed((state) => (state.nextTicket = 2)), /nextTicket/],
      ['an unknown state', () => changed((state) => (state.entries[0].state = 'lost')), /entries\[0\]\.state/],
      ['a released place without its release time', () => changed((state) => delete entryOf(state, uuids.released).releasedAt), /releasedAt/],
      ['a held request without a method', () => changed((state) => delete entryOf(state, uuids.signedIn).request.method), /method/],
      ['a body that is not text', () => changed((state) => (entryOf(state, uuids.signedIn).request.body.raw = 42)), /raw/],
      ['a session pointing nowhere', () => changed((state) => state.sessions.push(['ghost', '00000000-0000-4000-8000-000000000000'])), /sessions/],
      ['an admission without an end', () => changed((state) => (state.admitted[0][1] = 'soon')), /admitted/],
      ['a release bucket of text', () => changed((state) => (state.bucket.tokens = 'many')), /bucket/],
      ['a paused flag of text', () => changed((state) => (state.paused = 'yes')), /paused/],
      ['release times of text', () => changed((state) => state.releaseTimes.push('soon')), /releaseTimes/],
      ['a negative served', () => changed((state) => (state.served = -1)), /served/],
      [
        'an event opening before its pre-queue',
        () =>
          changed(
            (state) =>
              (state.events = {
                version: 1,
                list: [
                  {
                    id: 'x',
                    name: 'X',
                    prequeueStartTime: '2030-01-02T00:00:00Z',
                    eventStartTime: '2030-01-01T00:00:00Z',
                    eventEndTime: '2030-01-03T00:00:00Z',
                  },
                ],
                states: [],
              }),
          ),
        /events\.list\[0\].*prequeue/,
      ],
      [
        'an event without an id',
        () =>
          changed(
            (state) =>
              (state.events = { version: 1, list: [{ name: 'X', eventStartTime: '2030-01-01T00:00:00Z', eventEndTime: '2030-01-03T00:00:00Z' }], states: [] }),
          ),
        /events\.list\[0\]\.id/,
      ],
      [
        'a seed that is not hex',
        () => changed((state) => (state.events = { version: 0, list: [], states: [['x', { seed: 'not a seed' }]] })),
        /events\.states\[0\]\[1\]\.seed/,
      ],
    ])('should refuse %s with a clear error', (_what, state, why) => {
      expect(() => MemoryStore.fromState(state())).toThrow(why);
      expect(() => MemoryStore.fromState(state())).toThrow(/memory store state/);
    });
  });
});

describe('memory store state: priority codes', () => {
  it('should keep the codes not yet used, their counts and the code holders ahead across a restart', async () => {
    const t0 = 1_700_000_000_000;
    const get: HeldRequest = { method: 'GET', uri: '/checkout' };
    const limits = { address: '', perPlace: 5, perAddress: 5, windowMs: 60_000 };
    const store = new MemoryStore();
    const uuids: string[] = [];
    for (const session of ['a', 'b', 'c', 'd']) uuids.push((await store.hold(session, 0, get, t0)).uuid);
    await store.addCodes(['h1', 'h2'], t0, t0 + 60_000);
    await store.useCode('c', 'h1', t0, limits);

    const restored = MemoryStore.fromState(JSON.parse(JSON.stringify(store.toState())));

    expect(await restored.codeCounts()).toEqual({ issued: 2, used: 1 });
    expect(await restored.useCode('b', 'h1', t0, limits)).toEqual({ outcome: 'wrong' });
    expect(await restored.useCode('d', 'h2', t0, limits)).toEqual({ outcome: 'moved', position: 2 });
    const positions = await Promise.all(uuids.map(async (uuid) => (await restored.position(uuid, t0))?.position));
    expect(positions).toEqual([3, 4, 1, 2]);
  });
});
