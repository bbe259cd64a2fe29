import type { Page } from 'playwright-core';

/**
 * What of the page is cut or overflows: every visible element whose content is wider than its
 * box (scrollWidth past clientWidth), or that reaches outside the viewport's width, each named by
 * its tag, class and the start of its text. Empty when nothing is. Half a pixel of rounding is
 * allowed; elements that clip on purpose (`overflow: hidden`, e.g. a screen reader's region) are
 * judged by their box only.
 */
export function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    const name = (element: Element) =>
      `${element.tagName.toLowerCase()}${element.className && typeof element.className == 'string' ? `.${element.className.split(' ').join('.')}` : ''} "${(element.textContent ?? '').trim().slice(0, 40)}"`;
    if (document.documentElement.scrollWidth > width) found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} > ${width}`);
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      const style = getComputedStyle(element);
      if (style.display === 'none' || style.visibility === 'hidden' || ['SCRIPT', 'STYLE', 'TEMPLATE', 'OPTION'].includes(element.tagName)) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      // A region only screen readers hear is a 1 px box that clips by design.
      if (box.width <= 1 && box.height <= 1) continue;
      if (box.left < -0.5 || box.right > width + 0.5)
        found.push(`${name(element)} reaches outside the viewport: ${Math.round(box.left)}..${Math.round(box.right)} of ${width}`);
      if (element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0) {
        found.push(`${name(element)} is wider than its box: ${element.scrollWidth} > ${element.clientWidth}`);
      }
    }
    return found;
  });
}
