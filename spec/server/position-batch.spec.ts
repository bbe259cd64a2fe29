import { StoreUnavailableError } from '../../server/store/errors';
import { CallBatch, RESOLVE_SLICE } from '../../server/store/redis/call-batch';
import { MAX_BATCH, PositionBatch } from '../../server/store/redis/position-batch';
import type { Position } from '../../server/store/types';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A script that answers each uuid `u<n>` with position n and ticket 100 + n (n < 0: unknown), `served` 7, once released. */
function script() {
  const sent: string[][] = [];
  let answer: () => void = () => undefined;
  const send = (pairs: readonly string[]) =>
    new Promise<readonly number[]>((resolve) => {
      sent.push([...pairs]);
      answer = () => {
        const reply = [7];
        for (let index = 0; index < pairs.length; index += 2) {
          const n = Number(pairs[index].slice(1));
          reply.push(n, 100 + n);
        }
        resolve(reply);
      };
    });
  return { sent, send, answer: () => answer() };
}

describe("Redis positions' batch", () => {
  it("should answer a full batch's polls a slice a turn once its reply comes, each with its own position", async () => {
    const redis = script();
    const batch = new PositionBatch(redis.send);
    const answered: Array<[number, Position | undefined]> = [];
    const uuids = Array.from({ length: MAX_BATCH }, (_, index) => (index % 50 === 49 ? `u-${index}` : `u${index + 1}`));
    const polls = uuids.map((uuid, index) => batch.position(uuid, 1000 + index).then((place) => answered.push([index, place])));
    expect(redis.sent).toHaveLength(1);

    redis.answer();
    await new Promise<void>((resolve) => process.nextTick(resolve));
    await Promise.resolve();
    // The reply's turn: one slice only.
    const perTurn = [answered.length];
    while (answered.length < MAX_BATCH) {
      await turn();
      perTurn.push(answered.length - perTurn.reduce((sum, count) => sum + count, 0));
      if (perTurn.length > 100) throw new Error(`only ${answered.length} answered`);
    }
    await Promise.all(polls);

    expect(perTurn[0]).toBe(RESOLVE_SLICE);
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(RESOLVE_SLICE);
    expect(perTurn.length).toBeGreaterThanOrEqual(MAX_BATCH / RESOLVE_SLICE);
    // Each poll once, with its own answer.
    expect(answered.map(([index]) => index).sort((a, b) => a - b)).toEqual(uuids.map((_, index) => index));
    for (const [index, place] of answered) {
      const n = Number(uuids[index].slice(1));
      expect(place).toEqual(n < 0 ? undefined : { position: n, ticket: 100 + n, served: 7 });
    }
  });

  it('should send the polls that arrived meanwhile as soon as a reply comes, while its answers are still given back', async () => {
    const redis = script();
    const batch = new PositionBatch(redis.send);
    const first = Array.from({ length: MAX_BATCH }, (_, index) => batch.position(`u${index + 1}`, 1));
    await turn();
    const later = batch.position('u999', 2);
    expect(redis.sent).toHaveLength(1);

    redis.answer();
    await turn();

    expect(redis.sent).toHaveLength(2);
    expect(redis.sent[1]).toEqual(['u999', '2']);
    redis.answer();
    expect(await later).toEqual({ position: 999, ticket: 1099, served: 7 });
    expect((await Promise.all(first)).map((place) => place?.position)).toEqual(first.map((_, index) => index + 1));
  });

  it('should fail each poll of a batch whose reply holds fewer answers than polls, and go on with the next batch', async () => {
    let reply: unknown = [7, 1, 101];
    const batch = new PositionBatch(() => Promise.resolve(reply as number[]));
    const polls = ['u1', 'u2'].map((uuid) => batch.position(uuid, 1000));
    for (const poll of polls) await expect(poll).rejects.toThrow(StoreUnavailableError);
    reply = undefined;
    await expect(batch.position('u1', 1000)).rejects.toThrow('Redis answered undefined for 1 polls.');
    reply = [7, 3, 103];
    expect(await batch.position('u3', 1000)).toEqual({ position: 3, ticket: 103, served: 7 });
  });
});

describe("a batch's calls", () => {
  it('should fail the one call whose answer cannot be read, in a later slice too, and answer the others', async () => {
    const batch = new CallBatch<number, number>(
      (items) =>
        Promise.resolve((index) => {
          if (items[index] % RESOLVE_SLICE === 3) throw new Error(`no answer for ${items[index]}`);
          return items[index] * 2;
        }),
      2 * RESOLVE_SLICE,
    );
    const calls = Array.from({ length: 2 * RESOLVE_SLICE }, (_, item) => batch.call(item));
    const settled = await Promise.allSettled(calls);
    expect(settled.filter((one) => one.status === 'rejected').map((one) => String(one.reason))).toEqual([
      'Error: no answer for 3',
      `Error: no answer for ${RESOLVE_SLICE + 3}`,
    ]);
    expect(settled[4]).toEqual({ status: 'fulfilled', value: 8 });
  });
});
