import { useEffect, useState } from 'react';
import { consoleApi, type ConsoleSession } from './api';
import { Dashboard } from './Dashboard';
import { SignIn } from './SignIn';
import type { ConsoleTexts } from './texts';

type State = { readonly kind: 'checking' } | { readonly kind: 'signed-out' } | { readonly kind: 'signed-in'; readonly session: ConsoleSession };

/** The console: the sign-in form until there is a session, then the dashboard. */
export function App({ texts }: { readonly texts: ConsoleTexts }) {
  const [state, setState] = useState<State>({ kind: 'checking' });
  useEffect(() => {
    let live = true;
    consoleApi
      .session()
      .then((session) => live && setState(session ? { kind: 'signed-in', session } : { kind: 'signed-out' }))
      .catch(() => live && setState({ kind: 'signed-out' }));
    return () => {
      live = false;
    };
  }, []);
  if (state.kind === 'checking') return <p className="ac-muted">{texts.connecting}</p>;
  if (state.kind === 'signed-out') return <SignIn texts={texts} onSignedIn={(session) => setState({ kind: 'signed-in', session })} />;
  return <Dashboard texts={texts} session={state.session} onSignedOut={() => setState({ kind: 'signed-out' })} />;
}
