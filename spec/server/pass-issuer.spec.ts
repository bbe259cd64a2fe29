import { verifyPass } from '@waiting-room/connector';
import type { Room } from '../../server/domain/rooms';
import { PassIssuer } from '../../server/http/pass';
import { MemoryStore } from '../../server/store/memory';

const SECRET = 'a-pass-secret-for-the-issuer-tests-012345';
const T0 = 1_800_000_000_000;
const LIMITS = { activeLimit: 5, sessionMs: 300_000, perMinute: 6 };

describe('the pass issuer', () => {
  /** A room on a memory store that counts how often the admission's end is read. */
  function room() {
    const store = new MemoryStore();
    let reads = 0;
    const admittedUntil = store.admittedUntil.bind(store);
    store.admittedUntil = (...args) => {
      reads += 1;
      return admittedUntil(...args);
    };
    return { room: { name: 'shop', store, limits: LIMITS } as unknown as Room, store, reads: () => reads };
  }

  test("gives a pass that ends with the session's admission", async () => {
    const { room: shop, store } = room();
    await store.admit('session-1', T0, LIMITS);
    const pass = await new PassIssuer(SECRET).issue(shop, 'visitor-1', 'session-1', T0 + 60_000);
    expect(await verifyPass(pass, SECRET, 'shop', T0 + 60_000)).toMatchObject({
      visitor: 'visitor-1',
      session: 'session-1',
      expiresAt: (T0 + LIMITS.sessionMs) / 1000,
    });
  });

  test('gives the same pass again, without reading the store, until it expires', async () => {
    const { room: shop, store, reads } = room();
    const issuer = new PassIssuer(SECRET);
    await store.admit('session-1', T0, LIMITS);
    const first = await issuer.issue(shop, 'visitor-1', 'session-1', T0);
    expect(await issuer.issue(shop, 'visitor-1', 'session-1', T0 + 1000)).toBe(first);
    expect(reads()).toBe(1);
    expect(await issuer.issue(shop, 'visitor-2', 'session-1', T0 + 1000)).not.toBe(first);

    await store.admit('session-1', T0 + LIMITS.sessionMs, LIMITS);
    const next = await issuer.issue(shop, 'visitor-1', 'session-1', T0 + LIMITS.sessionMs);
    expect(next).not.toBe(first);
    expect(await verifyPass(next, SECRET, 'shop', T0 + LIMITS.sessionMs)).toMatchObject({ expiresAt: (T0 + 2 * LIMITS.sessionMs) / 1000 });
  });

  test("gives a connector's visitor a pass of the session's current admission: never the revoked one's again", async () => {
    const { room: shop, store } = room();
    const issuer = new PassIssuer(SECRET);
    await store.admit('session-1', T0, LIMITS);
    const first = await issuer.issue(shop, 'visitor-1', 'session-1', T0, { current: true });
    expect(await issuer.issue(shop, 'visitor-1', 'session-1', T0 + 1000, { current: true })).toBe(first);

    await store.revoke('session-1', T0 + 1000);
    await store.admit('session-1', T0 + 1000, LIMITS);
    const next = await issuer.issue(shop, 'visitor-1', 'session-1', T0 + 1000, { current: true });
    expect(next).not.toBe(first);
    const [before, after] = await Promise.all([first, next].map((pass) => verifyPass(pass, SECRET, 'shop', T0 + 1000)));
    expect(after!.expiresAt).toBeGreaterThan(before!.expiresAt);
  });
});
