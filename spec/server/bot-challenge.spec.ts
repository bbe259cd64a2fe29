import * as scrypt from 'altcha-lib/algorithms/scrypt';
import type { AltchaChallenge } from '@waiting-room/streams/contract';
import { addressKey } from '../../server/domain/bot-check/address';
import { BotChallenges, CHALLENGE_LIFETIME_MS, KDF } from '../../server/domain/bot-check/challenge';
import { RoomBotCheck } from '../../server/domain/bot-check/room-check';
import { MemoryStore } from '../../server/store/memory';
import { altchaPayload, solveAltcha } from '../support/solve-altcha';
import { ManualClock } from './support/manual-clock';

const SECRET = 'a-session-secret-of-at-least-32-characters';
const place = { uuid: '6f1c1a3e-0d52-4f4e-9d8f-1b2f3c4d5e6f', room: 'default' };

describe('bot check: the challenge', () => {
  let clock: ManualClock;
  let challenges: BotChallenges;
  beforeEach(() => {
    clock = new ManualClock();
    challenges = new BotChallenges(SECRET, clock);
  });

  describe('issue', () => {
    it('should issue an ALTCHA v2 scrypt challenge for the place, signed, its key signed too, expiring on the injected clock', async () => {
      const challenge = await challenges.issue(place, 20);

      expect(challenge.parameters).toMatchObject({
        algorithm: 'SCRYPT',
        cost: KDF.cost,
        memoryCost: KDF.memoryCost,
        parallelism: KDF.parallelism,
        keyLength: 32,
        data: { place: place.uuid, room: 'default', expires: clock.now() + CHALLENGE_LIFETIME_MS },
      });
      expect(challenge.parameters.keyPrefix).toMatch(/^[0-9a-f]{32}$/);
      expect(challenge.parameters.keySignature).toMatch(/^[0-9a-f]{64}$/);
      expect(challenge.parameters.expiresAt).toBeUndefined();
      expect(challenge.signature).toMatch(/^[0-9a-f]{64}$/);
    });

    it('should ask for between half the difficulty and the difficulty in key derivations', async () => {
      const counters: number[] = [];
      for (let i = 0; i < 8; i++) {
        const challenge = await challenges.issue({ ...place, uuid: `place-${i}` }, 12);
        counters.push(JSON.parse(Buffer.from(await solveAltcha(challenge), 'base64').toString()).solution.counter);
      }
      for (const counter of counters) {
        expect(counter).toBeGreaterThanOrEqual(6);
        expect(counter).toBeLessThanOrEqual(12);
      }
    });

    it('should hand the same challenge to a reload while it has half its time left, and a new one after', async () => {
      const first = await challenges.issue(place, 20);
      await clock.advance(CHALLENGE_LIFETIME_MS / 2);
      expect(await challenges.issue(place, 20)).toBe(first);
      await clock.advance(1);
      const second = await challenges.issue(place, 20);
      expect(second).not.toBe(first);
      expect(second.parameters.data).toMatchObject({ expires: clock.now() + CHALLENGE_LIFETIME_MS });
    });

    it('should issue a new challenge when the difficulty changed, and one of its own to each place', async () => {
      const first = await challenges.issue(place, 20);
      expect(await challenges.issue(place, 40)).not.toBe(first);
      expect((await challenges.issue({ ...place, uuid: 'another' }, 20)).parameters.data).toMatchObject({ place: 'another' });
    });
  });

  describe('verify', () => {
    let challenge: AltchaChallenge;
    let payload: string;
    beforeEach(async () => {
      challenge = await challenges.issue(place, 10);
      payload = await solveAltcha(challenge);
    });

    it('should verify the solution for its place, by any instance sharing the session secret', async () => {
      expect(await challenges.verify(payload, place)).toEqual({ verified: true });
      expect(await new BotChallenges(SECRET, clock).verify(payload, place)).toEqual({ verified: true });
      expect(await new BotChallenges(`${SECRET}-other`, clock).verify(payload, place)).toEqual({ verified: false, refusal: 'invalid' });
    });

    it('should refuse a solution for another place, or the same place in another room', async () => {
      expect(await challenges.verify(payload, { ...place, uuid: 'someone-else' })).toEqual({ verified: false, refusal: 'wrong_place' });
      expect(await challenges.verify(payload, { ...place, room: 'tickets' })).toEqual({ verified: false, refusal: 'wrong_place' });
    });

    it('should refuse a solution once its challenge has expired on the injected clock', async () => {
      await clock.advance(CHALLENGE_LIFETIME_MS - 1);
      expect(await challenges.verify(payload, place)).toEqual({ verified: true });
      await clock.advance(1);
      expect(await challenges.verify(payload, place)).toEqual({ verified: false, refusal: 'expired' });
    });

    it('should refuse a wrong counter or key, and a challenge whose parameters were changed', async () => {
      const { solution } = JSON.parse(Buffer.from(payload, 'base64').toString()) as { solution: { counter: number; derivedKey: string } };
      const refused = { verified: false, refusal: 'invalid' };

      expect(await challenges.verify(altchaPayload(challenge, { ...solution, derivedKey: '00'.repeat(32) }), place)).toEqual(refused);
      const later = {
        ...challenge,
        parameters: { ...challenge.parameters, data: { ...challenge.parameters.data, expires: clock.now() + 10 * CHALLENGE_LIFETIME_MS } },
      };
      expect(await challenges.verify(altchaPayload(later, solution), place)).toEqual(refused);
      const easier = { ...challenge, parameters: { ...challenge.parameters, cost: 2 } };
      expect(await challenges.verify(altchaPayload(easier, solution), place)).toEqual(refused);
    });

    it('should check a solution, right or wrong, without deriving a key: HMACs only', async () => {
      const derive = jest.spyOn(scrypt, 'deriveKey');
      const { keySignature: _, ...unsigned } = challenge.parameters;
      try {
        expect(await challenges.verify(payload, place)).toEqual({ verified: true });
        expect(await challenges.verify(altchaPayload(challenge, { counter: 1, derivedKey: 'ab' }), place)).toMatchObject({ verified: false });
        // Without the key signature, the key would have to be derived to be checked: the
        // signature over the parameters refuses it first.
        expect(await challenges.verify(altchaPayload({ ...challenge, parameters: unsigned }, { counter: 1, derivedKey: 'ab' }), place)).toEqual({
          verified: false,
          refusal: 'invalid',
        });
        expect(derive).not.toHaveBeenCalled();
        // Issuing derives the key once (so the spy sees what the server derives).
        await challenges.issue({ ...place, uuid: 'another' }, 10);
        expect(derive).toHaveBeenCalledTimes(1);
      } finally {
        derive.mockRestore();
      }
    });

    it.each([
      ['not base64 JSON', '%%%'],
      ['JSON without a solution', Buffer.from(JSON.stringify({ challenge: {} })).toString('base64')],
      ['a challenge without a signature', Buffer.from(JSON.stringify({ challenge: { parameters: {} }, solution: {} })).toString('base64')],
      ['an array', Buffer.from('[]').toString('base64')],
    ])('should refuse %s as malformed', async (_, malformed) => {
      expect(await challenges.verify(malformed, place)).toEqual({ verified: false, refusal: 'malformed' });
    });
  });
});

