import { useEffect, useRef, useState } from 'preact/hooks';
import { api, apiFile, ApiError, messageOf, saveBlob, type Class, type ClassCell, type ClassView } from '../api';
import { ConfirmDialog, type ConfirmRequest } from '../components/confirm-dialog';
import { CopyButton } from '../components/copy';
import { ErrorText, LoadingOrError } from '../components/error-text';
import { useAction, usePolling } from '../components/hooks';
import { formatTime, plural } from '../format';
import { hrefOf } from '../route';
import { GROUP_TITLES } from './exercises';

/** How often the class view asks for its grid while it is visible: an instructor glances at it, a learner's screen is the one that must feel live. */
export const CLASS_POLL_MS = 5_000;
/** The API's own default (docs/exercises.md, "Classes"), so the first view is the one the CLI shows. */
const STUCK_MINUTES_DEFAULT = 15;

/** The grid's states as short text, so that a cell is read, not guessed from a colour (the legend says each in full). */
const CELL_WORDS = {
  done: { short: 'D', long: 'Done' },
  stuck: { short: 'S', long: 'Stuck: attempted, not done, for longer than the stuck time' },
  attempted: { short: 'A', long: 'Attempted, not done' },
  not_started: { short: '–', long: 'Not started' },
} as const;
const cellState = (cell: ClassCell | undefined): keyof typeof CELL_WORDS =>
  !cell ? 'not_started' : cell.status === 'done' ? 'done' : cell.stuck ? 'stuck' : cell.status;

/** A datetime-local field's value (local time, to the minute) as the API's ISO 8601 instant. */
const isoOf = (local: string): string => (local ? new Date(local).toISOString() : '');
/** Now plus `hours`, as a datetime-local value in the browser's time zone. */
function localIn(hours: number): string {
  const at = new Date(Date.now() + hours * 3_600_000);
  at.setSeconds(0, 0);
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** Operators only: the classes, and a form that creates one (docs/exercises.md, "Classes"). */
export function ClassesScreen({ flash }: { flash?: string }) {
  const [classes, setClasses] = useState<Class[]>();
  const [loadError, setLoadError] = useState<string>();
  const [created, setCreated] = useState<Class>();
  const heading = useRef<HTMLHeadingElement>(null);

  const load = async () => {
    try {
      setClasses((await api<{ classes: Class[] }>('GET', 'admin/classes')).classes);
      setLoadError(undefined);
    } catch (failure) {
      setLoadError(messageOf(failure));
    }
  };
  useEffect(() => {
    heading.current?.focus();
    void load();
  }, []);

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Classes
      </h1>
      <p class="lead">A class gathers learners with a join code, so that you see their exercises as one grid and who is stuck.</p>
      {flash && (
        <p class="notice" role="status">
          {flash}
        </p>
      )}
      {created && <CreatedPanel klass={created} />}
      {loadError && <ErrorText message={loadError} />}
      {classes && classes.length === 0 && <p>There are no classes yet.</p>}
      {classes && classes.length > 0 && (
        <ul class="app-list" aria-label="Classes">
          {classes.map((c) => (
            <li key={c.id} class="card">
              <p class="app-name">
                <a href={hrefOf({ screen: 'class', id: c.id })}>{c.name}</a>
              </p>
              <dl class="facts">
                <div>
                  <dt>Join code</dt>
                  <dd>
                    <code class="join-code">{c.joinCode}</code>
                  </dd>
                </div>
                <div>
                  <dt>When</dt>
                  <dd>
                    <time dateTime={c.startsAt}>{formatTime(c.startsAt)}</time> to <time dateTime={c.endsAt}>{formatTime(c.endsAt)}</time>
                  </dd>
                </div>
                <div>
                  <dt>Learners</dt>
                  <dd>{c.learners}</dd>
                </div>
              </dl>
            </li>
          ))}
        </ul>
      )}
      <CreateClassForm
        onCreated={async (klass) => {
          setCreated(klass);
          await load();
        }}
      />
    </>
  );
}

