import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf, type App, type AppWithIssued, type Issued, type LogEntry, type LogPage } from '../api';
import { ConfirmDialog, type ConfirmRequest } from '../components/confirm-dialog';
import { CopyButton } from '../components/copy';
import { ErrorText, LoadingOrError } from '../components/error-text';
import { useAction, useApp } from '../components/hooks';
import { ScopeCheckboxes } from '../components/scopes';
import { authStyleWords, formatTime, plural } from '../format';
import { fieldOfRefusal, redirectUriProblem, REDIRECT_URIS_MAX } from '../redirect-uris';
import { StatusBadge } from './apps';

const CREDENTIAL_WORDS = { appSecret: 'App Secret', apiKey: 'API key', bearerToken: 'Bearer token' } as const;
type CredentialName = keyof typeof CREDENTIAL_WORDS;
const CREDENTIAL_NAMES = Object.keys(CREDENTIAL_WORDS) as CredentialName[];

/** The answer's credential values, if any; the rest of it is the app. */
const issuedOf = (answer: AppWithIssued): Issued => ({ appSecret: answer.appSecret, apiKey: answer.apiKey, bearerToken: answer.bearerToken });
const withoutIssued = ({ appSecret: _s, apiKey: _k, bearerToken: _b, ...app }: AppWithIssued): App => app;

/** A quoted app name for dialogs and messages. */
const named = (app: App) => `“${app.name}”`;

export function AppDetailScreen({
  id,
  revealed,
  onReveal,
  onHide,
  onGone,
}: {
  id: string;
  revealed?: Issued;
  onReveal: (values: Issued) => void;
  onHide: () => void;
  onGone: (message: string) => void;
}) {
  const { app, setApp, loadError } = useApp(id);
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const heading = useRef<HTMLHeadingElement>(null);

  // A new screen: focus its heading (the credentials panel's own, when it shows new values).
  useEffect(() => {
    if (!(app && revealed)) heading.current?.focus();
  }, [id, app === undefined]);

  if (!app) {
    return (
      <>
        <p class="crumbs">
          <a href="#/apps">← All apps</a>
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {loadError ? 'App not available' : 'Loading the app…'}
        </h1>
        <LoadingOrError error={loadError} loading="Loading the app…" />
      </>
    );
  }

  const active = app.status === 'active';
  const updated = (answer: AppWithIssued) => {
    setApp(withoutIssued(answer));
    const issued = issuedOf(answer);
    if (issued.appSecret || issued.apiKey || issued.bearerToken) onReveal(issued);
  };

  return (
    <>
      <p class="crumbs">
        <a href="#/apps">← All apps</a>
      </p>
      <div class="title-row">
        <h1 ref={heading} tabIndex={-1}>
          {app.name}
        </h1>
        <StatusBadge status={app.status} />
      </div>
      {app.description && <p class="lead">{app.description}</p>}
      <p>
        <a class="button-link" href={`#/apps/${app.id}/start`}>
          Get started: code for every auth and pagination style
        </a>
      </p>
      {revealed && <RevealedPanel app={app} values={revealed} onHide={onHide} />}
      {!active && (
        <p class="notice" role="status">
          This app is revoked: its credentials and tokens are refused, and it cannot be changed. There is no un-revoke; create a new app instead.
        </p>
      )}
      <CredentialsSection app={app} onUpdated={updated} ask={setConfirm} />
      <ScopesSection app={app} onUpdated={updated} />
      <RedirectUrisSection app={app} onUpdated={updated} />
      <RequestsSection app={app} />
      <section class="danger-zone" aria-labelledby="danger-title">
        <h2 id="danger-title">Revoke or delete</h2>
        {active && (
          <div class="danger-item">
            <p>Revoking disables the app at once: every credential and token is refused. Its settings and request log stay readable.</p>
            <button
              type="button"
              class="danger"
              onClick={() =>
                setConfirm({
                  title: `Revoke ${named(app)}?`,
                  body: <p>Every credential and token of {named(app)} stops working within a second. A revoked app cannot be made active again.</p>,
                  confirmLabel: `Revoke ${named(app)}`,
                  action: async () => updated(await api<AppWithIssued>('DELETE', `apps/${app.id}?mode=revoke`)),
                })
              }
            >
              Revoke this app…
            </button>
          </div>
        )}
        <div class="danger-item">
          <p>Deleting removes the app, its credentials and its request log permanently.</p>
          <button
            type="button"
            class="danger"
            onClick={() =>
              setConfirm({
                title: `Delete ${named(app)} permanently?`,
                body: <p>{named(app)}, its credentials and its request log are deleted for good. This cannot be undone.</p>,
                confirmLabel: `Delete ${named(app)}`,
                action: async () => {
                  await api('DELETE', `apps/${app.id}`);
                  onGone(`Deleted ${named(app)}.`);
                },
              })
            }
          >
            Delete this app…
          </button>
        </div>
      </section>
      <ConfirmDialog request={confirm} onClose={() => setConfirm(undefined)} />
    </>
  );
}

