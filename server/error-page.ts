import { escapeHtml } from './html';

/**
 * The page a person sees when their browser meets an error: the status, one sentence that says
 * what happened in their language, and a way back. The machine code and message stay in the
 * JSON that API clients get (see `errors.ts`).
 */

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];
export const DEFAULT_LANGUAGE: Language = 'en';

/** The error codes a person may meet in a browser, each explained in one sentence. */
export const EXPLAINED_CODES = [
  'bad_request_target',
  'bad_request',
  'malformed_json',
  'payload_too_large',
  'unsupported_media_type',
  'not_found',
  'method_not_allowed',
  'request_timeout',
  'headers_too_large',
  'uri_too_long',
  'csrf_mismatch',
  'session_expired',
  'bad_name',
  'bad_uuid',
  'unknown_uuid',
  'not_your_place',
  'get_replay',
  'replay_target_mismatch',
  'method_mismatch',
  'not_released',
  'already_replayed',
  'unauthorized',
  'store_unavailable',
  'shutting_down',
  'internal_error',
  'origin_unreachable',
  'origin_timeout',
] as const;
export type ExplainedCode = (typeof EXPLAINED_CODES)[number];

/** The statuses with a title of their own; any other shows the generic one. */
export const TITLED_STATUSES = [400, 401, 403, 404, 405, 408, 409, 413, 414, 415, 419, 431, 500, 502, 503, 504] as const;
type TitledStatus = (typeof TITLED_STATUSES)[number];

/** One language's texts; every catalogue has the same keys (the type says so, and a test). */
export interface Catalogue {
  readonly dir: 'ltr' | 'rtl';
  /** "Error 404": the status as people read it. */
  readonly status: (status: number) => string;
  readonly titles: Record<TitledStatus, string> & { readonly other: string };
  readonly explanations: Record<ExplainedCode, string> & { readonly client: string; readonly server: string };
  readonly back: string;
  readonly home: string;
}

export const CATALOGUES: Record<Language, Catalogue> = {
  en: {
    dir: 'ltr',
    status: (status) => `Error ${status}`,
    titles: {
      400: 'Bad request',
      401: 'Not allowed',
      403: 'Not allowed',
      404: 'Page not found',
      405: 'Not possible here',
      408: 'Too slow',
      409: 'Already done',
      413: 'Too large',
      414: 'Address too long',
      415: 'Not accepted',
      419: 'Page expired',
      431: 'Request too large',
      500: 'Something went wrong',
      502: 'The site is unreachable',
      503: 'Busy right now',
      504: 'The site is too slow',
      other: 'Something went wrong',
    },
    explanations: {
      bad_request_target: 'The address of this page is not valid.',
      bad_request: 'The request could not be understood.',
      malformed_json: 'The data sent with the request could not be read.',
      payload_too_large: 'What was sent is too large to be accepted.',
      unsupported_media_type: 'This kind of data cannot be sent here.',
      not_found: 'There is no page at this address.',
      method_not_allowed: 'This page cannot be used this way.',
      request_timeout: 'The request took too long to arrive; please try again.',
      headers_too_large: 'The request carried too much information, often too many cookies.',
      uri_too_long: 'The address of this page is too long.',
      csrf_mismatch: 'This form has expired; reload the page and send it again.',
      session_expired: 'Your session has expired; reload the page.',
      bad_name: 'The name must be 1 to 40 characters long, without control or text-direction characters.',
      bad_uuid: 'This link to a place in line is not valid.',
      unknown_uuid: 'This place in line no longer exists.',
      not_your_place: 'This place in line belongs to someone else.',
      get_replay: 'This page is opened by following its link, not by sending a form.',
      replay_target_mismatch: 'This request does not match the one that was kept for you.',
      method_mismatch: 'This request does not match the one that was kept for you.',
      not_released: 'It is not your turn yet; go back to the waiting page to keep your place.',
      already_replayed: 'This request was already sent once; it cannot be sent again.',
      unauthorized: 'You are not allowed to see this page.',
      store_unavailable: 'The waiting room is busy; try again in a moment.',
      shutting_down: 'The server is restarting; try again in a moment.',
      internal_error: 'Something went wrong on our side; try again later.',
      origin_unreachable: 'The site behind the waiting room cannot be reached right now; your place in line is kept. Try again in a moment.',
      origin_timeout: 'The site behind the waiting room took too long to answer; your place in line is kept. Try again in a moment.',
      client: 'The request could not be served.',
      server: 'Something went wrong on our side; try again later.',
    },
    back: 'Go back',
    home: 'Go to the home page',
  },
  fr: {
    dir: 'ltr',
    status: (status) => `Erreur ${status}`,
    titles: {
      400: 'Demande invalide',
      401: 'Accès refusé',
      403: 'Accès refusé',
      404: 'Page introuvable',
      405: 'Impossible ici',
      408: 'Trop lent',
      409: 'Déjà fait',
      413: 'Trop volumineux',
      414: 'Adresse trop longue',
      415: 'Non accepté',
      419: 'Page expirée',
      431: 'Demande trop volumineuse',
      500: 'Un problème est survenu',
      502: 'Le site est injoignable',
      503: 'Occupé pour le moment',
      504: 'Le site est trop lent',
      other: 'Un problème est survenu',
    },
    explanations: {
      bad_request_target: 'L’adresse de cette page n’est pas valide.',
      bad_request: 'La demande n’a pas pu être comprise.',
      malformed_json: 'Les données envoyées avec la demande n’ont pas pu être lues.',
      payload_too_large: 'Les données envoyées sont trop volumineuses pour être acceptées.',
      unsupported_media_type: 'Ce type de données ne peut pas être envoyé ici.',
      not_found: 'Il n’y a pas de page à cette adresse.',
      method_not_allowed: 'Cette page ne peut pas être utilisée de cette façon.',
      request_timeout: 'La demande a mis trop de temps à arriver ; veuillez réessayer.',
      headers_too_large: 'La demande contenait trop d’informations, souvent trop de cookies.',
      uri_too_long: 'L’adresse de cette page est trop longue.',
      csrf_mismatch: 'Ce formulaire a expiré ; rechargez la page et envoyez-le de nouveau.',
      session_expired: 'Votre session a expiré ; rechargez la page.',
      bad_name: 'Le nom doit compter de 1 à 40 caractères, sans caractère de contrôle ni de sens d’écriture.',
      bad_uuid: 'Ce lien vers une place dans la file n’est pas valide.',
      unknown_uuid: 'Cette place dans la file n’existe plus.',
      not_your_place: 'Cette place dans la file appartient à quelqu’un d’autre.',
      get_replay: 'Cette page s’ouvre en suivant son lien, pas en envoyant un formulaire.',
      replay_target_mismatch: 'Cette demande ne correspond pas à celle qui a été gardée pour vous.',
      method_mismatch: 'Cette demande ne correspond pas à celle qui a été gardée pour vous.',
      not_released: 'Ce n’est pas encore votre tour ; revenez à la page d’attente pour garder votre place.',
      already_replayed: 'Cette demande a déjà été envoyée une fois ; elle ne peut pas l’être de nouveau.',
      unauthorized: 'Vous n’êtes pas autorisé à voir cette page.',
      store_unavailable: 'La salle d’attente est très demandée ; réessayez dans un instant.',
      shutting_down: 'Le serveur redémarre ; réessayez dans un instant.',
      internal_error: 'Un problème est survenu de notre côté ; réessayez plus tard.',
      origin_unreachable: 'Le site derrière la salle d’attente est injoignable pour le moment ; votre place dans la file est gardée. Réessayez dans un instant.',
      origin_timeout: 'Le site derrière la salle d’attente a mis trop de temps à répondre ; votre place dans la file est gardée. Réessayez dans un instant.',
      client: 'La demande n’a pas pu être servie.',
      server: 'Un problème est survenu de notre côté ; réessayez plus tard.',
    },
    back: 'Revenir en arrière',
    home: 'Aller à l’accueil du site',
  },
};

