import fc from 'fast-check';
import { EndOrder } from '../../server/store/end-order';

describe('the memory store’s end order', () => {
  it('should give every end at or before a time, soonest first, and keep the later ones', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { maxLength: 200 }), fc.integer({ min: 0, max: 1000 }), (ends, now) => {
        const order = new EndOrder();
        ends.forEach((end, i) => order.add(end, `s${i}`));
        const taken: number[] = [];
        order.takeUpTo(now, (session, end) => {
          const i = Number(session.slice(1));
          expect(ends[i]).toBe(end);
          taken.push(i);
        });
        const due = ends.filter((end) => end <= now).sort((a, b) => a - b);
        expect(taken.map((i) => ends[i])).toEqual(due);
        expect(order.size).toBe(ends.length - due.length);
        expect(order.soonest).toBe(Math.min(...ends.filter((end) => end > now)));
      }),
    );
  });
});
