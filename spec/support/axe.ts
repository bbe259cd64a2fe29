import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';

/**
 * axe-core's findings on a page, as short lines that say what and where (empty when there are
 * none). axe runs in its legacy mode, in the page itself: the default mode also opens a blank page
 * per analysis to merge the frames' results, twice the CPU for a page without frames, and a
 * waiting page has none, which is checked. Only the violations are gathered, the only thing read.
 */
export async function violations(page: Page): Promise<string[]> {
  const frames = page.frames().map((frame) => frame.url());
  if (frames.length > 1) throw new Error(`axe's legacy mode checks the top frame only, and this page has frames: ${frames.join(', ')}`);
  const { violations: found } = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ['violations'] })
    .analyze();
  return found.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} — ${node.failureSummary ?? ''}`));
}
