import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import { SignIn } from '../../../src/admin/SignIn';
import { createFakeFetch } from '../fakes/fake-fetch';
import { ENGLISH, FRENCH } from '../../../src/admin/texts';

describe("the console's sign-in form", () => {
  const realFetch = global.fetch;
  afterEach(() => {
    global.fetch = realFetch;
  });

  const answer = (status: number, body: unknown) => {
    const fake = createFakeFetch(() => ({ status, body }));
    return Object.assign(jest.fn(fake.fetch), { calls: fake.calls });
  };

  it('should send the typed token once, clear the field and hand over the session', async () => {
    const fetch = answer(200, { csrfToken: 'csrf', expiresAt: 1 });
    global.fetch = fetch as typeof global.fetch;
    const signedIn = jest.fn();
    render(<SignIn texts={ENGLISH} onSignedIn={signedIn} />);

    const field = screen.getByLabelText<HTMLInputElement>('Admin token');
    expect(field.type).toBe('password');
    fireEvent.change(field, { target: { value: 'the-admin-token' } });
    fireEvent.click(screen.getByRole('button', { name: 'Sign in' }));

    await waitFor(() => expect(signedIn).toHaveBeenCalledWith({ csrfToken: 'csrf', expiresAt: 1 }));
    expect(fetch).toHaveBeenCalledWith('/admin/session', expect.objectContaining({ method: 'POST', body: '{"token":"the-admin-token"}' }));
    expect(field.value).toBe('');
    expect(window.localStorage.length + window.sessionStorage.length).toBe(0);
  });

  it("should say a wrong token as an alert tied to the field, in the console's language", async () => {
    global.fetch = answer(401, { error: { code: 'unauthorized', message: 'The admin token is wrong.' } }) as typeof global.fetch;
    render(<SignIn texts={FRENCH} onSignedIn={jest.fn()} />);
    fireEvent.change(screen.getByLabelText("Jeton d'administration"), { target: { value: 'guess' } });
    fireEvent.click(screen.getByRole('button', { name: 'Se connecter' }));

    expect((await screen.findByRole('alert')).textContent).toBe('Ce jeton est faux.');
    expect(screen.getByLabelText("Jeton d'administration").getAttribute('aria-invalid')).toBe('true');
  });
});
