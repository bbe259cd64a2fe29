import { NEVER, type Observable, type Subscription } from 'rxjs';
import type { LanguageJson } from '@waiting-room/streams/contract';
import { NOTHING_HELD, type Progress } from './progress';
import { statusView } from './status-view';
import { ENGLISH, languageFor, textsOf } from './texts';

/** The element's tag. */
export const STATUS_TAG = 'waiting-room-status';

const STYLE = `
:host { display: block; font: inherit; color: inherit; }
:host([state="idle"]) .box { display: none; }
.box { border: 1px solid color-mix(in srgb, currentColor 20%, transparent); border-radius: .75rem; padding: 1rem 1.25rem; }
.box > p { margin: .25rem 0; }
.message { font-weight: 600; }
.position strong { display: block; font-size: 2.25rem; line-height: 1.1; font-variant-numeric: tabular-nums; }
.updated, .hint { opacity: .75; font-size: .875em; }
.notice { font-weight: 600; }
[hidden] { display: none !important; }
.sr { position: absolute; width: 1px; height: 1px; margin: -1px; padding: 0; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
`;

// The live region stays outside the box, in the accessibility tree from the start, so that the
// first message is announced too. Texts go in with textContent, never as HTML.
const TEMPLATE = `<p class="sr" aria-live="polite" aria-atomic="true"></p>
<section class="box" part="box">
<p class="message" part="message"></p>
<p class="position" part="position"><span></span><strong></strong></p>
<p class="estimated" part="estimated"></p>
<p class="updated"><time></time></p>
<p class="notice" part="notice" role="alert"></p>
<p class="hint"></p>
</section>`;

let sheet: CSSStyleSheet | undefined;

/** The styles, as one constructed sheet shared by every element where browsers have them (no inline style for a CSP to refuse). */
function adoptStyles(root: ShadowRoot): void {
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet == 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    if (!sheet) {
      sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLE);
    }
    root.adoptedStyleSheets = [sheet];
  } else {
    root.prepend(Object.assign(document.createElement('style'), { textContent: STYLE }));
  }
}

/**
 * `<waiting-room-status>`: the place in line of the requests `heldFetch()` holds — position,
 * estimated wait, when it was last updated, and notices — announced to screen readers, in the
 * visitor's language: the one the gateway chose and sent with the held answer (its page
 * config's `language`, any of the catalogue's), else the one of `WaitingRoomStatus.languages`
 * for the `lang` of the element or its closest ancestor with one (else the browser's): English,
 * built in. Its box takes that language's `lang` and `dir`. Nothing shows while no request is
 * held. Its `state` attribute says what it shows (`idle`, `loading`, `waiting`, `turn`, `lost`,
 * `failed`), for the page's CSS; the parts `box`, `message`, `position`, `estimated` and `notice`
 * can be styled with `::part()`.
 *
 * It follows `WaitingRoomStatus.progress$` (the bundle sets it to `heldFetch.progress$`), or its
 * own `progress$` once given one. It subscribes while in the document, and only watches: it never
 * keeps a wait going.
 */
export class WaitingRoomStatus extends HTMLElement {
  /** What every element follows unless given its own `progress$`. */
  static progress$: Observable<Progress> = NEVER;
  /**
   * The languages spoken when a held answer brings none, picked by `lang`; the first (English,
   * built in) when none fits. A site may add its own: e.g. the gateway's
   * `GET /queue/language/{locale}` answer, which is one.
   */
  static languages: readonly [LanguageJson, ...LanguageJson[]] = [ENGLISH];
  static readonly observedAttributes = ['lang'];

  readonly #root: ShadowRoot;
  #own: Observable<Progress> | undefined;
  #subscription: Subscription | undefined;
  #progress: Progress = NOTHING_HELD;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.innerHTML = TEMPLATE;
    adoptStyles(this.#root);
  }

  get progress$(): Observable<Progress> {
    return this.#own ?? WaitingRoomStatus.progress$;
  }

  set progress$(progress$: Observable<Progress>) {
    this.#own = progress$;
    if (this.isConnected) this.#follow();
  }

  connectedCallback(): void {
    // Rendered here, not in the constructor, which may not add attributes (`state`).
    this.#render();
    this.#follow();
  }

  disconnectedCallback(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#render();
  }

  #follow(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = this.progress$.subscribe((progress) => {
      this.#progress = progress;
      this.#render();
    });
  }

  #render(): void {
    const language = this.#progress.language ?? languageFor(this.closest('[lang]')?.getAttribute('lang') || navigator.language, WaitingRoomStatus.languages);
    const texts = textsOf(language);
    const view = statusView(this.#progress, texts);
    this.setAttribute('state', view.state);
    for (const part of [this.#at('.sr'), this.#at('.box')]) {
      if (part.lang != texts.lang) part.lang = texts.lang;
      if (part.dir != texts.dir) part.dir = texts.dir;
    }
    this.#show('.sr', view.announcement);
    this.#show('.message', view.message);
    this.#show('.position', view.position);
    this.#show('.position span', texts.t('page.position'));
    this.#show('.position strong', view.position);
    this.#show('.estimated', view.estimated);
    this.#show('.updated', view.updated);
    this.#show('time', view.updated);
    this.#at('time').setAttribute('datetime', view.updatedAt === null ? '' : new Date(view.updatedAt).toISOString());
    this.#show('.notice', view.notice);
    this.#show('.hint', view.state == 'waiting' ? texts.t('element.keepOpen') : null);
  }

  #at(selector: string): HTMLElement {
    return this.#root.querySelector(selector) as HTMLElement;
  }

  /** Hides the part without text; writes the text only when it changes (a screen reader may announce every write). */
  #show(selector: string, text: string | null): void {
    const element = this.#at(selector);
    element.hidden = !text;
    // A part with children (the position) is given its texts by theirs.
    if (element.childElementCount == 0 && element.textContent != (text ?? '')) element.textContent = text ?? '';
  }
}
