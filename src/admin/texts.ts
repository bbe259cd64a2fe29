/** Every text the console shows, in one language. */
export interface ConsoleTexts {
  readonly lang: string;
  readonly title: string;
  readonly signInHeading: string;
  readonly tokenLabel: string;
  readonly tokenHint: string;
  readonly signIn: string;
  readonly signOut: string;
  readonly wrongToken: string;
  readonly tooManyTries: string;
  readonly failed: (what: string) => string;
  readonly live: string;
  readonly connecting: string;
  readonly offline: string;
  readonly room: (name: string) => string;
  readonly waiting: string;
  readonly active: string;
  readonly ofLimit: (limit: number) => string;
  readonly releasesPerMinute: string;
  readonly estimate: string;
  readonly minutes: (n: number) => string;
  readonly arrivalsPerMinute: string;
  readonly walkAwaysPerMinute: string;
  readonly codesUsed: string;
  readonly ofIssued: (issued: number) => string;
  readonly pageErrorsPerMinute: string;
  readonly origin: (url: string) => string;
  readonly originLatency: string;
  readonly originErrorsPerMinute: string;
  readonly revokedPerMinute: string;
  readonly paused: string;
  readonly running: string;
  readonly pause: string;
  readonly resume: string;
  readonly releaseHeading: string;
  readonly releaseCount: string;
  readonly release: string;
  readonly released: (n: number) => string;
  readonly limitsHeading: string;
  readonly activeLimit: string;
  readonly perMinute: string;
  readonly configured: (value: number) => string;
  readonly operatorSet: string;
  readonly save: string;
  readonly reset: string;
  readonly saved: string;
  readonly messageHeading: string;
  readonly messageLabel: string;
  readonly messageSet: string;
  readonly messageClear: string;
  readonly messageSaved: string;
  readonly messageCleared: string;
  readonly admission: string;
  readonly chartLabel: (waiting: number, active: number) => string;
  readonly series: { readonly waiting: string; readonly active: string; readonly rate: string };
  readonly noData: string;
  readonly report: ReportTexts;
}

/** The texts of a room's report (`ReportView`). */
export interface ReportTexts {
  readonly heading: string;
  readonly load: string;
  readonly csv: string;
  readonly arrivals: string;
  readonly peakLine: string;
  readonly admitted: string;
  readonly abandoned: string;
  readonly waiting: string;
  readonly revoked: string;
  readonly replays: string;
  readonly botChecks: string;
  readonly waits: string;
  readonly estimateError: string;
  readonly timelineLabel: (arrivals: number, peak: number) => string;
  readonly distributionLabel: (admitted: number) => string;
  readonly series: { readonly arrivals: string; readonly line: string; readonly waits: string; readonly errors: string };
}

const number =
  (lang: string) =>
  (n: number | undefined, digits = 0) =>
    n === undefined ? '–' : n.toLocaleString(lang, { maximumFractionDigits: digits });

export const ENGLISH: ConsoleTexts = {
  lang: 'en',
  title: 'Waiting room console',
  signInHeading: 'Sign in to the console',
  tokenLabel: 'Admin token',
  tokenHint: 'The ADMIN_TOKEN the server was started with. It is exchanged for a session cookie and not kept by this page.',
  signIn: 'Sign in',
  signOut: 'Sign out',
  wrongToken: 'This token is wrong.',
  tooManyTries: 'Too many attempts: wait a minute and try again.',
  failed: (what) => `That did not work: ${what}`,
  live: 'Live',
  connecting: 'Connecting…',
  offline: 'Not live: reconnecting…',
  room: (name) => `Room ${name}`,
  waiting: 'Waiting',
  active: 'Active',
  ofLimit: (limit) => `of ${number('en')(limit)}`,
  releasesPerMinute: 'Releases a minute',
  estimate: 'Estimate shown to new visitors',
  minutes: (n) => `${n} min`,
  arrivalsPerMinute: 'Arrivals a minute',
  codesUsed: 'Priority codes used',
  ofIssued: (issued) => `of ${number('en')(issued)} issued`,
  walkAwaysPerMinute: 'Walk-aways a minute',
  pageErrorsPerMinute: 'Page errors a minute',
  origin: (url) => `Origin ${url}`,
  originLatency: 'Origin latency (mean)',
  originErrorsPerMinute: 'Origin errors a minute',
  revokedPerMinute: 'Sessions ended by the origin a minute',
  paused: 'Paused',
  running: 'Releasing',
  pause: 'Pause releases',
  resume: 'Resume releases',
  releaseHeading: 'Release now',
  releaseCount: 'Visitors to release',
  release: 'Release',
  released: (n) => `${n} visitor${n === 1 ? '' : 's'} released.`,
  limitsHeading: 'Limits',
  activeLimit: 'Active sessions at most',
  perMinute: 'Releases a minute at most',
  configured: (value) => `configured: ${number('en')(value)}`,
  operatorSet: 'set here',
  save: 'Save limits',
  reset: 'Back to configured',
  saved: 'Limits saved: every instance follows within a second.',
  messageHeading: 'Message to those waiting',
  messageLabel: 'Plain text, every language (per language: PUT /admin/message)',
  messageSet: 'Show',
  messageClear: 'Clear',
  messageSaved: 'Message shown on every waiting page.',
  messageCleared: 'Message cleared.',
  admission: 'Adaptive admission',
  chartLabel: (waiting, active) => `The last hour: ${waiting} waiting and ${active} active now.`,
  series: { waiting: 'Waiting', active: 'Active', rate: 'Releases a minute' },
  noData: 'No sample yet.',
  report: {
    heading: 'Report',
    load: 'Load the report',
    csv: 'Download CSV',
    arrivals: 'Arrivals',
    peakLine: 'Longest line',
    admitted: 'Admitted',
    abandoned: 'Abandoned',
    waiting: 'Still waiting',
    revoked: 'Revoked',
    replays: 'Replays',
    botChecks: 'Bot checks solved / failed',
    waits: 'Wait p50 / p90 / p99 (min)',
    estimateError: "Estimate's error median / p90 (min)",
    timelineLabel: (arrivals, peak) => `Arrivals and the line by minute: ${arrivals} arrivals, ${peak} at most in line.`,
    distributionLabel: (admitted) => `Waits and estimate errors by whole minutes, over ${admitted} admitted.`,
    series: { arrivals: 'Arrivals a minute', line: 'Line', waits: 'Admitted by minutes waited', errors: 'Estimates by minutes of error' },
  },
};

