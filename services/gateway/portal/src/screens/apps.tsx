import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, messageOf, type App, type AppWithIssued } from '../api';
import { ConfirmDialog, type ConfirmRequest } from '../components/confirm-dialog';
import { ErrorText } from '../components/error-text';
import { useAction } from '../components/hooks';
import { ScopeCheckboxes } from '../components/scopes';
import { formatTime, plural } from '../format';
import { ALL_SCOPES } from '../scopes';

type CreateField = 'name' | 'description' | 'scopes' | 'form';

function createFieldOf(code: string): CreateField {
  if (code.startsWith('name_') || code === 'invalid_name') return 'name';
  if (code.startsWith('description_') || code === 'invalid_description') return 'description';
  if (code === 'unknown_scope') return 'scopes';
  return 'form';
}

export function AppsScreen({ flash, onCreated }: { flash?: string; onCreated: (app: AppWithIssued) => void }) {
  const [apps, setApps] = useState<App[]>();
  const [status, setStatus] = useState('Loading your apps…');
  const [loadError, setLoadError] = useState<string>();
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const heading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    setLoadError(undefined);
    try {
      const answer = await api<{ apps: App[] }>('GET', 'apps');
      setApps(answer.apps);
      setStatus(answer.apps.length ? `You have ${plural(answer.apps.length, 'app')}.` : 'You have no apps yet.');
    } catch (failure) {
      setLoadError(messageOf(failure));
      setStatus('');
    }
  };

  useEffect(() => {
    heading.current?.focus();
    void load();
  }, []);

  const askReset = () =>
    setConfirm({
      title: 'Delete all your apps?',
      body: (
        <p>
          This deletes {apps?.length ? `all ${plural(apps.length, 'app')}` : 'every app'} of yours permanently, with their credentials and request logs. Their
          credentials stop working at once. This cannot be undone.
        </p>
      ),
      confirmLabel: 'Delete all my apps',
      action: async () => {
        const answer = await api<{ deleted: number }>('POST', 'me/reset');
        await load();
        setStatus(`Deleted ${plural(answer.deleted, 'app')}. You have no apps now.`);
      },
    });

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Your apps
      </h1>
      {flash && (
        <p class="notice" role="status">
          {flash}
        </p>
      )}
      <p role="status" class="status">
        {status}
      </p>
      {loadError && (
        <div class="error-box" role="alert">
          <p>{loadError}</p>
          <button type="button" onClick={load}>
            Try again
          </button>
        </div>
      )}
      {apps && apps.length > 0 && (
        <ul class="app-list" aria-label="Your apps">
          {apps.map((app) => (
            <li key={app.id} class="card">
              <p class="app-name">
                <a href={`#/apps/${app.id}`}>{app.name}</a> <StatusBadge status={app.status} />
              </p>
              {app.description && <p class="muted">{app.description}</p>}
              <dl class="facts">
                <div>
                  <dt>App ID</dt>
                  <dd>
                    <code>{app.appId}</code>
                  </dd>
                </div>
                <div>
                  <dt>Scopes</dt>
                  <dd>{app.scopes.length ? app.scopes.join(', ') : 'none'}</dd>
                </div>
                <div>
                  <dt>Created</dt>
                  <dd>
                    <time dateTime={app.createdAt}>{formatTime(app.createdAt)}</time>
                  </dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <CreateAppForm onCreated={onCreated} />
      {apps && apps.length > 0 && (
        <section class="danger-zone" aria-labelledby="reset-title">
          <h2 id="reset-title">Start over</h2>
          <p>Delete every app you have, with their credentials and request logs.</p>
          <button type="button" class="danger" onClick={askReset}>
            Delete all my apps…
          </button>
        </section>
      )}
      <ConfirmDialog request={confirm} onClose={() => setConfirm(undefined)} />
    </>
  );
}

export function StatusBadge({ status }: { status: App['status'] }) {
  return <span class={`badge badge-${status}`}>{status === 'active' ? 'Active' : 'Revoked'}</span>;
}

function CreateAppForm({ onCreated }: { onCreated: (app: AppWithIssued) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [scopes, setScopes] = useState<string[]>([...ALL_SCOPES]);
  const [errors, setErrors] = useState<Partial<Record<CreateField, string>>>({});
  const { busy, run } = useAction();
  const nameInput = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    if (!name.trim()) {
      setErrors({ name: 'Give the app a name.' });
      nameInput.current?.focus();
      return;
    }
    setErrors({});
    await run(async () => {
      try {
        const created = await api<AppWithIssued>('POST', 'apps', { body: { name, description, scopes } });
        onCreated(created);
      } catch (failure) {
        setErrors({ [failure instanceof ApiError ? createFieldOf(failure.code) : 'form']: messageOf(failure) });
        throw failure;
      }
    });
  };

  return (
    <section class="card create" aria-labelledby="create-title">
      <h2 id="create-title">Create an app</h2>
      <p class="muted">Its App ID, App Secret, API key and bearer token are shown once, right after it is created.</p>
      <form noValidate onSubmit={submit}>
        <div class="field">
          <label for="app-name">Name</label>
          <input
            id="app-name"
            ref={nameInput}
            name="name"
            maxLength={100}
            required
            value={name}
            aria-invalid={errors.name ? 'true' : undefined}
            aria-describedby={errors.name ? 'app-name-error' : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <ErrorText id="app-name-error" message={errors.name} />
        </div>
        <div class="field">
          <label for="app-description">
            Description <span class="muted">(optional)</span>
          </label>
          <textarea
            id="app-description"
            name="description"
            maxLength={1000}
            rows={2}
            value={description}
            aria-invalid={errors.description ? 'true' : undefined}
            aria-describedby={errors.description ? 'app-description-error' : undefined}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <ErrorText id="app-description-error" message={errors.description} />
        </div>
        <ScopeCheckboxes idPrefix="create-scope" legend="Scopes" selected={scopes} onChange={setScopes} error={errors.scopes} />
        <div class="actions">
          <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>
            {busy ? 'Creating…' : 'Create app'}
          </button>
        </div>
        <ErrorText message={errors.form} />
      </form>
    </section>
  );
}