/** The new class's join code, large, with a copy button: what the instructor writes on the board. */
function CreatedPanel({ klass }: { klass: Class }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [klass.id]);
  return (
    <section class="revealed" aria-labelledby="created-title">
      <h2 id="created-title" ref={heading} tabIndex={-1}>
        “{klass.name}” is ready
      </h2>
      <p>Learners join it on their Exercises page with this code:</p>
      <p class="join-code-big">
        <code id="created-code">{klass.joinCode}</code> <CopyButton text={klass.joinCode} what="Join code" targetId="created-code" />
      </p>
      <p>
        <a href={hrefOf({ screen: 'class', id: klass.id })}>Open the class's grid</a>
      </p>
    </section>
  );
}

type ClassField = 'name' | 'startsAt' | 'endsAt' | 'signUpDomain' | 'ssoGroup' | 'form';
/** Which field a refusal is about, by identity's codes (services/identity/src/domain/classes.ts). */
const FIELD_OF_CODE: Record<string, ClassField> = {
  invalid_class_name: 'name',
  invalid_class_dates: 'endsAt',
  invalid_sign_up_domain: 'signUpDomain',
  invalid_sso_group: 'ssoGroup',
};
const fieldOf = (failure: unknown): ClassField => (failure instanceof ApiError ? (FIELD_OF_CODE[failure.code] ?? 'form') : 'form');

function CreateClassForm({ onCreated }: { onCreated: (klass: Class) => Promise<void> }) {
  const [values, setValues] = useState({ name: '', startsAt: localIn(0), endsAt: localIn(3), signUpDomain: '', ssoGroup: '' });
  const [errors, setErrors] = useState<Partial<Record<ClassField, string>>>({});
  const { busy, run } = useAction();
  const form = useRef<HTMLFormElement>(null);

  const set = (field: keyof typeof values) => (event: Event) => setValues({ ...values, [field]: (event.currentTarget as HTMLInputElement).value });
  const focus = (field: ClassField) => form.current?.querySelector<HTMLElement>(`#class-${field}`)?.focus();

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    const found: Partial<Record<ClassField, string>> = {};
    if (!values.name.trim()) found.name = 'Give the class a name.';
    if (!values.startsAt) found.startsAt = 'Say when the class starts.';
    if (!values.endsAt) found.endsAt = 'Say when the class ends.';
    else if (values.startsAt && values.endsAt <= values.startsAt) found.endsAt = 'The end must come after the start.';
    setErrors(found);
    const first = (Object.keys(found) as ClassField[])[0];
    if (first) return focus(first);
    await run(async () => {
      try {
        const body = {
          name: values.name,
          startsAt: isoOf(values.startsAt),
          endsAt: isoOf(values.endsAt),
          ...(values.signUpDomain.trim() ? { signUpDomain: values.signUpDomain.trim() } : {}),
          ...(values.ssoGroup.trim() ? { ssoGroup: values.ssoGroup.trim() } : {}),
        };
        const klass = await api<Class>('POST', 'admin/classes', { body });
        setValues({ ...values, name: '', signUpDomain: '', ssoGroup: '' });
        await onCreated(klass);
      } catch (failure) {
        const field = fieldOf(failure);
        setErrors({ [field]: messageOf(failure) });
        if (field !== 'form') focus(field);
        throw failure;
      }
    });
  };

  const field = (name: Exclude<ClassField, 'form'>, label: string, input: Record<string, unknown>, optional = false) => (
    <div class="field">
      <label for={`class-${name}`}>
        {label} {optional && <span class="muted">(optional)</span>}
      </label>
      <input
        id={`class-${name}`}
        name={name}
        value={values[name]}
        aria-invalid={errors[name] ? 'true' : undefined}
        aria-describedby={errors[name] ? `class-${name}-error` : undefined}
        onInput={set(name)}
        {...input}
      />
      <ErrorText id={`class-${name}-error`} message={errors[name]} />
    </div>
  );

  return (
    <section class="card create" aria-labelledby="create-class-title">
      <h2 id="create-class-title">Create a class</h2>
      <form noValidate onSubmit={submit} ref={form}>
        {field('name', 'Name', { maxLength: 100, required: true })}
        {field('startsAt', 'Starts', { type: 'datetime-local', required: true })}
        {field('endsAt', 'Ends', { type: 'datetime-local', required: true })}
        {field('signUpDomain', 'Only learners whose email is at this domain', { placeholder: 'example.edu', autoComplete: 'off', spellcheck: false }, true)}
        {field('ssoGroup', 'Only learners in this single sign-on group', { autoComplete: 'off', spellcheck: false }, true)}
        <div class="actions">
          <button type="submit" class="primary" aria-disabled={busy ? 'true' : undefined}>
            {busy ? 'Creating…' : 'Create class'}
          </button>
        </div>
        <ErrorText message={errors.form} />
      </form>
    </section>
  );
}

