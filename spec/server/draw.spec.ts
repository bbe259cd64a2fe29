import { createHash, createHmac, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { drawCommitment, drawOrder as webDrawOrder, drawTicket, verifyDraw } from '@waiting-room/streams/contract';
import { commitmentOf, drawOrder, newSeed, ticketOf } from '../../server/domain/events/draw';

/**
 * The draw has two implementations — the server's (node:crypto) and the contract's (Web Crypto,
 * which the verify page and `waiting-room verify-draw` run) — each checked here against the other
 * and against the known vector docs/drop-day.md publishes.
 */
describe('the draw', () => {
  /** docs/drop-day.md, "A known vector". */
  const vector = {
    seed: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    commitment: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd',
    uuids: [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-00000000000${n}`),
    tickets: {
      1: '11e594f481958c10e3015d0bf0447a22f068a8a647f475df15ce2c7ab4b8f3f1',
      4: '008bf60b9309e6141ae7eb98acb2a35d7b6c84c27d3973561d60b32b070f95c8',
    },
    /** The uuids' numbers in draw order. */
    order: [4, 5, 3, 2, 1],
  };

  it("should give the known vector's commitment, tickets and order, on the server and in Web Crypto", async () => {
    expect(commitmentOf(vector.seed)).toBe(vector.commitment);
    expect(await drawCommitment(vector.seed)).toBe(vector.commitment);
    expect(ticketOf(vector.uuids[0])).toBe(vector.tickets[1]);
    expect(await drawTicket(vector.uuids[3])).toBe(vector.tickets[4]);
    const drawn = drawOrder(vector.seed, vector.uuids);
    expect(drawn.map((each) => vector.uuids.indexOf(each.uuid) + 1)).toEqual(vector.order);
    const tickets = vector.uuids.map(ticketOf);
    expect(await webDrawOrder(vector.seed, tickets)).toEqual(drawn.map((each) => each.ticket));
  });

  it("should sort by HMAC-SHA256 of each ticket's hex text keyed with the seed's bytes, as the specification reads", () => {
    const seed = newSeed();
    const uuids = Array.from({ length: 50 }, () => randomUUID());
    const mac = (uuid: string) => createHmac('sha256', Buffer.from(seed, 'hex')).update(createHash('sha256').update(uuid).digest('hex')).digest('hex');
    const expected = [...uuids].sort((a, b) => mac(a).localeCompare(mac(b)));
    expect(drawOrder(seed, uuids).map((each) => each.uuid)).toEqual(expected);
    expect(seed).toMatch(/^[0-9a-f]{64}$/);
  });

  it('should draw alike in both implementations, whatever the seed and the entrants', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.uniqueArray(fc.uuid(), { maxLength: 40 }), async (bytes, uuids) => {
        const seed = Buffer.from(bytes).toString('hex');
        const server = drawOrder(seed, uuids);
        expect(await webDrawOrder(seed, uuids.map(ticketOf))).toEqual(server.map((each) => each.ticket));
        expect(await Promise.all(uuids.map(drawTicket))).toEqual(uuids.map(ticketOf));
      }),
      { numRuns: 30 },
    );
  });

  describe('verifyDraw', () => {
    const record = () => {
      const order = drawOrder(vector.seed, vector.uuids).map((each) => each.ticket);
      return { event: 'drop', commitment: vector.commitment, entrants: 5, seed: vector.seed, order };
    };

    it('should confirm a true draw, and the rank of a uuid in it', async () => {
      expect(await verifyDraw(record(), { uuid: vector.uuids[2], commitment: vector.commitment })).toEqual({
        ok: true,
        problems: [],
        entrants: 5,
        ticket: ticketOf(vector.uuids[2]),
        rank: 3,
      });
    });

    it.each<[string, (draw: ReturnType<typeof record>) => unknown, RegExp]>([
      ['a seed that is not the committed one', (draw) => ({ ...draw, seed: 'ff'.repeat(32) }), /SHA-256 of the seed is not the commitment/],
      ['two tickets swapped', (draw) => ({ ...draw, order: [draw.order[1], draw.order[0], ...draw.order.slice(2)] }), /not the tickets sorted/],
      ['a ticket added at the head', (draw) => ({ ...draw, entrants: 6, order: ['00'.repeat(32), ...draw.order] }), /not the tickets sorted/],
      ["a count of entrants that is not the order's", (draw) => ({ ...draw, entrants: 4 }), /4 entrants are announced, the order has 5/],
      ['a ticket twice', (draw) => ({ ...draw, entrants: 6, order: [...draw.order, draw.order[0]] }), /twice/],
      ['a draw not done yet', (draw) => ({ event: draw.event, commitment: draw.commitment, entrants: 5 }), /not done yet/],
      ['something else', () => 'not a draw', /commitment is not 64/],
    ])('should refuse %s', async (_what, change, problem) => {
      const verdict = await verifyDraw(change(record()));
      expect(verdict.ok).toBe(false);
      expect(verdict.problems.map((each) => each.message).join('\n')).toMatch(problem);
    });

    it('should refuse a commitment other than the one seen before the opening, and a uuid not drawn', async () => {
      const verdict = await verifyDraw(record(), { commitment: 'ab'.repeat(32), uuid: '00000000-0000-4000-8000-000000000009' });
      expect(verdict).toMatchObject({ ok: false, rank: null });
      const ticket = ticketOf('00000000-0000-4000-8000-000000000009');
      expect(verdict.problems).toEqual([
        { code: 'commitment_changed', message: expect.stringMatching(/not the one seen before the opening/), values: { commitment: 'ab'.repeat(32) } },
        { code: 'ticket_missing', message: `your ticket ${ticket} is not in the draw`, values: { ticket } },
      ]);
    });
  });
});
