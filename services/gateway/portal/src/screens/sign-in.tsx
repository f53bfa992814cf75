import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf } from '../api';
import { ErrorText } from '../components/error-text';

type Mode = 'sign-in' | 'register';
type Field = 'email' | 'password' | 'form';

/** Which field an API refusal is about (docs/identity.md, Bad input). */
function fieldOf(code: string): Field {
  if (code === 'invalid_email' || code === 'email_taken') return 'email';
  if (code.startsWith('password_')) return 'password';
  return 'form';
}

export function SignInScreen({ notice, onSignedIn }: { notice?: string; onSignedIn: (token: string) => void }) {
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
      <p class="lead">
        Register apps, get their credentials and try every authentication and pagination style of the Training Sandbox. This is a practice
        sandbox: never use a password or credential you use anywhere real.
      </p>
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
            aria-describedby={errors.email ? 'email-error' : undefined}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
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
      <p class="switch">
        {registering ? 'Already have an account?' : 'New here?'}{' '}
        <button type="button" class="link" onClick={switchMode}>
          {registering ? 'Sign in instead' : 'Create an account'}
        </button>
      </p>
    </section>
  );
}