describe('bot check: the difficulty in force', () => {
  it('should follow the difficulty the operator set in the store, read again at most every second', async () => {
    const clock = new ManualClock();
    const store = new MemoryStore();
    const check = new RoomBotCheck(store, { mode: 'pow', difficulty: 200 }, clock);
    // Another instance, sharing the store.
    const other = new RoomBotCheck(store, { mode: 'pow', difficulty: 200 }, clock);

    expect(await check.difficulty()).toBe(200);
    expect(await other.difficulty()).toBe(200);
    expect(await check.changeDifficulty(800)).toBe(800);
    expect(await check.difficulty()).toBe(800);
    expect(await other.difficulty()).toBe(200);
    await clock.advance(1000);
    expect(await other.difficulty()).toBe(800);
    expect(await other.changeDifficulty(null)).toBe(200);
    await clock.advance(1000);
    expect(await check.difficulty()).toBe(200);
  });

  it('should ask a visitor held at any time what the room is configured to ask', () => {
    const clock = new ManualClock();
    expect(new RoomBotCheck(new MemoryStore(), { mode: 'pow', difficulty: 1 }, clock).mode(clock.now())).toBe('pow');
    expect(new RoomBotCheck(new MemoryStore(), { mode: 'off', difficulty: 1 }, clock).mode(clock.now())).toBe('off');
  });
});

describe('bot check: the address a place counts against', () => {
  it.each([
    ['an IPv4 address as it is', '192.0.2.1', '192.0.2.1'],
    ['an IPv4-mapped IPv6 address as its IPv4 address', '::ffff:192.0.2.1', '192.0.2.1'],
    ['an IPv6 address by its /64', '2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['every spelling of one /64 alike', '2001:0DB8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
    ['a /64 with zeros', '2001:db8::1', '2001:db8::/64'],
    ['a scoped address by its /64', 'fe80::1%eth0', 'fe80::/64'],
  ])('should count %s', (_, ip, key) => {
    expect(addressKey(ip)).toBe(key);
  });

  it('should tell two /64 networks apart, and two IPv4 addresses', () => {
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('192.0.2.1')).not.toBe(addressKey('192.0.2.2'));
  });
});
