import { PAGE_BLOCKS, PAGE_BLOCK_ATTRIBUTE, type PageBlock } from './page-blocks';

/** The elements a room's own page placed for its blocks (docs/own-page.md). */
export interface BlockSlots {
  readonly elements: Readonly<Partial<Record<PageBlock, Element>>>;
  /** Removes what the server wrote in them (the static loading block), once the view's own is in. */
  clearStatic(): void;
}

/**
 * The block elements of `doc`, with what they hold now (the server's static markup); undefined
 * on the default page, which has none.
 */
export function findBlockSlots(doc: Document): BlockSlots | undefined {
  const found = [...doc.querySelectorAll(`[${PAGE_BLOCK_ATTRIBUTE}]`)];
  if (found.length == 0) return undefined;
  const elements: Partial<Record<PageBlock, Element>> = {};
  for (const element of found) {
    const block = element.getAttribute(PAGE_BLOCK_ATTRIBUTE) as PageBlock;
    if (PAGE_BLOCKS.includes(block)) elements[block] = element;
  }
  const written = found.flatMap((element) => [...element.childNodes]);
  return { elements, clearStatic: () => written.forEach((node) => node.parentNode?.removeChild(node)) };
}
