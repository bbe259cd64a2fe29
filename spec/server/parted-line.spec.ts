import { PartedLine } from '../../server/store/redis/parted-line';
import { partPrefix } from '../../server/store/redis/parts';
import { startRedisServer, type RedisServer } from '../support/redis-server';
import { describePartedLine } from './parted-line-contract';

let server: RedisServer;
const opened: PartedLine[] = [];
beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  await Promise.all(opened.splice(0).map((line) => line.close()));
});
afterAll(async () => {
  await server?.close();
});

// The parts on one Redis: the order, the ranks and the cuts; spec/server/redis-cluster.spec.ts
// runs the same on three primaries.
describePartedLine('on one Redis', (room) => {
  const line = new PartedLine(server.url, 3, { prefix: `${room}:` });
  opened.push(line);
  return line;
});

describe("a part's prefix", () => {
  it('should name the part at its end, inside the hash tag with a number that puts it in its share of the slots', () => {
    expect(partPrefix('wr:', 1, 3)).toBe('wr~1/3:');
    expect(partPrefix('wr:shop:', 2, 3)).toBe('wr:shop~2/3:');
    expect(partPrefix('wr:{shop}:', 0, 3)).toMatch(/^wr:\{shop~0\/3\.\d+\}:$/);
  });

  it('should refuse a count of parts out of range, and a prefix the scripts could not read', () => {
    expect(() => partPrefix('wr:', 0, 0)).toThrow('1 to 64 parts');
    expect(() => partPrefix('wr:', 0, 65)).toThrow('1 to 64 parts');
    expect(() => partPrefix('wr:', 3, 3)).toThrow('Part 3 is not one of 3');
    expect(() => partPrefix('wr', 0, 3)).toThrow("ends with ':'");
  });
});
