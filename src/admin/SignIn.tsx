import { useState, type FormEvent } from 'react';
import { ApiError, consoleApi, type ConsoleSession } from './api';
import type { ConsoleTexts } from './texts';

/**
 * The admin token typed into a password field and sent once to `POST /admin/session`, which
 * answers with an HttpOnly cookie: the token is never written anywhere a script can read again.
 */
export function SignIn({ texts, onSignedIn }: { readonly texts: ConsoleTexts; readonly onSignedIn: (session: ConsoleSession) => void }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = event.currentTarget.elements.namedItem('token') as HTMLInputElement;
    setBusy(true);
    setError(undefined);
    try {
      const session = await consoleApi.signIn(field.value);
      field.value = '';
      onSignedIn(session);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? texts.wrongToken
          : failure instanceof ApiError && failure.status === 429
            ? texts.tooManyTries
            : texts.failed((failure as Error).message),
      );
      field.focus();
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="ac-card ac-sign-in" onSubmit={(event) => void submit(event)} aria-labelledby="ac-sign-in-heading">
      <h1 id="ac-sign-in-heading">{texts.signInHeading}</h1>
      <label htmlFor="ac-token">{texts.tokenLabel}</label>
      <input
        id="ac-token"
        name="token"
        type="password"
        autoComplete="current-password"
        required
        aria-describedby="ac-token-hint"
        aria-invalid={error ? true : undefined}
        aria-errormessage={error ? 'ac-sign-in-error' : undefined}
      />
      <p id="ac-token-hint" className="ac-muted">
        {texts.tokenHint}
      </p>
      {error && (
        <p id="ac-sign-in-error" className="ac-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {texts.signIn}
      </button>
    </form>
  );
}
