import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

describe("the package's README", () => {
  it('should show the complete pusher-js example that `npm run typecheck` checks, as it is', () => {
    const readme = readFileSync(path.join(ROOT, 'streams/README.md'), 'utf8');
    const example = readFileSync(path.join(__dirname, 'pusher-js-example.ts'), 'utf8');
    // The file less its opening comment, which says where it is shown.
    const code = example.slice(example.indexOf('import '));
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]);

    expect(blocks).toContain(code);
  });
});
