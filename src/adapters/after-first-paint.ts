import { asyncScheduler } from 'rxjs';

/**
 * Runs `run` in the task after the next frame, i.e. once the page has painted. A hidden tab
 * paints no frames, so there it runs in the next task instead.
 */
export function afterFirstPaint(run: () => void, doc: Document = document): void {
  const later = () => void asyncScheduler.schedule(run);
  if (doc.visibilityState == 'hidden') later();
  else requestAnimationFrame(later);
}
