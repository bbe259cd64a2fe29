import { html as namespaces, parse, type DefaultTreeAdapterMap } from 'parse5';

type Node = DefaultTreeAdapterMap['node'];
type Element = DefaultTreeAdapterMap['element'];

/**
 * The elements a room's template may hold, as a browser's parser reads them (HTML5, parse5):
 * a page's structure, text and media, tables, and inline SVG images. Not on it, and so refused:
 * `script` and everything else that runs or loads code or another document (`iframe`, `frame`,
 * `object`, `embed`, `applet`, `portal`, `noscript`, `template`), forms and their controls (they
 * would send the visitor's input somewhere), `base` (it moves every relative address), MathML,
 * and SVG's animation, `foreignObject` and `script`.
 */
const HTML_ELEMENTS = new Set(
  (
    'html head body title style link meta header footer main nav section article aside h1 h2 h3 h4 h5 h6 hgroup ' +
    'div p span a img picture source figure figcaption ul ol li dl dt dd strong em b i u s small sub sup mark abbr ' +
    'cite q blockquote code pre kbd samp var time data br hr wbr table caption thead tbody tfoot tr th td colgroup ' +
    'col details summary address bdi bdo ins del dfn ruby rt rp center font'
  ).split(' '),
);
const SVG_ELEMENTS = new Set(
  (
    'svg g path circle ellipse line polyline polygon rect text tspan textPath title desc defs linearGradient ' +
    'radialGradient stop clipPath mask symbol use pattern marker filter feGaussianBlur feOffset feBlend ' +
    'feColorMatrix feFlood feComposite feMerge feMergeNode feMorphology feDropShadow'
  ).split(' '),
);

/** Attributes any element may carry, besides `aria-*` and `data-*`. */
const GLOBAL_ATTRIBUTES = new Set(['id', 'class', 'title', 'lang', 'dir', 'hidden', 'role', 'tabindex', 'translate', 'xml:lang', 'xmlns']);
/** Those of each element (by its local name). */
const ELEMENT_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  html: ['xmlns'],
  meta: ['charset', 'name', 'content'],
  link: ['rel', 'href', 'type', 'media', 'sizes', 'crossorigin', 'referrerpolicy'],
  style: ['media', 'type'],
  a: ['href', 'rel', 'target', 'hreflang', 'type', 'download', 'referrerpolicy'],
  img: ['src', 'srcset', 'sizes', 'alt', 'width', 'height', 'loading', 'decoding', 'referrerpolicy', 'crossorigin'],
  source: ['srcset', 'sizes', 'media', 'type', 'width', 'height'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  td: ['colspan', 'rowspan', 'headers'],
  th: ['colspan', 'rowspan', 'headers', 'scope', 'abbr'],
  col: ['span'],
  colgroup: ['span'],
  time: ['datetime'],
  data: ['value'],
  del: ['datetime', 'cite'],
  ins: ['datetime', 'cite'],
  q: ['cite'],
  blockquote: ['cite'],
  details: ['open', 'name'],
  font: ['color', 'face', 'size'],
};
/** Presentation and geometry attributes of SVG (styles as attributes are not `style`: the policy allows them). */
const SVG_ATTRIBUTES = new Set(
  (
    'viewbox preserveaspectratio width height x y x1 y1 x2 y2 cx cy r rx ry d points transform fill fill-opacity ' +
    'fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit stroke-dasharray ' +
    'stroke-dashoffset stroke-opacity opacity clip-path clip-rule clippathunits mask maskunits maskcontentunits ' +
    'gradientunits gradienttransform spreadmethod offset stop-color stop-opacity fx fy fr font-family font-size ' +
    'font-style font-weight letter-spacing word-spacing text-anchor dominant-baseline alignment-baseline ' +
    'baseline-shift text-decoration dx dy rotate lengthadjust textlength startoffset method spacing side ' +
    'patternunits patterncontentunits patterntransform markerwidth markerheight markerunits refx refy orient ' +
    'vector-effect shape-rendering paint-order visibility display color focusable version href ' +
    'filter filterunits primitiveunits in in2 result stddeviation mode values type operator k1 k2 k3 k4 radius ' +
    'flood-color flood-opacity color-interpolation-filters'
  ).split(' '),
);

/** Attributes that hold an address, checked by URL_PROBLEM. */
const ADDRESS_ATTRIBUTES = new Set(['href', 'src', 'srcset', 'cite']);

/** What is wrong with an element or attribute of a template, or undefined. */
export type TemplateProblem = string;

/** Where the page's own parts go in a template (offsets in its text), as the parser found its tags. */
export interface DocumentTags {
  /** The `<html …>` start tag: from, to. */
  readonly html: readonly [number, number];
  /** Just after the `<head …>` start tag. */
  readonly headStart: number;
  /** Just after the `<body …>` start tag. */
  readonly bodyStart: number;
  /** At the `</body>` end tag. */
  readonly bodyEnd: number;
}

/**
 * Reads a room's template, once its words are placed, as a browser's HTML5 parser does (parse5):
 * where its `<html>`, `<head>`, `<body>` and `</body>` tags are, or what is wrong with it. Wrong:
 * one of those tags is not a real tag (the parser implied it, or it is inside a comment or text),
 * an element or an attribute is not on the allow lists, a script (`<script>`, an `on…` handler),
 * a `style` attribute, or an address of a scheme that runs or hides code (`javascript:`, `data:`
 * other than an image's, `blob:`…). Read as parsed, not as written, so that a word inside a tag
 * name (`<{{word:s}}>`) or an attribute without a space before it (`<img/src=x/onerror=…>`) is
 * seen for what a browser makes of it.
 */
