import fc from 'fast-check';
import { RankedLine } from '../../server/store/ranked-line';

/** The memory store's line against a plain array: ranks count only the places still in line. */
describe('RankedLine', () => {
  type Step =
    | { readonly kind: 'push'; readonly count: number }
    | { readonly kind: 'place'; readonly count: number; readonly at: number }
    | { readonly kind: 'remove'; readonly at: number }
    | { readonly kind: 'shift'; readonly count: number };
  const steps = fc.array<Step>(
    fc.oneof(
      fc.record({ kind: fc.constant('push' as const), count: fc.integer({ min: 1, max: 400 }) }),
      fc.record({ kind: fc.constant('place' as const), count: fc.integer({ min: 1, max: 60 }), at: fc.nat() }),
      fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
      fc.record({ kind: fc.constant('shift' as const), count: fc.integer({ min: 1, max: 400 }) }),
    ),
    { maxLength: 60 },
  );

  it('should rank, place, remove and shift as an array of the places in line does, across rebuilds', () => {
    fc.assert(
      fc.property(steps, fc.array(fc.nat(), { minLength: 1, maxLength: 50 }), (run, probes) => {
        const line = new RankedLine();
        const model: number[] = [];
        let ticket = 0;
        const gone: number[] = [];
        for (const step of run) {
          if (step.kind === 'push') {
            for (let i = 0; i < step.count; i++) {
              // Tickets need not follow each other, only grow.
              ticket += 1 + (i % 3);
              line.push(ticket, `u${ticket}`);
              model.push(ticket);
            }
          } else if (step.kind === 'place' && model.length > 0) {
            // Between places already in line (a draw's slots), some of them removed before any read.
            for (let i = 0; i < step.count; i++) {
              const index = (step.at + i * 13) % model.length;
              const placed = model[index] + 1 / (i + 2) / 4;
              if (model.includes(placed) || gone.includes(placed)) continue;
              line.place(placed, `u${placed}`);
              const after = model.findIndex((one) => one > placed);
              model.splice(after === -1 ? model.length : after, 0, placed);
              if (i % 5 === 4) {
                expect(line.remove(placed)).toBe(true);
                model.splice(model.indexOf(placed), 1);
                gone.push(placed);
              }
            }
          } else if (step.kind === 'remove' && model.length > 0) {
            // Mostly from the middle, in runs, so that empty slots pile up and force rebuilds.
            for (let i = 0; i < 300 && model.length > 0; i++) {
              const [removed] = model.splice((step.at + i * 7) % model.length, 1);
              expect(line.remove(removed)).toBe(true);
              gone.push(removed);
            }
          } else if (step.kind === 'shift') {
            for (let i = 0; i < step.count; i++) {
              const head = model.shift();
              expect(line.shift()).toBe(head === undefined ? undefined : `u${head}`);
              if (head !== undefined) gone.push(head);
            }
          }
          expect(line.size).toBe(model.length);
        }
        for (const probe of probes) {
          if (model.length > 0) {
            const index = probe % model.length;
            expect(line.rank(model[index])).toBe(index + 1);
          }
          if (gone.length > 0) {
            const removed = gone[probe % gone.length];
            expect(line.rank(removed)).toBeUndefined();
            expect(line.remove(removed)).toBe(false);
          }
        }
        expect([...line]).toEqual(model.map((one) => `u${one}`));
      }),
      { numRuns: 200 },
    );
  });

  it('should count, list, draw by rank and reassign places as the array of places in line does', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3000 }), fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (size, picks) => {
        const line = new RankedLine();
        const model: number[] = [];
        for (let i = 1; i <= size; i++) {
          line.push(i * 2, `u${i * 2}`);
          model.push(i * 2);
        }
        for (const pick of picks) {
          if (model.length === 0) break;
          const rank = 1 + (pick % model.length);
          const [ticket] = model.splice(rank - 1, 1);
          expect(line.removeAt(rank)).toBe(`u${ticket}`);
          const probe = pick % (size * 2 + 2);
          expect(line.countUpTo(probe)).toBe(model.filter((t) => t <= probe).length);
          expect(line.between(probe, probe + 50)).toEqual(model.filter((t) => t > probe && t <= probe + 50).map((t) => `u${t}`));
        }
        expect(line.removeAt(model.length + 1)).toBeUndefined();
        expect(line.removeAt(0)).toBeUndefined();
        if (model.length >= 2) {
          line.assign(model[0], 'swapped');
          expect([...line][0]).toBe('swapped');
          expect(line.rank(model[0])).toBe(1);
        }
        expect(line.size).toBe(model.length);
      }),
      { numRuns: 60 },
    );
  });

  it('should refuse a ticket that does not come after the last one', () => {
    const line = new RankedLine();
    line.push(5, 'a');
    expect(() => line.push(5, 'b')).toThrow(/does not come after/);
    expect(line.rank(5)).toBe(1);
  });

  it('should rank in O(log n): 100,000 ranks in a line of 100,000 take a moment', () => {
    const line = new RankedLine();
    for (let ticket = 1; ticket <= 100_000; ticket++) line.push(ticket, `u${ticket}`);
    for (let ticket = 2; ticket <= 100_000; ticket += 2) line.remove(ticket);
    const started = performance.now();
    let sum = 0;
    for (let ticket = 1; ticket <= 100_000; ticket += 2) sum += line.rank(ticket) ?? 0;
    expect(sum).toBe((50_000 * 50_001) / 2);
    // A scan per rank would take minutes; a log-time rank takes milliseconds.
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
