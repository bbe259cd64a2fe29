/**
 * Writes bench/results/latest.md again from latest.json, after a change to the summary's
 * wording, without running the benchmarks: `node --import tsx bench/render.ts`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderMarkdown, type BenchResults } from './report';

const dir = path.join(__dirname, 'results');
const results = JSON.parse(readFileSync(path.join(dir, 'latest.json'), 'utf8')) as BenchResults;
writeFileSync(path.join(dir, 'latest.md'), renderMarkdown(results));
console.log('written: bench/results/latest.md');
