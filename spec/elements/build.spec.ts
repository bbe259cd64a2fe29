/**
 * @jest-environment node
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Message, Messages } from '@waiting-room/streams/contract';
import { ELEMENT_MESSAGES } from '../../elements/texts';
import { CATALOGUES, LOCALES } from '../../locales';
import { ELEMENTS_ENTRY } from '../../server/http/page';

const ROOT = path.join(__dirname, '../..');

interface Sizes {
  readonly gzip: number;
  readonly files: ReadonlyArray<{ readonly file: string; readonly gzip: number }>;
  readonly budget: { readonly gzip: number };
  readonly withinBudget: boolean;
}

describe('build: the bundle of <waiting-room-status> and heldFetch()', () => {
  let outdir: string;
  let sizes: Sizes;

  beforeAll(() => {
    outdir = mkdtempSync(path.join(tmpdir(), 'waiting-room-elements-'));
    const script = `import('./build.mjs').then((m) => m.buildElements({ outdir: ${JSON.stringify(outdir)} }))`;
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, stdio: 'pipe' });
    sizes = JSON.parse(readFileSync(path.join(outdir, 'elements-size.json'), 'utf8'));
  }, 120_000);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const read = (file: string) => readFileSync(path.join(outdir, file), 'utf8');

  it('should be loaded from a stable address that re-exports one content-hashed bundle', () => {
    // Read by the name the server gives the shop: the name the build writes.
    const bundle = /^export \* from '\.\/(waiting-room-[A-Z0-9]{8}\.js)';\n$/.exec(read(ELEMENTS_ENTRY))?.[1];
    expect(bundle).toBeDefined();
    expect(sizes.files.map((file) => file.file)).toEqual(['waiting-room.js', bundle]);
    // Beside them, the bot check's worker, which heldFetch() starts only for a held answer with a challenge.
    expect(
      readdirSync(outdir)
        .filter((file) => file.endsWith('.js'))
        .sort(),
    ).toEqual([expect.stringMatching(/^altcha-worker-[A-Z0-9]+\.js$/), bundle, 'waiting-room.js'].sort());
    // One file: no chunk for the browser to fetch after it.
    expect(read(bundle as string)).not.toMatch(/\bimport\s*\(|\bfrom\s*"\.\//);
  });

  it('should keep its loader and bundle within the gzipped budget docs/clients.md states', () => {
    expect(sizes.gzip).toBe(sizes.files.reduce((sum, file) => sum + file.gzip, 0));
    expect(sizes.gzip).toBeLessThanOrEqual(sizes.budget.gzip);
    expect(sizes.withinBudget).toBe(true);
    const clients = readFileSync(path.join(ROOT, 'docs', 'clients.md'), 'utf8');
    expect(clients).toContain(`within ${sizes.budget.gzip / 1024} KB gzipped`);
  });

  it('should hold the stream core and pusher-js, built from its sources, and nothing of React', () => {
    const bundle = sizes.files[1]?.file;
    const sources: string[] = JSON.parse(read(`${bundle}.map`)).sources;
    expect(sources).toContainEqual(expect.stringMatching(/streams\/create-queue\.ts$/));
    expect(sources).toContainEqual(expect.stringMatching(/node_modules\/pusher-js\/src\/core\/pusher\.ts$/));
    expect(sources.filter((source) => /node_modules\/(react|react-dom|observable-hooks|@sentry)\//.test(source))).toEqual([]);
    expect(sources.filter((source) => /(^|\/)src\//.test(source) && !source.includes('node_modules'))).toEqual([]);
  });

  it('should define the element and export heldFetch', () => {
    const bundle = read(sizes.files[1]?.file);
    expect(bundle).toContain('"waiting-room-status"');
    expect(bundle).toMatch(/export\s*\{[^}]*\bheldFetch\b/);
  });

  it("should carry the element's English from the catalogue, and no other message nor any other language", () => {
    const bundle = read(sizes.files[1]?.file);
    // Every double-quoted string of the minified bundle, as the program sees it.
    const strings = new Set(
      [...bundle.matchAll(/"(?:[^"\\\n]|\\.)*"/g)].flatMap(([literal]) => {
        try {
          return [JSON.parse(literal) as string];
        } catch {
          return [];
        }
      }),
    );
    const inBundle = (message: Message) => (typeof message == 'string' ? [message] : Object.values(message)).some((text) => strings.has(text ?? ''));
    const built = Object.entries(CATALOGUES.en.messages)
      .filter(([, message]) => inBundle(message))
      .map(([key]) => key);
    expect(built.sort()).toEqual(Object.keys(ELEMENT_MESSAGES).sort());
    for (const locale of LOCALES.filter((each) => each != 'en')) {
      const messages: Messages = CATALOGUES[locale].messages;
      const english: Messages = CATALOGUES.en.messages;
      expect(Object.keys(messages).filter((key) => messages[key] !== english[key] && inBundle(messages[key] ?? ''))).toEqual([]);
    }
  });
});

describe('the second front end imports the package by its name, the contract, pusher-js, rxjs and the bot check’s solver only', () => {
  const dir = path.join(ROOT, 'elements');
  const files = readdirSync(dir).filter((file) => file.endsWith('.ts'));

  it.each(files)('%s', (file) => {
    const code = readFileSync(path.join(dir, file), 'utf8');
    const imported = [...code.matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gms)].map((match) => match[1]);
    // The catalogue's English only (texts.ts: the element's messages of it, built in).
    expect(
      imported.filter(
        (name) => !/^(\.\/[\w-]+|@waiting-room\/streams(\/contract)?|pusher-js|rxjs|\.\.\/locales\/en\.json|\.\.\/bot-check\/solve)$/.test(name ?? ''),
      ),
    ).toEqual([]);
  });
});
