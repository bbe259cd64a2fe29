import { TurnBudget } from '../../server/http/turn-budget';

/** A clock that moves only when a piece of work runs: each takes `msPerWork`. */
function fakeClock() {
  return { ms: 0 };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

async function until(condition: () => boolean): Promise<number> {
  let turns = 0;
  while (!condition()) {
    if (++turns > 10_000) throw new Error('never happened');
    await turn();
  }
  return turns;
}

describe('a per-turn budget for answers', () => {
  it('should run work at once while the turn has time left, and the rest in later turns, in order', async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    const done: number[] = [];
    const work = (index: number) => () => {
      done.push(index);
      clock.ms += 1;
    };

    for (let index = 0; index < 10; index++) budget.run(work(index));

    // 4 ms of work fit in this turn's slice; the fifth piece found it spent.
    expect(done).toEqual([0, 1, 2, 3]);
    expect(budget.backlog).toBe(6);
    const turns = await until(() => done.length === 10);
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // A slice a turn: 4 pieces, then 2, each turn after the one that spent the first.
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(budget.backlog).toBe(0);
  });

  it("should run the spending turn's own immediates, and the timers and I/O after them, before any work it deferred", async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    const log: string[] = [];
    budget.run(() => {
      log.push('spends the slice');
      clock.ms += 5;
    });
    budget.run(() => log.push('deferred'));
    setImmediate(() => log.push('immediate of the same turn'));

    await until(() => log.includes('deferred'));

    expect(log).toEqual(['spends the slice', 'immediate of the same turn', 'deferred']);
  });

  it('should let nothing overtake work that waits, even once a new turn has time', async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    const done: string[] = [];
    budget.run(() => {
      done.push('a');
      clock.ms += 10;
    });
    budget.run(() => done.push('b'));
    await turn();
    // A new turn, with a new slice: still behind b.
    budget.run(() => done.push('c'));
    expect(done).toEqual(['a']);

    await until(() => done.length === 3);

    expect(done).toEqual(['a', 'b', 'c']);
  });

  it('should open a fresh slice in each turn, so that work long after a busy turn runs at once', async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    budget.run(() => (clock.ms += 3));
    await turn();
    await turn();
    clock.ms += 1;
    let ran = false;

    // 4 ms after the first slice opened, but in another turn.
    budget.run(() => (ran = true));

    expect(ran).toBe(true);
  });

  it('should count the time of its own work only, so that a slice opened late in a turn leaves the next turn its time', async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    const log: string[] = [];
    const nextTurnsTimer = new Promise<void>((resolve) => {
      budget.run(() => (clock.ms += 5));
      budget.run(() => {
        // Deferred: it opens a slice late in its turn and spends 1 ms of it.
        log.push('deferred');
        clock.ms += 1;
        // A timer of the next turn, due by then (the loop's clock moves on at least 1 ms meanwhile).
        setTimeout(() => {
          // 10 ms of other work since that slice opened, then the next turn's first answer.
          clock.ms += 10;
          budget.run(() => log.push('at once'));
          log.push('after run');
          resolve();
        }, 0);
        const started = Date.now();
        while (Date.now() - started < 3);
      });
    });

    await nextTurnsTimer;

    expect(log).toEqual(['deferred', 'at once', 'after run']);
  });

  it('should run at least one piece a turn, however long each takes', async () => {
    const clock = fakeClock();
    const budget = new TurnBudget(4, () => clock.ms);
    const done: number[] = [];
    for (let index = 0; index < 4; index++) {
      budget.run(() => {
        done.push(index);
        clock.ms += 50;
      });
    }
    expect(done).toEqual([0]);

    const turns = await until(() => done.length === 4);

    expect(done).toEqual([0, 1, 2, 3]);
    expect(turns).toBeGreaterThanOrEqual(3);
  });

  it('should go on with the rest when a piece of work throws, and say so', async () => {
    const clock = fakeClock();
    const failures: unknown[] = [];
    const budget = new TurnBudget(
      4,
      () => clock.ms,
      (error) => failures.push(error),
    );
    const done: string[] = [];
    budget.run(() => (clock.ms += 5));
    budget.run(() => {
      throw new Error('broken');
    });
    budget.run(() => done.push('after'));

    await until(() => done.length === 1);

    expect(failures).toEqual([new Error('broken')]);
    expect(done).toEqual(['after']);
  });
});
