import { readFileSync } from 'node:fs';
import path from 'node:path';
import { END, OPENING_END, OPENING_START, figuresMarkdown, openingFigures, START, withFigures } from '../../bench/performance-figures';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe("docs/performance.md's server figures", () => {
  it('should be those bench/performance-figures.ts writes from bench/results/latest.json, never edited by hand', () => {
    const page = read('docs/performance.md');
    const latest = JSON.parse(read('bench/results/latest.json'));

    expect(page).toContain(START);
    expect(page).toContain(END);
    expect(page).toBe(withFigures(page, figuresMarkdown(latest)));
  });

  it('should name the run it compares with, which the repository keeps as bench/results/baseline.json', () => {
    const latest = JSON.parse(read('bench/results/latest.json'));
    const baseline = JSON.parse(read('bench/results/baseline.json'));

    expect(latest.previousRun.date).toBe(baseline.date);
    expect(read('docs/performance.md')).toContain(`the run of ${baseline.date.replace('T', ' ').slice(0, 16)} UTC (\`bench/results/baseline.json\`)`);
  });

  it('should show the opening bursts as bench/performance-figures.ts writes them from bench/results/opening.json', () => {
    const page = read('docs/performance.md');
    const saved = JSON.parse(read('bench/results/opening.json'));

    expect(page).toContain(OPENING_START);
    expect(page).toBe(withFigures(page, openingFigures(saved), [OPENING_START, OPENING_END]));
  });

  it('should refuse to write into a page without its markers', () => {
    expect(() => withFigures('# Performance\n', 'figures')).toThrow(/No .* block to write the figures into/);
  });
});
