import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const CONSUMER = path.join(__dirname, 'consumer');

/** The ```ts blocks of a Markdown file. */
const blocksOf = (file: string): string[] => [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

describe('the examples shown are the ones type-checked and run', () => {
  // package.spec.ts type-checks these files against the installed tarball at the strictest
  // settings; e2e/package-front-end.spec.ts bundles and runs them in Chromium.
  it.each([
    ['streams/README.md', 'queue-sources.ts'],
    ['streams/README.md', 'waiting-page.ts'],
    ['streams/README.md', 'held-fetch.ts'],
    ['docs/package.md', 'short-client.ts'],
  ])('%s should show %s as it is', (readme, example) => {
    expect(blocksOf(readme)).toContain(readFileSync(path.join(CONSUMER, example), 'utf8'));
  });

  it("should show the adapter first in the package's README", () => {
    expect(blocksOf('streams/README.md')[0]).toBe(readFileSync(path.join(CONSUMER, 'queue-sources.ts'), 'utf8'));
  });
});
