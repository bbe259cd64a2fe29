/** The verify page's texts, in English and French (by the browser's language, as the waiting page). */
export interface VerifyTexts {
  readonly lang: string;
  readonly title: string;
  readonly checking: (entrants: number) => string;
  readonly ok: string;
  readonly failed: string;
  readonly pending: string;
  readonly unavailable: (status: number) => string;
  readonly rank: (rank: number, entrants: number) => string;
  readonly noUuid: string;
  readonly commitment: string;
  readonly seed: string;
  readonly entrants: string;
  readonly ticket: string;
  readonly proves: string;
  readonly cannot: string;
  readonly command: string;
}

export const ENGLISH: VerifyTexts = {
  lang: 'en',
  title: 'Verify the draw',
  checking: (entrants) => `Checking the draw of ${entrants} entrants in your browser…`,
  ok: 'The draw checks out.',
  failed: 'The draw does not check out:',
  pending: 'The draw is not done yet: its seed is revealed at the opening. Keep the commitment below to check it then.',
  unavailable: (status) => `The draw could not be read (answer ${status}).`,
  rank: (rank, entrants) => `Your ticket was drawn ${rank} of ${entrants}.`,
  noUuid: 'Open this page from your waiting page to see your own rank.',
  commitment: 'Commitment (SHA-256 of the seed, published before anyone entered)',
  seed: 'Seed (revealed at the opening)',
  entrants: 'Entrants',
  ticket: 'Your ticket (SHA-256 of your place’s id)',
  proves:
    'Checked here, with your browser’s own cryptography: the seed is the one committed to before the pre-queue began, and the order is every ticket sorted by HMAC-SHA256 of that seed. So nobody could choose the order, and arriving at any particular moment gave nobody an advantage.',
  cannot: 'What it cannot show: that the operator added no entrants of their own. The count of entrants was public throughout.',
  command: 'The same check from a terminal:',
};

export const FRENCH: VerifyTexts = {
  lang: 'fr',
  title: 'Vérifier le tirage',
  checking: (entrants) => `Vérification du tirage de ${entrants} participants dans votre navigateur…`,
  ok: 'Le tirage est vérifié.',
  failed: 'Le tirage ne se vérifie pas :',
  pending: 'Le tirage n’a pas encore eu lieu : sa graine est révélée à l’ouverture. Gardez l’engagement ci-dessous pour le vérifier alors.',
  unavailable: (status) => `Le tirage n’a pas pu être lu (réponse ${status}).`,
  rank: (rank, entrants) => `Votre ticket a été tiré ${rank}e sur ${entrants}.`,
  noUuid: 'Ouvrez cette page depuis votre page d’attente pour voir votre propre rang.',
  commitment: 'Engagement (SHA-256 de la graine, publié avant toute entrée)',
  seed: 'Graine (révélée à l’ouverture)',
  entrants: 'Participants',
  ticket: 'Votre ticket (SHA-256 de l’identifiant de votre place)',
  proves:
    'Vérifié ici, avec la cryptographie de votre navigateur : la graine est celle engagée avant le début de la pré-file, et l’ordre est celui de tous les tickets triés par HMAC-SHA256 de cette graine. Personne n’a donc pu choisir l’ordre, et arriver à un moment plutôt qu’à un autre n’a avantagé personne.',
  cannot: 'Ce qu’elle ne peut pas montrer : que l’opérateur n’a ajouté aucun participant à lui. Le nombre de participants était public tout du long.',
  command: 'La même vérification dans un terminal :',
};

/** French for any `fr` language tag, English otherwise. */
export function pickVerifyTexts(language: string | undefined): VerifyTexts {
  return /^fr\b/i.test(language ?? '') ? FRENCH : ENGLISH;
}
