/**
 * The page's two controls, which the position does not need: the visitor's choice of language,
 * and "tell me when it is my turn". A file of its own, loaded once the page has painted, that
 * imports nothing the page bundles: React's `createElement` and `useState` come from the page (one
 * React), and so do the texts.
 */
import type { createElement, ReactElement, useState } from 'react';
import type { Observable, Unsubscribable } from 'rxjs';
import type { LanguageJson } from '@waiting-room/streams/contract';
import type { QueueStatus } from '@waiting-room/streams';
import type { FetchLike } from '../adapters/http';
import type { Texts } from '../i18n/texts';
import { switchLanguage } from '../i18n/switch-language';
import { notifyTurn } from '../notify/turn-notifier';
import { createSendCode, type CodeAnswer } from '../adapters/code';
import type { QrCode, QrDrawing } from './qr-code';

export interface Controls {
  /**
   * The languages the server offers, each by its own name, in a native select: labelled,
   * reachable and operated by keyboard, read by every screen reader. Picking one fetches its
   * texts and keeps the choice (nothing reloads: the place and the held request are untouched).
   * Nothing with fewer than two languages.
   */
  LanguageSwitch(props: { readonly texts: Texts; readonly show: (texts: Texts) => void }): ReactElement | null;
  /**
   * "Tell me when it is my turn", when the browser has notifications: asks for the permission
   * only when pressed, then starts the notifications (`notifyTurn`) and says so, or says that
   * notifications are blocked and that the tab title shows the place.
   */
  NotifyButton(props: { readonly texts: Texts }): ReactElement | null;
  /**
   * "Have a code?": a labelled field and a button; the code goes to `POST /queue/code`, and the
   * answer (the new position, a wrong code, too many tries) is said in a live region. The
   * position block follows at the next queue_info, on the page's own schedule: no call or timer
   * of the specification's is added or moved.
   */
  CodeForm(props: { readonly texts: Texts }): ReactElement;
  /**
   * "Continue on another device", when the server offers it (`handoff`): pressed, it asks for a
   * link (POST, checked as queue_request is) and loads the QR code's drawing (a file of its own),
   * then shows the link, the code and until when it works. Pressed again, it closes.
   */
  Handoff(props: { readonly texts: Texts }): ReactElement | null;
}

/** What the page knows to ask for a link that moves its place (the config's `handoff`). */
export interface HandoffRequest {
  readonly route: string;
  readonly csrfToken: string;
  readonly uuid: string;
}

type HandoffPanel =
  { readonly kind: 'closed' | 'asking' | 'failed' } | { readonly kind: 'open'; readonly url: string; readonly expiresAt: string; readonly qr: QrDrawing };

/** The page's React, which the controls are made with (one React). */
export interface ReactKit {
  readonly h: typeof createElement;
  readonly useState: typeof useState;
}

export interface ControlsDeps {
  readonly window: Window;
  readonly fetch: FetchLike;
  readonly queue$: Observable<QueueStatus>;
  /** Keeps the notifications until the page stops. */
  readonly keep: (notifications: Unsubscribable) => void;
  readonly report: (message: string) => void;
  /** Makes a language's texts (the page's translator: this file bundles nothing the page does). */
  readonly textsOf: (language: LanguageJson) => Texts;
  /** The page's queue_request route, whose room the code goes to (`createSendCode`), and the session's CSRF token. */
  readonly codeRoute: string;
  readonly csrfToken: string;
  /** Where to ask for a link that moves the place to another browser; none: no such offer. */
  readonly handoff?: HandoffRequest;
  /** Loads the QR code's drawing (a file of its own, with its encoder). */
  readonly loadQrCode: () => Promise<QrCode>;
}

/** The controls, made with the page's React; the type of `createControls`. */
export type CreateControls = (react: ReactKit, deps: ControlsDeps) => Controls;