/** The credential values of this moment, once, with copy buttons; held in memory only. */
function RevealedPanel({ app, values, onHide }: { app: App; values: Issued; onHide: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const shown = CREDENTIAL_NAMES.filter((name) => values[name]);
  useEffect(() => {
    heading.current?.focus();
  }, []);
  return (
    <section class="revealed" aria-labelledby="revealed-title">
      <h2 id="revealed-title" ref={heading} tabIndex={-1}>
        Save {shown.length > 1 ? 'these credentials' : 'this credential'} now
      </h2>
      <p class="warning">
        <strong>You will not see {shown.length > 1 ? 'these values' : 'this value'} again.</strong> Copy {shown.length > 1 ? 'them' : 'it'} somewhere safe now:
        the sandbox keeps only hashes and hints. If one is lost, rotate it.
      </p>
      <dl class="secrets">
        <div>
          <dt>App ID</dt>
          <dd>
            <code id="revealed-appId">{app.appId}</code>
            <CopyButton text={app.appId} what="App ID" targetId="revealed-appId" />
          </dd>
        </div>
        {shown.map((name) => (
          <div key={name}>
            <dt>{CREDENTIAL_WORDS[name]}</dt>
            <dd>
              <code id={`revealed-${name}`}>{values[name]}</code>
              <CopyButton text={values[name]!} what={CREDENTIAL_WORDS[name]} targetId={`revealed-${name}`} />
            </dd>
          </div>
        ))}
      </dl>
      <p class="muted">These values also fill the code on the Get started page until you leave this app or reload the page.</p>
      <button type="button" onClick={onHide}>
        I have saved them: hide
      </button>
    </section>
  );
}

function CredentialsSection({ app, onUpdated, ask }: { app: App; onUpdated: (answer: AppWithIssued) => void; ask: (request: ConfirmRequest) => void }) {
  const [chosen, setChosen] = useState<Record<CredentialName, boolean>>({ appSecret: false, apiKey: false, bearerToken: false });
  const [status, setStatus] = useState('');
  const [error, setError] = useState<string>();
  const active = app.status === 'active';

  const rotate = () => {
    const names = CREDENTIAL_NAMES.filter((name) => chosen[name]);
    if (names.length === 0) {
      setError('Choose at least one credential to rotate.');
      return;
    }
    setError(undefined);
    const list = names.map((name) => CREDENTIAL_WORDS[name]).join(', ');
    ask({
      title: `Rotate credentials of ${named(app)}?`,
      body: (
        <p>
          New values replace: {list}. The old {names.length > 1 ? 'ones stop' : 'one stops'} working within a second, so update every client of {named(app)}.
        </p>
      ),
      confirmLabel: `Rotate ${list}`,
      action: async () => {
        const answer = await api<AppWithIssued>('POST', `apps/${app.id}/rotate`, {
          body: { secret: chosen.appSecret, apiKey: chosen.apiKey, bearer: chosen.bearerToken },
        });
        onUpdated(answer);
        setChosen({ appSecret: false, apiKey: false, bearerToken: false });
        setStatus(`Rotated ${list}. The new ${names.length > 1 ? 'values are' : 'value is'} shown above, once.`);
      },
    });
  };

  const regenerate = () =>
    ask({
      title: `Regenerate the App Secret of ${named(app)}?`,
      body: (
        <p>The current App Secret of {named(app)} stops working within a second. OAuth tokens already issued keep working until they expire or are revoked.</p>
      ),
      confirmLabel: 'Regenerate the App Secret',
      action: async () => {
        onUpdated(await api<AppWithIssued>('POST', `apps/${app.id}/secret`));
        setStatus('Regenerated the App Secret. The new value is shown above, once.');
      },
    });

  return (
    <section class="card" aria-labelledby="credentials-title">
      <h2 id="credentials-title">Credentials</h2>
      <dl class="facts">
        <div>
          <dt>App ID</dt>
          <dd>
            <code id="app-id">{app.appId}</code> <CopyButton text={app.appId} what="App ID" targetId="app-id" />
          </dd>
        </div>
        {CREDENTIAL_NAMES.map((name) => (
          <div key={name}>
            <dt>{CREDENTIAL_WORDS[name]}</dt>
            <dd>
              ends in <code>…{app.credentials[name].hint}</code>, issued{' '}
              <time dateTime={app.credentials[name].createdAt}>{formatTime(app.credentials[name].createdAt)}</time>
            </dd>
          </div>
        ))}
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={app.createdAt}>{formatTime(app.createdAt)}</time>
          </dd>
        </div>
      </dl>
      {active && (
        <>
          <fieldset class="rotate" aria-describedby={error ? 'rotate-error' : undefined}>
            <legend>Rotate credentials</legend>
            <ul class="checks">
              {CREDENTIAL_NAMES.map((name) => (
                <li key={name}>
                  <input
                    type="checkbox"
                    id={`rotate-${name}`}
                    checked={chosen[name]}
                    onChange={(e) => setChosen({ ...chosen, [name]: e.currentTarget.checked })}
                  />
                  <label for={`rotate-${name}`}>{CREDENTIAL_WORDS[name]}</label>
                </li>
              ))}
            </ul>
            <button type="button" onClick={rotate}>
              Rotate chosen credentials…
            </button>
            <ErrorText id="rotate-error" message={error} />
          </fieldset>
          <p>
            <button type="button" onClick={regenerate}>
              Regenerate the App Secret…
            </button>
          </p>
        </>
      )}
      <p role="status" class="status">
        {status}
      </p>
    </section>
  );
}

function ScopesSection({ app, onUpdated }: { app: App; onUpdated: (answer: AppWithIssued) => void }) {
  const [scopes, setScopes] = useState<string[]>(app.scopes);
  const [status, setStatus] = useState('');
  const { busy, error, run } = useAction();
  const active = app.status === 'active';

  useEffect(() => setScopes(app.scopes), [app.scopes.join(' ')]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setStatus('Saving the scopes…');
    const ok = await run(async () => onUpdated(await api<AppWithIssued>('PUT', `apps/${app.id}/scopes`, { body: { scopes } })));
    setStatus(ok ? `Saved: ${scopes.length ? scopes.join(', ') : 'no scopes (every data request answers 403)'}.` : '');
  };

  if (!active) {
    return (
      <section class="card" aria-labelledby="scopes-title">
        <h2 id="scopes-title">Scopes</h2>
        <p>{app.scopes.length ? app.scopes.join(', ') : 'none'}</p>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="scopes-title">
      <h2 id="scopes-title">Scopes</h2>
      <form noValidate onSubmit={save}>
        <ScopeCheckboxes idPrefix="scope" legend="Packs this app may read" selected={scopes} onChange={setScopes} error={error?.message} />
        <div class="actions">
          <button type="submit" aria-disabled={busy ? 'true' : undefined}>
            Save scopes
          </button>
        </div>
      </form>
      <p role="status" class="status">
        {status}
      </p>
    </section>
  );
}

function RedirectUrisSection({ app, onUpdated }: { app: App; onUpdated: (answer: AppWithIssued) => void }) {
  const [uris, setUris] = useState<string[]>(app.redirectUris);
  const [problems, setProblems] = useState<Array<string | undefined>>([]);
  const [formError, setFormError] = useState<string>();
  const [status, setStatus] = useState('');
  const [busy, setBusy] = useState(false);
  const list = useRef<HTMLUListElement>(null);
  const active = app.status === 'active';

  useEffect(() => {
    setUris(app.redirectUris);
    setProblems([]);
  }, [app.redirectUris.join('\n')]);

  const focusField = (index: number) => list.current?.querySelectorAll('input')[index]?.focus();

  const add = () => {
    if (uris.length >= REDIRECT_URIS_MAX) return;
    setUris([...uris, '']);
    setStatus(`Added field ${uris.length + 1}.`);
    setTimeout(() => focusField(uris.length), 0);
  };
  const remove = (index: number) => {
    setUris(uris.filter((_, i) => i !== index));
    setProblems(problems.filter((_, i) => i !== index));
    setStatus(`Removed redirect URI ${index + 1}. Save to keep the change.`);
  };

  const save = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setFormError(undefined);
    const found = uris.map((uri) => redirectUriProblem(uri));
    setProblems(found);
    const first = found.findIndex(Boolean);
    if (first >= 0) {
      setStatus('');
      focusField(first);
      return;
    }
    setBusy(true);
    setStatus('Saving the redirect URIs…');
    try {
      onUpdated(await api<AppWithIssued>('PUT', `apps/${app.id}/redirect-uris`, { body: { redirectUris: uris } }));
      setStatus(`Saved ${plural(uris.length, 'redirect URI')}.`);
    } catch (failure) {
      setStatus('');
      const index = failure instanceof ApiError ? fieldOfRefusal(failure.message) : undefined;
      if (index !== undefined && index < uris.length) {
        setProblems(uris.map((_, i) => (i === index ? messageOf(failure) : undefined)));
        focusField(index);
      } else {
        setFormError(messageOf(failure));
      }
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="redirect-title">
      <h2 id="redirect-title">Redirect URIs</h2>
      <p class="hint" id="redirect-hint">
        Where OAuth 2.0 sends authorization codes, matched exactly. At most {REDIRECT_URIS_MAX}: https://…, http:// only with 127.0.0.1, [::1] or localhost, or
        an app scheme such as com.example.app:/callback.
      </p>
      {!active ? (
        <ul>
          {app.redirectUris.length ? (
            app.redirectUris.map((uri) => (
              <li key={uri}>
                <code>{uri}</code>
              </li>
            ))
          ) : (
            <li>none</li>
          )}
        </ul>
      ) : (
        <form noValidate onSubmit={save}>
          {uris.length === 0 && <p>No redirect URIs yet.</p>}
          <ul class="uri-list" ref={list}>
            {uris.map((uri, index) => (
              <li key={index} class="field">
                <label for={`redirect-${index}`}>Redirect URI {index + 1}</label>
                <div class="inline">
                  <input
                    id={`redirect-${index}`}
                    type="url"
                    inputMode="url"
                    spellcheck={false}
                    autoComplete="off"
                    value={uri}
                    aria-invalid={problems[index] ? 'true' : undefined}
                    aria-describedby={problems[index] ? `redirect-${index}-error` : 'redirect-hint'}
                    onInput={(e) => {
                      const value = e.currentTarget.value;
                      setUris(uris.map((u, i) => (i === index ? value : u)));
                    }}
                  />
                  <button type="button" class="small" onClick={() => remove(index)}>
                    Remove <span class="visually-hidden">redirect URI {index + 1}</span>
                  </button>
                </div>
                <ErrorText id={`redirect-${index}-error`} message={problems[index]} />
              </li>
            ))}
          </ul>
          <div class="actions">
            {uris.length < REDIRECT_URIS_MAX ? (
              <button type="button" onClick={add}>
                Add a redirect URI
              </button>
            ) : (
              <p class="hint">That is the most an app may have ({REDIRECT_URIS_MAX}).</p>
            )}
            <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined} aria-describedby={formError ? 'redirect-error' : undefined}>
              Save redirect URIs
            </button>
          </div>
          <ErrorText id="redirect-error" message={formError} />
        </form>
      )}
      <p role="status" class="status">
        {status}
      </p>
    </section>
  );
}

function RequestsSection({ app }: { app: App }) {
  const [entries, setEntries] = useState<LogEntry[]>();
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<string>();
  const [status, setStatus] = useState('Loading recent requests…');
  const { busy, error, run } = useAction();

  const load = async (more: boolean) => {
    if (busy) return;
    setStatus(more ? 'Loading older requests…' : 'Refreshing…');
    const query = new URLSearchParams({ page_size: '20' });
    if (more && next) query.set('pageToken', next);
    const ok = await run(async () => {
      const page = await api<LogPage>('GET', `apps/${app.id}/logs?${query}`);
      const all = more ? [...(entries ?? []), ...page.entries] : page.entries;
      setEntries(all);
      setTotal(page.total);
      setNext(page.nextPageToken);
      setStatus(
        page.total === 0
          ? `No requests yet (checked ${new Date().toLocaleTimeString()}).`
          : `Showing ${all.length} of ${plural(page.total, 'request')}, newest first (checked ${new Date().toLocaleTimeString()}).`,
      );
    });
    if (!ok) setStatus('');
  };

  useEffect(() => {
    void load(false);
  }, [app.id]);

  return (
    <section class="card" aria-labelledby="requests-title">
      <div class="title-row">
        <h2 id="requests-title">Recent requests</h2>
        <button type="button" onClick={() => load(false)} aria-describedby={error ? 'requests-error' : undefined}>
          Refresh
        </button>
      </div>
      <p class="hint">Requests made with this app's credentials, refusals included (with the reason). New ones appear within a few seconds.</p>
      <p role="status" class="status">
        {status}
      </p>
      <ErrorText id="requests-error" message={error?.message} />
      {entries && entries.length > 0 && (
        <ol class="log" aria-label="Recent requests, newest first">
          {entries.map((entry) => (
            <li key={`${entry.requestId}-${entry.time}`} class={entry.status >= 400 ? 'refused' : 'ok'}>
              <p class="log-line">
                <span class="method">{entry.method}</span> <span class="path">{entry.path}</span>{' '}
                <span class={`code code-${Math.floor(entry.status / 100)}xx`}>{entry.status}</span>
              </p>
              <p class="log-meta">
                <time dateTime={entry.time}>{formatTime(entry.time)}</time> · {authStyleWords(entry.authStyle)} · {entry.latencyMs} ms
              </p>
              <p class="log-meta">
                Request ID <code>{entry.requestId}</code>
              </p>
              {entry.failure && <p class="failure">Refused: {entry.failure}</p>}
            </li>
          ))}
        </ol>
      )}
      {next && total > (entries?.length ?? 0) && (
        <button type="button" onClick={() => load(true)}>
          Show older requests
        </button>
      )}
    </section>
  );
}
