import { PAGE_BLOCKS, PAGE_BLOCK_ATTRIBUTE, PAGE_WORDS_ELEMENT_ID, PAGE_WORD_ATTRIBUTE, type PageBlock, type PageWords } from './page-blocks';

/** The elements a room's own page placed for its blocks (docs/own-page.md). */
export interface BlockSlots {
  readonly elements: Readonly<Partial<Record<PageBlock, Element>>>;
  /** Removes what the server wrote in them (the static loading block), once the view's own is in. */
  clearStatic(): void;
  /** Writes the operator's words in `locale` (or the room's fallback language), after a switch of language. */
  showWords(locale: string): void;
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
  const given = wordsOf(doc);
  return {
    elements,
    clearStatic: () => written.forEach((node) => node.parentNode?.removeChild(node)),
    showWords(locale) {
      if (!given) return;
      for (const element of doc.querySelectorAll(`[${PAGE_WORD_ATTRIBUTE}]`)) {
        const name = element.getAttribute(PAGE_WORD_ATTRIBUTE) ?? '';
        const word = given.words[locale]?.[name] ?? given.words[given.fallback]?.[name];
        if (typeof word == 'string' && element.textContent != word) element.textContent = word;
      }
    },
  };
}

/** The operator's words the server put in the page; none when they are missing or unreadable (the words written stay). */
function wordsOf(doc: Document): PageWords | undefined {
  try {
    const words = JSON.parse(doc.getElementById(PAGE_WORDS_ELEMENT_ID)?.textContent ?? '') as PageWords;
    return typeof words == 'object' && words !== null && typeof words.words == 'object' ? words : undefined;
  } catch {
    return undefined;
  }
}