export const createControls: CreateControls = (
  { h, useState },
  { window: win, fetch, queue$, keep, report, textsOf, codeRoute, csrfToken, handoff, loadQrCode },
) => {
  const sendCode = createSendCode(fetch, codeRoute, csrfToken);
  // The texts notifications are written in: those shown last, so a switch of language follows.
  let shown: Texts;
  const notifications = (win as { Notification?: typeof Notification }).Notification;
  return {
    LanguageSwitch({ texts, show }) {
      const languages = texts.language.choices?.languages ?? [];
      if (languages.length < 2) return null;
      const choose = (locale: string) =>
        switchLanguage(texts.language, locale, fetch, win.document).then(
          (language) => show(textsOf(language)),
          (error: unknown) => report(`Waiting room language ${locale} could not load: ${String(error)}`),
        );
      return h(
        'p',
        { className: 'wr-language' },
        h('label', { htmlFor: 'wr-language' }, texts.t('language.label')),
        h(
          'select',
          { id: 'wr-language', value: texts.lang, onChange: (event: { target: { value: string } }) => void choose(event.target.value) },
          ...languages.map(({ locale, name }) => h('option', { key: locale, value: locale, lang: locale }, name)),
        ),
      );
    },
    NotifyButton({ texts }) {
      const [state, setState] = useState<'offer' | 'on' | 'blocked'>('offer');
      shown = texts;
      if (!notifications) return null;
      const ask = () =>
        notifications.requestPermission().then(
          (permission) => {
            const on = permission == 'granted';
            if (on)
              keep(
                notifyTurn(
                  queue$,
                  () => shown,
                  (title, options) => new notifications(title, options),
                ),
              );
            setState(on ? 'on' : 'blocked');
          },
          () => setState('blocked'),
        );
      const { t } = texts;
      return state == 'offer'
        ? h('p', { className: 'wr-actions' }, h('button', { type: 'button', onClick: ask }, t('notify.offer')))
        : h('p', { className: 'wr-hint', role: 'status' }, t(state == 'on' ? 'notify.on' : 'notify.blocked'));
    },
    CodeForm({ texts }) {
      const [answer, setAnswer] = useState<CodeAnswer | null>(null);
      const [sending, setSending] = useState(false);
      const { t } = texts;
      const submit = (event: { preventDefault(): void; currentTarget: HTMLFormElement }) => {
        event.preventDefault();
        const field = event.currentTarget.elements.namedItem('code') as HTMLInputElement;
        if (field.value.trim() == '' || sending) return;
        setSending(true);
        void sendCode(field.value).then((sent) => {
          setSending(false);
          setAnswer(sent);
          if (sent.kind == 'moved') field.value = '';
        });
      };
      const said = answer && (answer.kind == 'moved' ? t('code.moved', { position: answer.position }) : t(`code.${answer.kind}`));
      return h(
        'form',
        { className: 'wr-code', onSubmit: submit, noValidate: true },
        h('label', { htmlFor: 'wr-code' }, t('code.label')),
        ' ',
        h('input', { id: 'wr-code', name: 'code', type: 'text', autoComplete: 'off', autoCapitalize: 'characters', spellCheck: false, maxLength: 64 }),
        ' ',
        h('button', { type: 'submit', disabled: sending }, t('code.submit')),
        h('p', { className: 'wr-hint', role: 'status', 'aria-live': 'polite' }, said ?? ''),
      );
    },
    Handoff({ texts }) {
      const [panel, setPanel] = useState<HandoffPanel>({ kind: 'closed' });
      if (!handoff) return null;
      const { t } = texts;
      const ask = () => {
        setPanel({ kind: 'asking' });
        const link = fetch(handoff.route, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          body: JSON.stringify({ _token: handoff.csrfToken, uuid: handoff.uuid }),
        }).then(async (response) => {
          if (!response.ok) throw new Error(`the handoff route answered ${response.status}`);
          return (await response.json()) as { url: string; expiresAt: string };
        });
        Promise.all([link, loadQrCode()]).then(
          ([{ url, expiresAt }, draw]) => setPanel({ kind: 'open', url, expiresAt, qr: draw(url) }),
          (error: unknown) => {
            report(`Waiting room handoff link could not be made: ${String(error)}`);
            setPanel({ kind: 'failed' });
          },
        );
      };
      const open = panel.kind == 'open' || panel.kind == 'asking';
      return h(
        'div',
        { className: 'wr-handoff' },
        h(
          'p',
          { className: 'wr-actions' },
          h('button', { type: 'button', 'aria-expanded': open, onClick: open ? () => setPanel({ kind: 'closed' }) : ask }, t('handoff.open')),
        ),
        panel.kind == 'failed' && h('p', { className: 'wr-hint', role: 'alert' }, t('handoff.failed')),
        panel.kind == 'open' &&
          h(
            'div',
            { className: 'wr-handoff-panel' },
            h('p', null, t('handoff.explain', { time: new Intl.DateTimeFormat(texts.lang, { timeStyle: 'short' }).format(new Date(panel.expiresAt)) })),
            h(
              'svg',
              { className: 'wr-qr', viewBox: `0 0 ${panel.qr.size} ${panel.qr.size}`, role: 'img', 'aria-label': t('handoff.qr'), width: 192, height: 192 },
              // Dark on light whatever the page's colours: what a camera reads.
              h('rect', { width: panel.qr.size, height: panel.qr.size, fill: '#fff' }),
              h('path', { d: panel.qr.path, fill: '#000' }),
            ),
            h('input', {
              className: 'wr-handoff-link',
              readOnly: true,
              value: panel.url,
              'aria-label': t('handoff.open'),
              onFocus: (event: { target: { select(): void } }) => event.target.select(),
            }),
          ),
      );
    },
  };
};
