/**
 * The relative links of Markdown files, and whether each resolves: to a file or folder that
 * exists, and, with a `#fragment`, to a heading of that Markdown file (its anchor as GitHub
 * writes it, github-slugger being GitHub's own algorithm) or to an `id`/`name` of its HTML.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';

type Token = MarkdownIt.Token;

export interface Link {
  /** The file the link is written in. */
  file: string;
  /** As written: `docs/gateway.md#rooms`, `#limits`, `screenshots/waiting-phone.png`. */
  href: string;
  line: number;
}

export interface BrokenLink extends Link {
  problem: string;
}

const markdown = new MarkdownIt({ html: true });

/** A scheme (`https:`, `mailto:`) or a network path (`//host`): not this repository's to check. */
const OUTSIDE = /^([a-z][a-z0-9+.-]*:|\/\/)/i;

function parse(file: string): Token[] {
  return markdown.parse(readFileSync(file, 'utf8'), {});
}

/** What a heading reads as once rendered: its text and code, without markup or HTML tags. */
function headingText(inline: Token | undefined): string {
  return (inline?.children ?? [])
    .map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : child.type === 'image' ? headingText(child) : ''))
    .join('');
}

function htmlOf(tokens: Token[]): string[] {
  return tokens.flatMap((token) => [...(token.type === 'html_block' || token.type === 'html_inline' ? [token.content] : []), ...htmlOf(token.children ?? [])]);
}

/** Every anchor a link may name in `file`: its headings' slugs, and its HTML's ids and names. */
export function anchorsOf(file: string): Set<string> {
  const tokens = parse(file);
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  tokens.forEach((token, index) => {
    if (token.type === 'heading_open') anchors.add(slugger.slug(headingText(tokens[index + 1])));
  });
  for (const html of htmlOf(tokens)) {
    for (const [, anchor] of html.matchAll(/\s(?:id|name)\s*=\s*["']([^"']+)["']/g)) anchors.add(anchor);
  }
  return anchors;
}

/**
 * The relative links and images of `file`, code blocks and code spans left out; each with the
 * line its paragraph (or table row) starts on.
 */
export function linksOf(file: string): Link[] {
  const links: Link[] = [];
  const walk = (tokens: Token[], line: number) => {
    let at = line;
    for (const token of tokens) {
      if (token.map) at = token.map[0] + 1;
      const href = token.type === 'link_open' ? token.attrGet('href') : token.type === 'image' ? token.attrGet('src') : null;
      if (href !== null) links.push({ file, href: String(href), line: at });
      if (token.type === 'html_block' || token.type === 'html_inline') {
        for (const [, found] of token.content.matchAll(/\s(?:href|src)\s*=\s*["']([^"']+)["']/g)) links.push({ file, href: found, line: at });
      }
      walk(token.children ?? [], at);
    }
  };
  walk(parse(file), 1);
  return links.filter((link) => !OUTSIDE.test(link.href));
}

/** The links of `files` that do not resolve, each with what is wrong. */
export function brokenLinks(files: string[]): BrokenLink[] {
  const anchors = new Map<string, Set<string>>();
  const anchorsAt = (file: string) => anchors.get(file) ?? anchors.set(file, anchorsOf(file)).get(file)!;
  return files.flatMap((file) =>
    linksOf(file).flatMap((link): BrokenLink[] => {
      const hash = link.href.indexOf('#');
      const target = decodeURI(hash === -1 ? link.href : link.href.slice(0, hash));
      const fragment = hash === -1 ? undefined : decodeURIComponent(link.href.slice(hash + 1));
      const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
      if (!existsSync(resolved)) return [{ ...link, problem: `no file ${path.relative(path.dirname(file), resolved)}` }];
      if (fragment === undefined) return [];
      if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return [{ ...link, problem: `#${fragment} in a file that has no headings` }];
      if (!anchorsAt(resolved).has(fragment)) return [{ ...link, problem: `no heading #${fragment} in ${path.basename(resolved)}` }];
      return [];
    }),
  );
}
