import { filter, fromEvent, merge, type Observable } from 'rxjs';

/**
 * The signs that the visitor is back on the page, as the browser gives them: the page shown again
 * (`visibilitychange` to visible), resumed from frozen (`resume`, Page Lifecycle), restored from
 * the back-forward cache (`pageshow` with `persisted`), the network back (`online`). A return
 * often brings several; the stream core counts them as one (`comeBack`).
 */
export function backSignals(win: Window): Observable<Event> {
  const doc = win.document;
  return merge(
    fromEvent(doc, 'visibilitychange').pipe(filter(() => doc.visibilityState === 'visible')),
    fromEvent(doc, 'resume'),
    fromEvent<PageTransitionEvent>(win, 'pageshow').pipe(filter((event) => event.persisted)),
    fromEvent(win, 'online'),
  );
}