export const FRENCH: ConsoleTexts = {
  lang: 'fr',
  title: "Console de la salle d'attente",
  signInHeading: 'Connexion à la console',
  tokenLabel: "Jeton d'administration",
  tokenHint: "L'ADMIN_TOKEN du serveur. Il est échangé contre un cookie de session et n'est pas gardé par cette page.",
  signIn: 'Se connecter',
  signOut: 'Se déconnecter',
  wrongToken: 'Ce jeton est faux.',
  tooManyTries: 'Trop de tentatives : attendez une minute et réessayez.',
  failed: (what) => `Cela n'a pas marché : ${what}`,
  live: 'En direct',
  connecting: 'Connexion…',
  offline: 'Hors direct : reconnexion…',
  room: (name) => `Salle ${name}`,
  waiting: 'En attente',
  active: 'Actifs',
  ofLimit: (limit) => `sur ${number('fr')(limit)}`,
  releasesPerMinute: 'Sorties par minute',
  estimate: 'Attente annoncée aux nouveaux',
  minutes: (n) => `${n} min`,
  arrivalsPerMinute: 'Arrivées par minute',
  codesUsed: 'Codes prioritaires utilisés',
  ofIssued: (issued) => `sur ${number('fr')(issued)} émis`,
  walkAwaysPerMinute: 'Abandons par minute',
  pageErrorsPerMinute: 'Erreurs des pages par minute',
  origin: (url) => `Origine ${url}`,
  originLatency: "Latence de l'origine (moyenne)",
  originErrorsPerMinute: "Erreurs de l'origine par minute",
  revokedPerMinute: "Sessions terminées par l'origine par minute",
  paused: 'En pause',
  running: 'Sorties en cours',
  pause: 'Mettre en pause',
  resume: 'Reprendre',
  releaseHeading: 'Faire sortir maintenant',
  releaseCount: 'Visiteurs à faire sortir',
  release: 'Faire sortir',
  released: (n) => `${n} visiteur${n > 1 ? 's' : ''} sorti${n > 1 ? 's' : ''}.`,
  limitsHeading: 'Limites',
  activeLimit: 'Sessions actives au plus',
  perMinute: 'Sorties par minute au plus',
  configured: (value) => `configuré : ${number('fr')(value)}`,
  operatorSet: 'réglé ici',
  save: 'Enregistrer',
  reset: 'Revenir à la configuration',
  saved: 'Limites enregistrées : chaque instance les suit en une seconde.',
  messageHeading: 'Message aux visiteurs en attente',
  messageLabel: 'Texte brut, toutes langues (par langue : PUT /admin/message)',
  messageSet: 'Afficher',
  messageClear: 'Effacer',
  messageSaved: "Message affiché sur chaque page d'attente.",
  messageCleared: 'Message effacé.',
  admission: 'Admission adaptative',
  chartLabel: (waiting, active) => `La dernière heure : ${waiting} en attente et ${active} actifs maintenant.`,
  series: { waiting: 'En attente', active: 'Actifs', rate: 'Sorties par minute' },
  noData: "Pas encore d'échantillon.",
  report: {
    heading: 'Bilan',
    load: 'Charger le bilan',
    csv: 'Télécharger le CSV',
    arrivals: 'Arrivées',
    peakLine: 'File la plus longue',
    admitted: 'Admis',
    abandoned: 'Abandons',
    waiting: 'Encore en attente',
    revoked: 'Révoqués',
    replays: 'Rejeux',
    botChecks: 'Contrôles anti-robot réussis / échoués',
    waits: 'Attente p50 / p90 / p99 (min)',
    estimateError: "Erreur de l'estimation médiane / p90 (min)",
    timelineLabel: (arrivals, peak) => `Arrivées et file par minute : ${arrivals} arrivées, ${peak} au plus dans la file.`,
    distributionLabel: (admitted) => `Attentes et erreurs d'estimation par minute entière, sur ${admitted} admis.`,
    series: { arrivals: 'Arrivées par minute', line: 'File', waits: 'Admis par minutes attendues', errors: "Estimations par minutes d'erreur" },
  },
};

/** The console's texts for the browser's language: French or English. */
export function consoleTexts(language: string | undefined): ConsoleTexts {
  return language?.toLowerCase().startsWith('fr') ? FRENCH : ENGLISH;
}

/** A figure for display, `–` when unknown. */
export function figure(texts: ConsoleTexts, n: number | undefined, digits = 0): string {
  return number(texts.lang)(n, digits);
}
