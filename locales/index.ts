/**
 * The one catalogue of visitor texts: every text a visitor can meet, in every language the
 * waiting room speaks, one JSON file per locale with the same keys as `en.json` (the reference).
 * The server reads it (the page config, the waiting page's HTML, error pages); the page and
 * any other client get their language's messages from the page config. docs/languages.md says
 * how the keys are named, how to add a message or a language, and how a site overrides wording.
 */
import type { Messages } from '@waiting-room/streams/contract';
import ar from './ar.json';
import bg from './bg.json';
import bn from './bn.json';
import ca from './ca.json';
import cs from './cs.json';
import da from './da.json';
import de from './de.json';
import el from './el.json';
import en from './en.json';
import es from './es.json';
import et from './et.json';
import fa from './fa.json';
import fi from './fi.json';
import fil from './fil.json';
import fr from './fr.json';
import he from './he.json';
import hi from './hi.json';
import hr from './hr.json';
import hu from './hu.json';
import id from './id.json';
import it from './it.json';
import ja from './ja.json';
import ko from './ko.json';
import lt from './lt.json';
import lv from './lv.json';
import ms from './ms.json';
import nb from './nb.json';
import nl from './nl.json';
import pl from './pl.json';
import ptBR from './pt-BR.json';
import ptPT from './pt-PT.json';
import ro from './ro.json';
import ru from './ru.json';
import sk from './sk.json';
import sl from './sl.json';
import srLatn from './sr-Latn.json';
import sv from './sv.json';
import sw from './sw.json';
import ta from './ta.json';
import th from './th.json';
import tr from './tr.json';
import uk from './uk.json';
import ur from './ur.json';
import vi from './vi.json';
import zhHans from './zh-Hans.json';
import zhHant from './zh-Hant.json';

/** The keys every catalogue has, English's. */
export type MessageKey = keyof typeof en;

/** English, the reference: every other catalogue has exactly its keys and placeholders. */
export const ENGLISH = en;

/**
 * Every locale, by its BCP 47 tag, with its direction of writing and its messages. A visitor's
 * browser is matched to these (`server/http/negotiate.ts`): `zh-TW` and `zh-HK` find `zh-Hant`,
 * `pt-AO` finds `pt-PT`, `nn` finds `nb`, `sr-Cyrl` finds `sr-Latn`.
 */
export const CATALOGUES = {
  en: { dir: 'ltr', messages: en },
  es: { dir: 'ltr', messages: es },
  de: { dir: 'ltr', messages: de },
  fr: { dir: 'ltr', messages: fr },
  it: { dir: 'ltr', messages: it },
  ja: { dir: 'ltr', messages: ja },
  ko: { dir: 'ltr', messages: ko },
  'pt-BR': { dir: 'ltr', messages: ptBR },
  'pt-PT': { dir: 'ltr', messages: ptPT },
  'zh-Hans': { dir: 'ltr', messages: zhHans },
  'zh-Hant': { dir: 'ltr', messages: zhHant },
  nl: { dir: 'ltr', messages: nl },
  pl: { dir: 'ltr', messages: pl },
  id: { dir: 'ltr', messages: id },
  tr: { dir: 'ltr', messages: tr },
  ar: { dir: 'rtl', messages: ar },
  ru: { dir: 'ltr', messages: ru },
  fa: { dir: 'rtl', messages: fa },
  he: { dir: 'rtl', messages: he },
  bg: { dir: 'ltr', messages: bg },
  hr: { dir: 'ltr', messages: hr },
  cs: { dir: 'ltr', messages: cs },
  da: { dir: 'ltr', messages: da },
  fi: { dir: 'ltr', messages: fi },
  lt: { dir: 'ltr', messages: lt },
  ms: { dir: 'ltr', messages: ms },
  nb: { dir: 'ltr', messages: nb },
  ro: { dir: 'ltr', messages: ro },
  el: { dir: 'ltr', messages: el },
  hi: { dir: 'ltr', messages: hi },
  hu: { dir: 'ltr', messages: hu },
  'sr-Latn': { dir: 'ltr', messages: srLatn },
  sk: { dir: 'ltr', messages: sk },
  sl: { dir: 'ltr', messages: sl },
  sv: { dir: 'ltr', messages: sv },
  fil: { dir: 'ltr', messages: fil },
  th: { dir: 'ltr', messages: th },
  uk: { dir: 'ltr', messages: uk },
  vi: { dir: 'ltr', messages: vi },
  ca: { dir: 'ltr', messages: ca },
  et: { dir: 'ltr', messages: et },
  lv: { dir: 'ltr', messages: lv },
  bn: { dir: 'ltr', messages: bn },
  ur: { dir: 'rtl', messages: ur },
  sw: { dir: 'ltr', messages: sw },
  ta: { dir: 'ltr', messages: ta },
} as const satisfies Record<string, { readonly dir: 'ltr' | 'rtl'; readonly messages: Messages }>;

export type Locale = keyof typeof CATALOGUES;

/** Every locale's tag, in the catalogue's order (the order a visitor's choice lists them). */
export const LOCALES = Object.keys(CATALOGUES) as Locale[];

/**
 * Namespaces only the server writes (error pages, the waiting page's HTML): left out of the
 * page config. Every other namespace goes to the page and to any client that reads the config.
 */
export const SERVER_ONLY_NAMESPACES: readonly string[] = ['error', 'html', 'verify'];

/** Why a "continue on another device" link moved nothing: said by the server's page only. */
const SERVER_ONLY_HANDOFF = 'handoff.refused.';

/** The messages of `messages` that a page gets: all but the server's own namespaces. */
export function clientMessages(messages: Messages): Messages {
  return Object.fromEntries(
    Object.entries(messages).filter(([key]) => !SERVER_ONLY_NAMESPACES.includes(key.split('.')[0] ?? '') && !key.startsWith(SERVER_ONLY_HANDOFF)),
  );
}