/** One class: counts per exercise, the learners × exercises grid, CSV, delete. Refreshed every few seconds while visible. */
export function ClassScreen({ id, onGone }: { id: string; onGone: (message: string) => void }) {
  const [view, setView] = useState<ClassView>();
  const [loadError, setLoadError] = useState<string>();
  const [stuckMinutes, setStuckMinutes] = useState(STUCK_MINUTES_DEFAULT);
  const [stuckInput, setStuckInput] = useState(String(STUCK_MINUTES_DEFAULT));
  const [stuckError, setStuckError] = useState<string>();
  const [checkedAt, setCheckedAt] = useState<Date>();
  const [confirm, setConfirm] = useState<ConfirmRequest>();
  const download = useAction();
  const heading = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    heading.current?.focus();
  }, [id, view === undefined]);

  usePolling(
    async () => {
      try {
        const answer = await api<ClassView>('GET', `admin/classes/${encodeURIComponent(id)}?stuckMinutes=${stuckMinutes}`);
        setView(answer);
        setLoadError(undefined);
        setCheckedAt(new Date());
      } catch (failure) {
        setLoadError(messageOf(failure));
      }
    },
    CLASS_POLL_MS,
    `${id} ${stuckMinutes}`,
  );

  if (!view) {
    return (
      <>
        <p class="crumbs">
          <a href={hrefOf({ screen: 'classes' })}>← All classes</a>
        </p>
        <h1 ref={heading} tabIndex={-1}>
          {loadError ? 'Class not available' : 'Loading the class…'}
        </h1>
        <LoadingOrError error={loadError} loading="Loading the class…" />
      </>
    );
  }

  const klass = view.class;
  const applyStuck = (event: Event) => {
    event.preventDefault();
    const minutes = Number(stuckInput);
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > 1440) {
      setStuckError('A whole number of minutes from 1 to 1440.');
      return;
    }
    setStuckError(undefined);
    setStuckMinutes(minutes);
  };
  const downloadCsv = () =>
    download.run(async () => {
      const file = await apiFile(`admin/classes/${encodeURIComponent(klass.id)}/grid.csv?stuckMinutes=${stuckMinutes}`, 'text/csv');
      saveBlob(file.blob, file.fileName ?? `class-${klass.id}.csv`);
    });

  return (
    <>
      <p class="crumbs">
        <a href={hrefOf({ screen: 'classes' })}>← All classes</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {klass.name}
      </h1>
      <dl class="facts">
        <div>
          <dt>Join code</dt>
          <dd>
            <code id="class-join-code" class="join-code">
              {klass.joinCode}
            </code>{' '}
            <CopyButton text={klass.joinCode} what="Join code" targetId="class-join-code" />
          </dd>
        </div>
        <div>
          <dt>When</dt>
          <dd>
            <time dateTime={klass.startsAt}>{formatTime(klass.startsAt)}</time> to <time dateTime={klass.endsAt}>{formatTime(klass.endsAt)}</time>
          </dd>
        </div>
        {klass.signUpDomain && (
          <div>
            <dt>Sign-up domain</dt>
            <dd>{klass.signUpDomain}</dd>
          </div>
        )}
        {klass.ssoGroup && (
          <div>
            <dt>Single sign-on group</dt>
            <dd>{klass.ssoGroup}</dd>
          </div>
        )}
        <div>
          <dt>Learners</dt>
          <dd>{view.learners.length}</dd>
        </div>
      </dl>
      <p class="muted">
        Refreshed every {CLASS_POLL_MS / 1000} s while this page is visible.
        {checkedAt && ` Checked ${checkedAt.toLocaleTimeString()}.`}
      </p>
      {loadError && (
        <p class="warning" role="status">
          Could not refresh: {loadError} Trying again in a few seconds.
        </p>
      )}

      <form class="inline-form" noValidate onSubmit={applyStuck}>
        <div class="field">
          <label for="stuck-minutes">Stuck after (minutes attempted without being done)</label>
          <div class="inline">
            <input
              id="stuck-minutes"
              type="number"
              inputMode="numeric"
              min={1}
              max={1440}
              value={stuckInput}
              aria-invalid={stuckError ? 'true' : undefined}
              aria-describedby={stuckError ? 'stuck-minutes-error' : undefined}
              onInput={(e) => setStuckInput(e.currentTarget.value)}
            />
            <button type="submit">Apply</button>
          </div>
          <ErrorText id="stuck-minutes-error" message={stuckError} />
        </div>
      </form>

      <section aria-labelledby="summary-title">
        <h2 id="summary-title">By exercise</h2>
        <p>
          Of {plural(view.learners.length, 'learner')}. Stuck: attempted, not done, for more than {view.stuckMinutes} minutes. Attempted counts the stuck ones
          too.
        </p>
        <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="summary-caption">
          <table class="grid-table summary-table">
            <caption id="summary-caption">Done, attempted and stuck, per exercise</caption>
            <thead>
              <tr>
                <th scope="col">Exercise</th>
                <th scope="col">Done</th>
                <th scope="col">Attempted</th>
                <th scope="col">Stuck</th>
                <th scope="col">Most common refusal</th>
              </tr>
            </thead>
            <tbody>
              {view.exercises.map((e) => (
                <tr key={e.id}>
                  <th scope="row">
                    {e.title} <span class="muted">({GROUP_TITLES[e.group] ?? e.group})</span>
                  </th>
                  <td>{e.done}</td>
                  <td>{e.attempted}</td>
                  <td>{e.stuck}</td>
                  <td class="wrap">{e.commonRefusal ? `${e.commonRefusal.hint} (${plural(e.commonRefusal.learners, 'learner')})` : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section aria-labelledby="grid-title">
        <div class="title-row">
          <h2 id="grid-title">Learners by exercise</h2>
          <button type="button" onClick={downloadCsv} aria-describedby={download.error ? 'csv-error' : undefined}>
            {download.busy ? 'Preparing the CSV…' : 'Download CSV'}
          </button>
        </div>
        <ErrorText id="csv-error" message={download.error?.message} />
        <ul class="legend" aria-label="Legend">
          {Object.values(CELL_WORDS).map((words) => (
            <li key={words.short}>
              <span class="cell-mark">{words.short}</span> {words.long}
            </li>
          ))}
        </ul>
        {view.learners.length === 0 ? (
          <p>No learner has joined yet: give them the join code.</p>
        ) : (
          <div class="table-scroll" tabIndex={0} role="region" aria-labelledby="grid-caption">
            <table class="grid-table class-grid">
              <caption id="grid-caption">Each learner's state per exercise</caption>
              <thead>
                <tr>
                  <th scope="col">Learner</th>
                  <th scope="col">Done</th>
                  {view.exercises.map((e) => (
                    <th key={e.id} scope="col" title={e.title}>
                      <span class="col-title">{e.title}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {view.learners.map((learner) => (
                  <tr key={learner.userId} data-learner={learner.email}>
                    <th scope="row">{learner.email}</th>
                    <td>{learner.done}</td>
                    {view.exercises.map((e) => {
                      const state = cellState(learner.cells[e.id]);
                      const cell = learner.cells[e.id];
                      return (
                        <td key={e.id} class={`cell cell-${state}`} data-exercise={e.id} data-state={state} title={cell?.hint ?? CELL_WORDS[state].long}>
                          <span aria-hidden="true">{CELL_WORDS[state].short}</span>
                          <span class="visually-hidden">{CELL_WORDS[state].long}</span>
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="danger-zone" aria-labelledby="delete-class-title">
        <h2 id="delete-class-title">Delete the class</h2>
        <p>Deleting the class removes its grid and memberships. The learners keep their accounts, apps and exercises.</p>
        <button
          type="button"
          class="danger"
          onClick={() =>
            setConfirm({
              title: `Delete “${klass.name}”?`,
              body: <p>The class, its join code and its memberships are deleted for good. Learners keep their own exercises.</p>,
              confirmLabel: `Delete “${klass.name}”`,
              action: async () => {
                await api('DELETE', `admin/classes/${encodeURIComponent(klass.id)}`);
                onGone(`Deleted “${klass.name}”.`);
              },
            })
          }
        >
          Delete this class…
        </button>
      </section>
      <ConfirmDialog request={confirm} onClose={() => setConfirm(undefined)} />
    </>
  );
}
