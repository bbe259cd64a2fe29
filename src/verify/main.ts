import { pickVerifyTexts } from './texts';
import { checkDraw, renderOutcome, verifyRequestOf } from './verify-page';

// The page that checks a draw in the browser: `/events/{id}/verify#uuid=…&commitment=…`.
const root = document.getElementById('verify') ?? document.body;
const texts = pickVerifyTexts(navigator.language);
document.documentElement.lang = texts.lang;
document.title = texts.title;
const request = verifyRequestOf(location);
void checkDraw(
  request,
  (url) => fetch(url, { headers: { accept: 'application/json' } }),
  (outcome) => renderOutcome(root, outcome, request, texts, location.origin),
);
