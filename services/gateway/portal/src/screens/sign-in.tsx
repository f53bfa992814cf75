import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf } from '../api';
import { ErrorText } from '../components/error-text';
import { SSO_START, ssoErrorMessage, type SignInOptions, type SsoError } from '../sso';

type Mode = 'sign-in' | 'register';
type Field = 'email' | 'password' | 'form';

/** Which field an API refusal is about (docs/identity.md, Bad input). */
function fieldOf(code: string): Field {
  if (code === 'invalid_email' || code === 'email_taken') return 'email';
  if (code.startsWith('password_')) return 'password';
  return 'form';
}

/** "example.edu", "example.edu or example.org", "a.edu, b.edu or c.edu". */
const either = (items: string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`);

export function SignInScreen({ notice, ssoError, onSignedIn }: { notice?: string; ssoError?: SsoError; onSignedIn: (token: string) => void }) {
  // What this sandbox offers (GET /api/auth/options); until it is known, or if it cannot be, everything is shown as before and the API still says no where it must.
  const [options, setOptions] = useState<SignInOptions>();
  const [mode, setMode] = useState<Mode>('sign-in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Partial<Record<Field, string>>>({});
  const [busy, setBusy] = useState(false);
  const heading = useRef<HTMLHeadingElement>(null);
  const emailInput = useRef<HTMLInputElement>(null);
  const passwordInput = useRef<HTMLInputElement>(null);
  const registering = mode === 'register';

  useEffect(() => {
    heading.current?.focus();
  }, [mode]);

  useEffect(() => {
    let current = true;
    api<SignInOptions>('GET', 'auth/options', { session: false })
      .then((answer) => current && setOptions(answer))
      .catch(() => undefined);
    return () => {
      current = false;
    };
  }, []);

  const localSignIn = options?.localSignIn !== false;
  const canSignUp = localSignIn && options?.signUp !== 'closed';
  const domains = options?.signUp === 'domain' ? options.domains : [];
  const sso = options?.sso ?? undefined;

  // Sign-up closed while the form was open: back to signing in.
  useEffect(() => {
    if (mode === 'register' && options && !canSignUp) setMode('sign-in');
  }, [options]);

  const submit = async (event: Event) => {
    event.preventDefault();
    const found: Partial<Record<Field, string>> = {};
    if (!email.trim()) found.email = 'Enter your email address.';
    if (!password) found.password = registering ? 'Choose a password of at least 8 characters.' : 'Enter your password.';
    else if (registering && [...password].length < 8) found.password = 'Use at least 8 characters.';
    setErrors(found);
    if (found.email) return emailInput.current?.focus();
    if (found.password) return passwordInput.current?.focus();
    setBusy(true);
    try {
      const answer = await api<{ token: string }>('POST', registering ? 'auth/register' : 'auth/login', { body: { email, password }, session: false });
      setPassword('');
      onSignedIn(answer.token);
    } catch (failure) {
      const field = failure instanceof ApiError ? fieldOf(failure.code) : 'form';
      setErrors({ [field]: messageOf(failure) });
      if (field === 'email') emailInput.current?.focus();
      if (field === 'password') passwordInput.current?.focus();
    } finally {
      setBusy(false);
    }
  };

  const switchMode = () => {
    setMode(registering ? 'sign-in' : 'register');
    setErrors({});
  };

  return (
    <section class="narrow" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title" ref={heading} tabIndex={-1}>
        {registering ? 'Create a portal account' : 'Sign in'}
      </h1>
      {notice && (
        <p class="notice" role="status">
          {notice}
        </p>
      )}
      {ssoError && (
        <div class="error-box" role="alert">
          <p>{ssoErrorMessage(ssoError, sso?.name)}</p>
          {ssoError.description && <p>{`${sso?.name ?? 'The provider'} said: “${ssoError.description}”`}</p>}
        </div>
      )}
      <p class="lead">
        Register apps, get their credentials and try every authentication and pagination style of the Training Sandbox. This is a practice sandbox: never use a
        password or credential you use anywhere real.
      </p>
      {sso && !registering && (
        <p class="sso">
          {/* A navigation, not a fetch: the browser goes to the provider and back. Relative, so a proxy prefix is kept. */}
          <a class="button-link primary" href={SSO_START}>
            Sign in with {sso.name}
          </a>
        </p>
      )}
      {sso && localSignIn && !registering && <p class="divider">or with your email and password</p>}
      {!localSignIn && !sso && (
        <p class="notice" role="status">
          Signing in is switched off on this sandbox. Ask whoever runs it for access.
        </p>
      )}
      {localSignIn && (
        <form noValidate onSubmit={submit} aria-describedby={errors.form ? 'form-error' : undefined}>
          <div class="field">
            <label for="email">Email</label>
            <input
              id="email"
              ref={emailInput}
              type="email"
              name="email"
              autoComplete="email"
              required
              value={email}
              aria-invalid={errors.email ? 'true' : undefined}
              aria-describedby={[registering && domains.length ? 'email-hint' : '', errors.email ? 'email-error' : ''].filter(Boolean).join(' ') || undefined}
              onInput={(e) => setEmail(e.currentTarget.value)}
            />
            {registering && domains.length > 0 && (
              <p id="email-hint" class="hint">
                Sign-up here is for email addresses at {either(domains)}.
              </p>
            )}
            <ErrorText id="email-error" message={errors.email} />
          </div>
          <div class="field">
            <label for="password">Password</label>
            <input
              id="password"
              ref={passwordInput}
              type="password"
              name="password"
              autoComplete={registering ? 'new-password' : 'current-password'}
              required
              value={password}
              aria-invalid={errors.password ? 'true' : undefined}
              aria-describedby={[registering ? 'password-hint' : '', errors.password ? 'password-error' : ''].filter(Boolean).join(' ') || undefined}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
            {registering && (
              <p id="password-hint" class="hint">
                8 to 200 characters.
              </p>
            )}
            <ErrorText id="password-error" message={errors.password} />
          </div>
          <div class="actions">
            <button type="submit" class="primary" disabled={busy}>
              {busy ? (registering ? 'Creating the account…' : 'Signing in…') : registering ? 'Create account' : 'Sign in'}
            </button>
          </div>
          <ErrorText id="form-error" message={errors.form} />
        </form>
      )}
      {(canSignUp || registering) && (
        <p class="switch">
          {registering ? 'Already have an account?' : 'New here?'}{' '}
          <button type="button" class="link" onClick={switchMode}>
            {registering ? 'Sign in instead' : 'Create an account'}
          </button>
          {!registering && domains.length > 0 && <span class="hint"> (for email addresses at {either(domains)})</span>}
        </p>
      )}
    </section>
  );
}
