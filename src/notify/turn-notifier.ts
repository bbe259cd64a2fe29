/**
 * The system notifications a visitor asked for with "tell me when it is my turn": one when their
 * place first reaches `NEAR` or less, one at their release. Loaded only once they asked and the
 * browser allowed it, from a file of its own that imports nothing the page bundles (it reads the
 * status stream through the stream's own `subscribe`). It never delays anything: the replay runs
 * on the release as it always does, and this notification is shown in the same moment, before the
 * page navigates.
 */
import type { Observable, Unsubscribable } from 'rxjs';
import type { QueueStatus } from '@waiting-room/streams';
import type { Texts } from '../i18n/texts';

/** The place from which the visitor is told their turn is near. */
export const NEAR = 3;

/** Shows one notification (`new Notification` in a browser). */
export type ShowNotification = (title: string, options: NotificationOptions) => void;

/** Starts the notifications; the type of `notifyTurn`. */
export type NotifyTurn = (queue$: Observable<QueueStatus>, texts: () => Texts, show: ShowNotification) => Unsubscribable;

/**
 * Notifies once when a waiting position is first `NEAR` or less, and once at the release; then
 * stops listening. A notification the browser refuses to show (Chrome for Android allows them
 * only from a service worker) is given up: the tab title still carries the place.
 */
export const notifyTurn: NotifyTurn = (queue$, texts, show) => {
  let near = false;
  let done = false;
  const notify = (title: string, body: string) => {
    const { lang, dir } = texts();
    try {
      // One tag: the release replaces the "near" notification instead of piling up.
      show(title, { body, lang, dir, tag: 'waiting-room-turn' });
    } catch {
      // Refused by this browser: nothing else to do.
    }
  };
  // The status stream ends at the release; `done` stops anything after it all the same.
  const subscription = queue$.subscribe((status) => {
    if (done) return;
    const { t } = texts();
    if (status.kind == 'released') {
      done = true;
      notify(t('notify.turnTitle'), t('notify.turnBody'));
    } else if (status.kind == 'waiting' && !near && status.position > 0 && status.position <= NEAR) {
      near = true;
      notify(t('notify.nearTitle'), t('notify.nearBody', { position: status.position }));
    }
  });
  return {
    unsubscribe: () => {
      done = true;
      subscription.unsubscribe();
    },
  };
};
