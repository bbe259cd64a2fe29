import { PartedLine } from '../../server/store/redis/parted-line';
import { partOf } from '../../server/domain/lanes';
import type { Entry, HeldRequest, ReleasePolicy } from '../../server/store/types';
import { eventually } from '../support/eventually';
import { describeCodes } from './store-codes-contract';

const get: HeldRequest = { method: 'GET', uri: '/checkout?item=42' };
const policy: ReleasePolicy = { activeLimit: 1000, sessionMs: 300_000, perMinute: 600, abandonMs: 180_000 };
const t0 = 1_800_000_000_000;
const PARTS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One room's line split in parts (`PartedLine`), on whatever Redis `open` reaches: one order of
 * arrival over the parts, positions counted over them, releases cut over them. `open(room)` gives
 * an instance of room `room`'s line; two of the same room are two gateways sharing it.
 */
export function describePartedLine(name: string, open: (room: string) => PartedLine): void {
  describe(`one room's line split in ${PARTS} parts, ${name}`, () => {
    let rooms = 0;
    let line: PartedLine;
    let room: string;
    beforeEach(() => {
      room = `parted${++rooms}`;
      line = open(room);
    });

    /**
     * Holds sessions one after the other, each in a later millisecond of Redis's clock than the one
     * before: tickets of two parts taken within one millisecond are ordered by part, not by arrival.
     */
    const holdInOrder = async (sessions: readonly string[], on = line): Promise<Entry[]> => {
      const entries: Entry[] = [];
      for (const session of sessions) {
        entries.push(await on.hold(session, 0, get, t0));
        await sleep(3);
      }
      return entries;
    };
    describeCodes(() => line);

    const sessions = (count: number) => Array.from({ length: count }, (_, i) => `${room}-session-${i}`);
    /** Sessions whose places fall in the parts given, in that order. */
    const sessionsIn = (parts: readonly number[]) => {
      let n = 0;
      return parts.map((part) => {
        for (;;) {
          const session = `${room}-in-${n++}`;
          if (partOf(session, PARTS) === part) return session;
        }
      });
    };
    const positionsOf = (entries: readonly Entry[], on = line) => Promise.all(entries.map(async (entry) => (await on.position(entry.uuid, t0))?.position));

    it('should keep each place in its session’s part, in one order of tickets over the parts', async () => {
      const held = await holdInOrder(sessions(12));
      const parts = held.map((entry) => partOf(entry.sessionId, PARTS));
      expect(new Set(parts).size).toBe(PARTS);
      expect(held.map((entry) => partOf(entry.uuid, PARTS))).toEqual(parts);
      const tickets = held.map((entry) => entry.ticket);
      expect(tickets).toEqual([...tickets].sort((a, b) => a - b));
      expect(new Set(tickets).size).toBe(tickets.length);

      const again = await line.hold(held[4].sessionId, 0, get, t0 + 1);
      expect({ uuid: again.uuid, ticket: again.ticket }).toEqual({ uuid: held[4].uuid, ticket: held[4].ticket });
      expect((await line.stats(t0)).waiting).toBe(12);
    });

    it('should rank each place among those waiting in every part, in the order they came', async () => {
      const held = await holdInOrder(sessions(9));
      expect(await positionsOf(held)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('should release the earliest over every part, each once, and move the others up', async () => {
      const held = await holdInOrder(sessions(10));
      const { released } = await line.release(4, t0 + 10, policy);
      expect(released.map((entry) => entry.uuid)).toEqual(held.slice(0, 4).map((entry) => entry.uuid));
      expect(released.every((entry) => entry.state === 'released')).toBe(true);
      expect(await positionsOf(held)).toEqual([0, 0, 0, 0, 1, 2, 3, 4, 5, 6]);
      expect((await line.release(100, t0 + 20, policy)).released.map((entry) => entry.uuid)).toEqual(held.slice(4).map((entry) => entry.uuid));
      expect((await line.release(1, t0 + 30, policy)).released).toEqual([]);
    });

    it('should release each place once, the earliest first, when several instances release at once', async () => {
      // The earliest three in the first part: releases that read the same heads cut there, and
      // the later ones of that part are not released before the earlier ones of the others.
      const held = await holdInOrder(sessionsIn([0, 0, 0, 1, 1, 2, 2, 0, 1, 2, 0, 0, 1, 2, 2]));
      const other = open(room);
      const steps = await Promise.all([1, 2, 3, 4].map((turn) => (turn % 2 === 0 ? line : other).release(3, t0 + turn, policy)));
      const released = steps.flatMap((step) => step.released).map((entry) => entry.uuid);
      expect(new Set(released).size).toBe(released.length);
      // Whatever their cuts, no place waits with an earlier ticket than one released.
      const order = held.map((entry) => entry.uuid);
      expect(new Set(released)).toEqual(new Set(order.slice(0, released.length)));
      expect(released.length).toBeGreaterThanOrEqual(3);
      expect(released.length).toBeLessThanOrEqual(12);
      // This instance's copies hear of the other's releases within their reads' spacing.
      const ranks = held.slice(released.length).map((_, i) => i + 1);
      const settled = (told: (number | undefined)[]) => told.every((position, i) => position === ranks[i]);
      expect(await eventually('the releases heard', () => positionsOf(held.slice(released.length)), settled, 5000)).toEqual(ranks);
    });

    it('should never tell a place a larger position while others arrive in every part and the earliest leave', async () => {
      const held = await holdInOrder(sessions(6));
      const told = new Map<string, number[]>();
      let arriving = true;
      const arrivals = (async () => {
        for (let i = 0; arriving; i++) {
          await line.hold(`${room}-late-${i}`, 0, get, t0);
          await sleep(1);
        }
      })();
      const other = open(room);
      for (let turn = 0; turn < 12; turn++) {
        if (turn % 3 === 0) await other.release(1, t0 + turn, policy);
        for (const entry of held) {
          const position = (await other.position(entry.uuid, t0 + turn))?.position;
          if (position !== undefined) told.set(entry.uuid, [...(told.get(entry.uuid) ?? []), position]);
        }
      }
      arriving = false;
      await arrivals;
      for (const entry of held) {
        const seen = told.get(entry.uuid) ?? [];
        expect({ uuid: entry.uuid, seen }).toEqual({ uuid: entry.uuid, seen: [...seen].sort((a, b) => b - a) });
      }
      expect(told.get(held[5].uuid)?.at(-1)).toBe(2);
    });

    it("should release on the loop at the room's pace, the earliest over every part first, within the active limit over them all", async () => {
      const held = await holdInOrder(sessions(7));
      const paced = { ...policy, activeLimit: 4, perMinute: 60 };
      const released: string[][] = [];
      for (let step = 0; step < 6; step++) released.push((await line.releaseDue(t0 + step * 1000, paced)).released.map((entry) => entry.uuid));
      expect(released).toEqual([...held.slice(0, 4).map((entry) => [entry.uuid]), [], []]);
      expect((await line.stats(t0 + 6000)).active).toBe(4);
      expect(await positionsOf(held.slice(4))).toEqual([1, 2, 3]);
    });

    it('should drop the places silent past the away time in every part, and move those behind up', async () => {
      const held = await holdInOrder(sessions(6));
      for (const entry of held.slice(3)) await line.position(entry.uuid, t0 + 100_000);
      expect(await line.dropAbandoned(t0 + policy.abandonMs + 50_000, policy.abandonMs)).toBe(3);
      expect(await positionsOf(held.slice(3))).toEqual([1, 2, 3]);
      expect((await line.stats(t0)).waiting).toBe(3);
    });
  });
}
