import type { Texts } from '../i18n/texts';

/**
 * The operator's message as the view gets it: its text in a language (the visitor's, else the
 * room's, else for any; '' when there is none). The start-up code reads it (`messageTextFor`), so
 * that the view bundles nothing of the contract.
 */
export interface ShownMessage {
  textFor(locale: string): string;
}

/**
 * The operator's message (`PUT /admin/message`): a polite live region, in the document from the
 * first render and empty while there is none, so that screen readers announce a message as it
 * comes, once, and nothing for a render that does not change it. Its text is a text node: the
 * message is never read as HTML.
 */
export function MessageBlock({ texts, text }: { texts: Texts; text: string }) {
  return (
    <div className="wr-message" aria-live="polite" aria-atomic="true">
      {text && (
        <p>
          <strong className="wr-message-label">{texts.t('message.label')}</strong> {text}
        </p>
      )}
    </div>
  );
}
