/** Every text `<waiting-room-status>` shows, in one language. */
export interface Texts {
  readonly lang: string;
  readonly loading: string;
  readonly heading: string;
  readonly position: string;
  readonly estimated: (minutes: number) => string;
  readonly updated: (time: string) => string;
  readonly keepOpen: string;
  readonly connectionLost: string;
  readonly pollFailed: string;
  readonly turn: string;
  readonly lost: string;
  readonly failed: string;
}

export const ENGLISH: Texts = {
  lang: 'en',
  loading: 'Finding your place in line…',
  heading: 'Your request is waiting in line',
  position: 'Your position',
  estimated: (m) => 'Estimated wait: ' + (m < 1 ? 'less than a minute' : `about ${m} minute${m == 1 ? '' : 's'}`),
  updated: (time) => `Last updated at ${time}`,
  keepOpen: 'Keep this page open: your request will be sent as soon as it is your turn.',
  connectionLost: 'Connection lost. Reconnecting… You keep your place in line.',
  pollFailed: 'Your position could not be refreshed. Retrying…',
  turn: 'It is your turn! Sending your request…',
  lost: 'Your place in line was lost. Joining the line again…',
  failed: 'The waiting room could not keep your place: your request was not sent.',
};

export const FRENCH: Texts = {
  lang: 'fr',
  loading: 'Recherche de votre place dans la file…',
  heading: 'Votre demande attend dans la file',
  position: 'Votre position',
  estimated: (m) => 'Attente estimée : ' + (m < 1 ? "moins d'une minute" : `environ ${m} minute${m > 1 ? 's' : ''}`),
  updated: (time) => `Dernière mise à jour à ${time}`,
  keepOpen: 'Gardez cette page ouverte : votre demande sera envoyée dès que ce sera votre tour.',
  connectionLost: 'Connexion perdue. Reconnexion… Vous gardez votre place dans la file.',
  pollFailed: "Votre position n'a pas pu être actualisée. Nouvel essai…",
  turn: "C'est votre tour ! Envoi de votre demande…",
  lost: 'Votre place dans la file a été perdue. Retour dans la file…',
  failed: "La salle d'attente n'a pas pu garder votre place : votre demande n'a pas été envoyée.",
};

/** French for any `fr` language tag, English otherwise. */
export function pickTexts(language: string | null | undefined): Texts {
  return /^fr\b/i.test(language ?? '') ? FRENCH : ENGLISH;
}
