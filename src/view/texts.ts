/** Every text the waiting room shows, in one language (the config-problem view has its own). */
export interface Texts {
  readonly lang: string;
  readonly title: string;
  readonly loading: string;
  readonly heading: string;
  readonly position: string;
  readonly estimated: (minutes: number) => string;
  readonly updated: (time: string) => string;
  readonly keepOpen: string;
  readonly connectionLost: string;
  readonly pollFailed: string;
  readonly released: string;
  readonly leaving: string;
  readonly tabTitle: (position: string) => string;
}

export const ENGLISH: Texts = {
  lang: 'en',
  title: 'Waiting room',
  loading: 'Finding your place in line…',
  heading: 'You are in line',
  position: 'Your position',
  estimated: (m) => 'Estimated wait: ' + (m < 1 ? 'less than a minute' : `about ${m} minute${m == 1 ? '' : 's'}`),
  updated: (time) => `Last updated at ${time}`,
  keepOpen: 'Keep this page open: you will be taken to your page as soon as it is your turn.',
  connectionLost: 'Connection lost. Reconnecting… You keep your place in line.',
  pollFailed: 'Your position could not be refreshed. Retrying…',
  released: 'It is your turn! Taking you there…',
  leaving: 'Taking you back…',
  tabTitle: (position) => `#${position} · Waiting room`,
};

export const FRENCH: Texts = {
  lang: 'fr',
  title: "Salle d'attente",
  loading: 'Recherche de votre place dans la file…',
  heading: "Vous êtes dans la file d'attente",
  position: 'Votre position',
  estimated: (m) => 'Attente estimée : ' + (m < 1 ? "moins d'une minute" : `environ ${m} minute${m > 1 ? 's' : ''}`),
  updated: (time) => `Dernière mise à jour à ${time}`,
  keepOpen: 'Gardez cette page ouverte : vous serez conduit à votre page dès que ce sera votre tour.',
  connectionLost: 'Connexion perdue. Reconnexion… Vous gardez votre place dans la file.',
  pollFailed: "Votre position n'a pas pu être actualisée. Nouvel essai…",
  released: "C'est votre tour ! Redirection…",
  leaving: 'Retour à la page précédente…',
  tabTitle: (position) => `n° ${position} · Salle d'attente`,
};

/** French for any `fr` language tag, English otherwise. */
export function pickTexts(language: string | undefined): Texts {
  return /^fr\b/i.test(language ?? '') ? FRENCH : ENGLISH;
}
