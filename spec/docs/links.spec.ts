import { mkdtempSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { anchorsOf, brokenLinks, linksOf } from './markdown-links';

const ROOT = path.resolve(__dirname, '../..');

/** The Markdown a reader follows links through: the README, every page of docs/, and the other folders' READMEs. */
function documentation(): string[] {
  const docs = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? docs(path.join(dir, entry.name)) : entry.name.endsWith('.md') ? [path.join(dir, entry.name)] : [],
    );
  return [
    path.join(ROOT, 'README.md'),
    ...docs(path.join(ROOT, 'docs')),
    ...['streams/README.md', 'bench/README.md', 'demo/README.md'].map((file) => path.join(ROOT, file)),
  ];
}

describe('links in the documentation', () => {
  const files = documentation();

  it.each(files.map((file) => [path.relative(ROOT, file)]))('should resolve every relative link and anchor of %s', (file) => {
    const broken = brokenLinks([path.join(ROOT, file)]).map((link) => `${file}:${link.line} ${link.href}: ${link.problem}`);
    expect(broken).toEqual([]);
  });

  it('should find the links it checks', () => {
    const readme = linksOf(path.join(ROOT, 'README.md')).map((link) => link.href);
    expect(readme).toContain('docs/getting-started.md');
    expect(readme).toContain('docs/screenshots/waiting-desktop.png');
  });
});

describe('the link check', () => {
  let dir: string;
  const write = (file: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  };
  const problems = (file: string) => brokenLinks([path.join(dir, file)]).map((link) => `${link.line} ${link.href}: ${link.problem}`);

  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'links-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('should report a link to a file that does not exist, and a heading that is not there', () => {
    write('docs/gateway.md', '# Gateway\n\n## Behind nginx\n');
    write(
      'README.md',
      [
        '# Title',
        '',
        'See [the gateway](docs/gateway.md), [nginx](docs/gateway.md#behind-nginx) and [the title](#title).',
        '',
        'Moved: [configuration](docs/configuration.md), [Caddy](docs/gateway.md#behind-caddy), [gone](#limits).',
        '',
        '| a | picture |',
        '| --- | --- |',
        '| one | ![a picture](docs/screenshots/none.png) |',
      ].join('\n'),
    );

    expect(problems('README.md')).toEqual([
      '5 docs/configuration.md: no file docs/configuration.md',
      '5 docs/gateway.md#behind-caddy: no heading #behind-caddy in gateway.md',
      '5 #limits: no heading #limits in README.md',
      '9 docs/screenshots/none.png: no file docs/screenshots/none.png',
    ]);
  });

  it('should read anchors as GitHub writes them: code, punctuation and repeated headings', () => {
    write(
      'page.md',
      [
        '## A single-page app: `heldFetch()` and `<waiting-room-status>`',
        '## The line moves in real time (`App.Queue`, `QueueMoved`)',
        '## Limits',
        '### Limits',
        '<a id="kept"></a>',
        '```md',
        '## Not a heading',
        '[not a link](nowhere.md)',
        '```',
      ].join('\n'),
    );

    expect([...anchorsOf(path.join(dir, 'page.md'))]).toEqual([
      'a-single-page-app-heldfetch-and-waiting-room-status',
      'the-line-moves-in-real-time-appqueue-queuemoved',
      'limits',
      'limits-1',
      'kept',
    ]);
    expect(linksOf(path.join(dir, 'page.md'))).toEqual([]);
  });

  it('should leave addresses outside the repository alone', () => {
    write('README.md', 'Open [the shop](http://127.0.0.1:8080/), [ALTCHA](https://altcha.org) or [mail](mailto:a@example.com).\n');

    expect(problems('README.md')).toEqual([]);
  });
});
