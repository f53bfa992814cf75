import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, onSessionEnded, type Issued, type User } from './api';
import { useRoute } from './components/hooks';
import { hrefOf, type Route } from './route';
import { clearToken, loadToken, saveToken } from './session';
import { AppDetailScreen } from './screens/app-detail';
import { AppsScreen } from './screens/apps';
import { ClassesScreen, ClassScreen } from './screens/classes';
import { ExercisesScreen } from './screens/exercises';
import { GetStartedScreen } from './screens/get-started';
import { SignInScreen } from './screens/sign-in';
import { forgetSsoHash, ssoErrorIn, ssoSignedInIn, type SsoError } from './sso';

export const SESSION_ENDED = 'Your session ended; sign in again.';

/** Credentials on screen right now: of one app, in memory only, gone on leaving that app or reloading. */
export interface Revealed {
  appId: string;
  values: Issued;
}

export function Portal() {
  const [token, setToken] = useState(loadToken);
  const [user, setUser] = useState<User>();
  const [notice, setNotice] = useState<string>();
  const [flash, setFlash] = useState<string>();
  const [revealed, setRevealed] = useState<Revealed>();
  // Back from single sign-on: with an error to show, or with a session to pick up (sso.ts); read once.
  const [ssoError, setSsoError] = useState<SsoError | undefined>(() => ssoErrorIn(location.hash));
  const [pickingUp, setPickingUp] = useState(() => ssoSignedInIn(location.hash));
  const route = useRoute();

  useEffect(() => {
    onSessionEnded(() => {
      setToken(undefined);
      setUser(undefined);
      setRevealed(undefined);
      setNotice(SESSION_ENDED);
    });
  }, []);

  useEffect(() => {
    if (ssoError) forgetSsoHash('sign-in');
    if (!pickingUp) return;
    forgetSsoHash('apps');
    api<{ token: string }>('POST', 'auth/sso/session', { session: false, cookies: true })
      .then((answer) => signedIn(answer.token))
      .catch((failure) => setSsoError({ code: 'pick_up', message: messageOf(failure) }))
      .finally(() => setPickingUp(false));
  }, []);

  // Who is signed in; a stored token that no longer works ends here, with the message.
  useEffect(() => {
    if (!token) return;
    let current = true;
    api<User>('GET', 'me')
      .then((me) => current && setUser(me))
      .catch(() => undefined); // a 401 already went through onSessionEnded; anything else leaves the header without an email
    return () => {
      current = false;
    };
  }, [token]);

  // Credentials stay on screen only while the learner stays with that app.
  useEffect(() => {
    if (revealed && !((route.screen === 'app' || route.screen === 'start') && route.id === revealed.appId)) setRevealed(undefined);
    if (route.screen !== 'apps' && route.screen !== 'classes') setFlash(undefined);
  }, [route]);

  function signedIn(newToken: string) {
    saveToken(newToken);
    setNotice(undefined);
    setSsoError(undefined);
    setToken(newToken);
  }

  const signOut = async () => {
    try {
      await api('POST', 'auth/logout');
    } catch (error) {
      // The token is forgotten whatever the answer; an ended session is already what signing out wants.
      void messageOf(error);
    }
    clearToken();
    setToken(undefined);
    setUser(undefined);
    setRevealed(undefined);
    setNotice('You are signed out.');
  };

  const reveal = (appId: string, values: Issued) =>
    setRevealed((previous) => ({ appId, values: { ...(previous?.appId === appId ? previous.values : {}), ...values } }));

  return (
    <>
      <a
        class="skip"
        href="#main"
        onClick={(event) => {
          // The hash holds the page's route: move focus without navigating.
          event.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <header class="top">
        <div class="top-inner">
          <p class="brand">
            <a href="#/apps">Training Sandbox portal</a>
          </p>
          {token && (
            <div class="account">
              {user && (
                <span class="who">
                  Signed in as <strong>{user.email || user.id}</strong>
                </span>
              )}
              <button type="button" class="small" onClick={signOut}>
                Sign out
              </button>
            </div>
          )}
        </div>
      </header>
      {token && !pickingUp && <MainNav route={route} operator={user?.operator === true} />}
      <main id="main" tabIndex={-1}>
        {pickingUp ? (
          <p role="status">Finishing the sign-in…</p>
        ) : !token ? (
          <SignInScreen notice={notice} ssoError={ssoError} onSignedIn={signedIn} />
        ) : route.screen === 'apps' ? (
          <AppsScreen
            flash={flash}
            onCreated={(app) => {
              reveal(app.id, { appSecret: app.appSecret, apiKey: app.apiKey, bearerToken: app.bearerToken });
              location.hash = `#/apps/${app.id}`;
            }}
          />
        ) : route.screen === 'app' ? (
          <AppDetailScreen
            id={route.id}
            revealed={revealed?.appId === route.id ? revealed.values : undefined}
            onReveal={(values) => reveal(route.id, values)}
            onHide={() => setRevealed(undefined)}
            onGone={(message) => {
              setFlash(message);
              location.hash = '#/apps';
            }}
          />
        ) : route.screen === 'start' ? (
          <GetStartedScreen id={route.id} style={route.style} revealed={revealed?.appId === route.id ? revealed.values : undefined} />
        ) : route.screen === 'exercises' ? (
          <ExercisesScreen />
        ) : route.screen === 'classes' ? (
          <ClassesScreen flash={flash} />
        ) : (
          <ClassScreen
            id={route.id}
            onGone={(message) => {
              setFlash(message);
              location.hash = hrefOf({ screen: 'classes' });
            }}
          />
        )}
      </main>
      <footer class="bottom">
        {/* Relative, like every address of the page: they work behind a proxy prefix too. */}
        <nav aria-label="Documentation">
          <a href="../docs/">API reference</a>
          <a href="../guides/">Guides</a>
          <a href="../openapi.json">OpenAPI document</a>
          <a href="../postman/training-sandbox.postman_collection.json">Postman collection</a>
          <a href="../postman/training-sandbox.postman_environment.json">Postman environment</a>
        </nav>
      </footer>
    </>
  );
}

/**
 * The signed-in learner's screens. Classes only for an operator, as GET
 * /api/me says: for anyone else its API answers 404 like every operator
 * route, so offering it would only lead to an error.
 */
function MainNav({ route, operator }: { route: Route; operator: boolean }) {
  const current = route.screen === 'app' || route.screen === 'start' ? 'apps' : route.screen === 'class' ? 'classes' : route.screen;
  const items: Array<{ screen: 'apps' | 'exercises' | 'classes'; label: string }> = [
    { screen: 'apps', label: 'Your apps' },
    { screen: 'exercises', label: 'Exercises' },
    ...(operator ? [{ screen: 'classes' as const, label: 'Classes' }] : []),
  ];
  return (
    <nav class="main-nav" aria-label="Portal">
      <ul>
        {items.map((item) => (
          <li key={item.screen}>
            <a href={hrefOf({ screen: item.screen })} aria-current={current === item.screen ? 'page' : undefined}>
              {item.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
