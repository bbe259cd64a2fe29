import { readFileSync } from 'node:fs';
import path from 'node:path';
import { withFigures } from '../../bench/performance-figures';
import { SIZING_END, SIZING_START, perVisitorCosts, sizeRoom, sizingMarkdown } from '../../bench/sizing';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const results = (file: string) => JSON.parse(read(`bench/results/${file}`));

describe("docs/capacity.md's sizing", () => {
  it('should be the table bench/sizing.ts computes from the committed results, never edited by hand', () => {
    const page = read('docs/capacity.md');

    expect(page).toContain(SIZING_START);
    expect(page).toContain(SIZING_END);
    expect(page).toBe(withFigures(page, sizingMarkdown(results('latest.json'), results('arrivals.json')), [SIZING_START, SIZING_END]));
  });

  it('should grow with the crowd: more processes, never more than 19,000 sockets each, and the copy of the line in each', () => {
    const costs = perVisitorCosts(results('latest.json'), results('arrivals.json'));
    const [small, large] = [sizeRoom(100_000, costs), sizeRoom(10_000_000, costs)];

    expect(large.processes).toBeGreaterThan(small.processes * 50);
    expect(small.socketsPerProcess).toBeLessThanOrEqual(19_000);
    expect(large.socketsPerProcess).toBeLessThanOrEqual(19_000);
    expect(large.processBytes).toBeGreaterThan(10_000_000 * 100);
    expect(large.redisShards).toBeGreaterThan(1);
  });
});