export function readTemplate(html: string): { readonly problem: TemplateProblem } | { readonly tags: DocumentTags } {
  const document = parse(html, { sourceCodeLocationInfo: true });
  const pending: Node[] = [document];
  const found = new Map<string, Element>();
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    if (!('tagName' in node)) {
      if ('childNodes' in node) pending.push(...node.childNodes);
      continue;
    }
    const problem = elementProblem(node);
    if (problem !== undefined) return { problem: `holds ${problem}` };
    if (node.tagName === 'html' || node.tagName === 'head' || node.tagName === 'body') found.set(node.tagName, node);
    pending.push(...node.childNodes);
  }
  const start = (name: string) => found.get(name)?.sourceCodeLocation?.startTag;
  const htmlTag = start('html');
  const headTag = start('head');
  const bodyTag = start('body');
  const bodyEnd = found.get('body')?.sourceCodeLocation?.endTag;
  if (!htmlTag || !headTag || !bodyTag || !bodyEnd || !found.get('head')?.sourceCodeLocation?.endTag) {
    return { problem: 'has an <html>, <head>, </head>, <body> or </body> that is no tag of the page (inside a comment or a text, or out of place)' };
  }
  return { tags: { html: [htmlTag.startOffset, htmlTag.endOffset], headStart: headTag.endOffset, bodyStart: bodyTag.endOffset, bodyEnd: bodyEnd.startOffset } };
}

function elementProblem(element: Element): TemplateProblem | undefined {
  const name = element.tagName;
  const svg = element.namespaceURI === namespaces.NS.SVG;
  if (name === 'script') return 'a <script> element (the page runs only its own scripts)';
  const allowed = svg ? SVG_ELEMENTS.has(name) : element.namespaceURI === namespaces.NS.HTML && HTML_ELEMENTS.has(name);
  if (!allowed) return `a <${name}> element, which a template may not hold (docs/own-page.md lists those it may)`;
  for (const attribute of element.attrs) {
    const attributeName = (attribute.prefix ? `${attribute.prefix}:${attribute.name}` : attribute.name).toLowerCase();
    const problem = attributeProblem(name, svg, attributeName, attribute.value);
    if (problem !== undefined) return problem;
  }
  if (
    name === 'meta' &&
    element.attrs.some(({ name: attribute }) => attribute === 'name') !== element.attrs.some(({ name: attribute }) => attribute === 'content')
  ) {
    return 'a <meta> element with a name and no content, or content and no name';
  }
  if (name === 'link' && !/^(stylesheet|icon|preload|prefetch|canonical|alternate|manifest|apple-touch-icon)( |$)/i.test(valueOf(element, 'rel') ?? '')) {
    return `a <link rel="${valueOf(element, 'rel') ?? ''}">, which a template may not hold`;
  }
  return undefined;
}

function attributeProblem(element: string, svg: boolean, name: string, value: string): TemplateProblem | undefined {
  if (name.startsWith('on')) return 'an event handler attribute (on…=; the page runs only its own scripts)';
  if (name === 'style') return 'a style attribute (put styles in a <style> element: the page allows those by hash)';
  const allowed =
    GLOBAL_ATTRIBUTES.has(name) ||
    /^aria-[a-z-]+$/.test(name) ||
    /^data-[a-z0-9._-]+$/.test(name) ||
    (svg ? SVG_ATTRIBUTES.has(name) || name === 'xlink:href' || name === 'xmlns:xlink' : (ELEMENT_ATTRIBUTES[element]?.includes(name) ?? false));
  if (!allowed) return `a ${name} attribute on <${element}>, which a template may not hold (docs/own-page.md lists those it may)`;
  if (svg && (name === 'href' || name === 'xlink:href') && !value.trim().startsWith('#')) {
    return `an SVG ${name} to "${value}": inline SVG may name only its own parts (#id)`;
  }
  if (ADDRESS_ATTRIBUTES.has(name)) {
    const addresses = name === 'srcset' ? value.split(',').map((candidate) => candidate.trim().split(/\s+/)[0] ?? '') : [value];
    for (const address of addresses) {
      const problem = addressProblem(address, element === 'img' && name === 'src');
      if (problem !== undefined) return `${problem} in the ${name} of <${element}>`;
    }
  }
  if (element === 'a' && name === 'target' && !/^_(blank|self|top|parent)$/i.test(value)) return `a link to the named window "${value}"`;
  return undefined;
}

/** Schemes an address of a template may use; a relative one has none. */
const SAFE_SCHEMES = new Set(['http', 'https', 'mailto', 'tel']);

/**
 * What is wrong with an address, as a browser reads it (tabs, new lines and leading controls are
 * dropped from a URL before its scheme is read), or undefined: only http(s), mailto and tel
 * addresses, relative ones, and for an image `data:image/…`.
 */
function addressProblem(address: string, image: boolean): string | undefined {
  // eslint-disable-next-line no-control-regex -- a URL parser drops these, so `java\tscript:` is `javascript:`
  const read = address.replace(/[\u0000-\u0020]/g, '').toLowerCase();
  const scheme = /^([a-z][a-z0-9+.-]*):/.exec(read)?.[1];
  if (scheme === undefined || SAFE_SCHEMES.has(scheme)) return undefined;
  if (scheme === 'data' && image && /^data:image\/(png|gif|jpeg|webp|avif|svg\+xml)[;,]/.test(read)) return undefined;
  return `a ${scheme}: address`;
}

function valueOf(element: Element, name: string): string | undefined {
  return element.attrs.find((attribute) => attribute.name === name)?.value;
}