const STYLE = `
  :root { color-scheme: light dark; }
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  main { max-width: 36rem; margin: 15vh auto 2rem; padding: 0 1.5rem; }
  h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
  .status { color: #6b7280; margin: 0 0 .25rem; font-weight: 600; }
  nav { margin-top: 1.5rem; display: flex; gap: 1.5rem; flex-wrap: wrap; }
`;

function isTitled(status: number): status is TitledStatus {
  return (TITLED_STATUSES as readonly number[]).includes(status);
}

function isExplained(code: string): code is ExplainedCode {
  return (EXPLAINED_CODES as readonly string[]).includes(code);
}

/** The sentence that tells a person what `code` (answered with `status`) means for them. */
export function explanation(status: number, code: string, language: Language): string {
  const texts = CATALOGUES[language].explanations;
  if (isExplained(code)) return texts[code];
  return status >= 500 ? texts.server : texts.client;
}

/**
 * The whole error page, every text escaped, in `language`. `back` is the same-site page the
 * visitor came from (see `sameSiteReferrer`); without one, only the way to the home page shows.
 * A plain link rather than `javascript:history.back()`: it works under a strict CSP and without
 * JavaScript.
 */
export function renderErrorPage(status: number, code: string, language: Language, back?: string): string {
  const texts = CATALOGUES[language];
  const title = isTitled(status) ? texts.titles[status] : texts.titles.other;
  return `<!doctype html>
<html lang="${escapeHtml(language)}" dir="${texts.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} · ${escapeHtml(texts.status(status))}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="status">${escapeHtml(texts.status(status))}</p>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(explanation(status, code, language))}</p>
<nav>${back === undefined ? '' : `<a href="${escapeHtml(back)}">${escapeHtml(texts.back)}</a> `}<a href="/">${escapeHtml(texts.home)}</a></nav>
</main>
</body>
</html>
`;
}

/**
 * The path of the page the visitor came from, when the Referer names this very host: a link
 * back to another site, or to a malformed address, is never offered.
 */
export function sameSiteReferrer(referer: string | undefined, host: string | undefined): string | undefined {
  if (!referer || !host) return undefined;
  try {
    const url = new URL(referer);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.host !== host.toLowerCase()) return undefined;
    return url.pathname + url.search;
  } catch {
    return undefined;
  }
}
