import { readVerifyTexts } from './texts';
import { checkDraw, renderOutcome, verifyRequestOf } from './verify-page';

// The page that checks a draw in the browser: `/events/{id}/verify#uuid=…&commitment=…`, in the
// language the server wrote it in (its <html lang dir> already say it).
const root = document.getElementById('verify') ?? document.body;
const texts = readVerifyTexts(document);
const request = verifyRequestOf(location);
void checkDraw(
  request,
  (url) => fetch(url, { headers: { accept: 'application/json' } }),
  (outcome) => renderOutcome(root, outcome, request, texts, location.origin),
);
