import { useEffect, useRef, useState } from 'preact/hooks';
import { api, messageOf, type App, type ClassSummary, type Exercise, type ExerciseGroup } from '../api';
import { ConfirmDialog, type ConfirmRequest } from '../components/confirm-dialog';
import { ErrorText } from '../components/error-text';
import { useAction, usePolling } from '../components/hooks';
import { formatTime } from '../format';
import { guideHref } from '../guides';
import { hrefOf } from '../route';
import { AUTH_STYLES, PAGINATION_STYLES } from '../snippets';

/** How often the screen asks for the learner's exercises while it is visible (docs/exercises.md, "In the portal"). */
export const EXERCISES_POLL_MS = 3_000;

export const GROUP_TITLES: Record<ExerciseGroup, string> = {
  getting_started: 'Getting started',
  authentication: 'Authentication',
  paging: 'Paging',
  http: 'HTTP',
};
const GROUPS = Object.keys(GROUP_TITLES) as ExerciseGroup[];

/** A state in words, never colour alone. */
export function stateWords(exercise: Pick<Exercise, 'status' | 'doneAt' | 'doneWithApp'>): string {
  if (exercise.status === 'done') {
    const app = exercise.doneWithApp ? ` with ${exercise.doneWithApp}` : '';
    return `Done${app}${exercise.doneAt ? ` at ${formatTime(exercise.doneAt)}` : ''}`;
  }
  return exercise.status === 'attempted' ? 'Attempted' : 'Not started';
}

/** The snippet style's title (snippets.ts), or undefined for an id the page does not know. */
function snippetTitle(id: string): string | undefined {
  return (AUTH_STYLES.find((s) => s.id === id) ?? PAGINATION_STYLES.find((s) => s.id === id))?.title;
}

/** What changed between two answers, for the screen reader: "Basic: done. A bearer token: attempted." */
function changesBetween(before: readonly Exercise[], after: readonly Exercise[]): string {
  const was = new Map(before.map((e) => [e.id, e.status]));
  return after
    .filter((e) => was.has(e.id) && was.get(e.id) !== e.status)
    .map((e) => `${e.title}: ${e.status === 'done' ? 'done' : e.status === 'attempted' ? 'attempted' : 'not started'}.`)
    .join(' ');
}

export function ExercisesScreen() {
  const [exercises, setExercises] = useState<Exercise[]>();
  const [loadError, setLoadError] = useState<string>();
  const [announcement, setAnnouncement] = useState('');
  const [checkedAt, setCheckedAt] = useState<Date>();
  const [apps, setApps] = useState<App[]>();
  const [appId, setAppId] = useState<string>();
  const heading = useRef<HTMLHeadingElement>(null);
  const previous = useRef<Exercise[] | undefined>(undefined);

  useEffect(() => {
    heading.current?.focus();
    // The apps, once: which app's Get started page the snippet links open.
    api<{ apps: App[] }>('GET', 'apps')
      .then((answer) => {
        setApps(answer.apps);
        setAppId((answer.apps.find((a) => a.status === 'active') ?? answer.apps[0])?.id);
      })
      // Without the list the code links are left out; the exercises themselves do not need it.
      .catch(() => undefined);
  }, []);

  // One GET every few seconds while the screen is visible; focus never moves, changes are announced politely.
  usePolling(async () => {
    try {
      const answer = await api<{ exercises: Exercise[] }>('GET', 'exercises');
      if (previous.current) {
        const changed = changesBetween(previous.current, answer.exercises);
        if (changed) setAnnouncement(changed);
      }
      previous.current = answer.exercises;
      setExercises(answer.exercises);
      setLoadError(undefined);
      setCheckedAt(new Date());
    } catch (failure) {
      setLoadError(messageOf(failure));
    }
  }, EXERCISES_POLL_MS);

  const done = exercises?.filter((e) => e.status === 'done').length ?? 0;
  const attempted = exercises?.filter((e) => e.status === 'attempted').length ?? 0;
  const app = apps?.find((a) => a.id === appId);

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Exercises
      </h1>
      <p class="lead">
        The sandbox checks these off by itself, from the requests your apps make: there is nothing to tick. This page follows your progress every few seconds.
      </p>
      {/* Always in the page, so that what is written into it later is announced; polite, so it never interrupts. */}
      <p class="visually-hidden" role="status" aria-live="polite" aria-atomic="true" data-testid="exercise-announcements">
        {announcement}
      </p>
      {loadError &&
        (exercises ? (
          // A refresh that failed (a 429 from a busy classroom's shared address, a restart): the last answer stays, and the next poll retries.
          <p class="warning" role="status">
            Could not refresh: {loadError} Trying again in a few seconds.
          </p>
        ) : (
          <ErrorText message={loadError} />
        ))}
      {!exercises ? (
        !loadError && <p>Loading your exercises…</p>
      ) : (
        <>
          <p class="summary">
            <strong>
              {done} of {exercises.length} done
            </strong>
            {attempted > 0 && `, ${attempted} attempted`}. {checkedAt && <span class="muted">Checked {checkedAt.toLocaleTimeString()}.</span>}
          </p>
          <SnippetApp apps={apps} appId={appId} onChange={setAppId} />
          {GROUPS.map((group) => {
            const inGroup = exercises.filter((e) => e.group === group);
            if (inGroup.length === 0) return null;
            const groupDone = inGroup.filter((e) => e.status === 'done').length;
            return (
              <section key={group} aria-labelledby={`group-${group}`}>
                <h2 id={`group-${group}`}>
                  {GROUP_TITLES[group]}{' '}
                  <span class="muted count">
                    ({groupDone} of {inGroup.length} done)
                  </span>
                </h2>
                <ul class="exercise-list">
                  {inGroup.map((exercise) => (
                    <ExerciseCard key={exercise.id} exercise={exercise} app={app} />
                  ))}
                </ul>
              </section>
            );
          })}
        </>
      )}
      <ClassesOfLearner />
    </>
  );
}

/** Which app the snippet links open (its Get started page holds the secrets it just showed, or placeholders). */
function SnippetApp({ apps, appId, onChange }: { apps?: App[]; appId?: string; onChange: (id: string) => void }) {
  if (!apps) return null;
  if (apps.length === 0) {
    return (
      <p class="notice">
        Every exercise is done with requests of one of your apps. <a href={hrefOf({ screen: 'apps' })}>Create an app</a> first; its code for each style is then
        a link away.
      </p>
    );
  }
  if (apps.length === 1) return null;
  return (
    <div class="field">
      <label for="snippet-app">Code links open the Get started page of</label>
      <select id="snippet-app" value={appId} onChange={(e) => onChange(e.currentTarget.value)}>
        {apps.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
            {a.status === 'revoked' ? ' (revoked)' : ''}
          </option>
        ))}
      </select>
    </div>
  );
}

function ExerciseCard({ exercise, app }: { exercise: Exercise; app?: App }) {
  const snippet = exercise.snippet ? snippetTitle(exercise.snippet) : undefined;
  const titleId = `exercise-${exercise.id}`;
  return (
    <li class={`card exercise exercise-${exercise.status}`} data-exercise={exercise.id}>
      <div class="title-row">
        <h3 id={titleId}>{exercise.title}</h3>
        <span class={`badge state-${exercise.status}`}>{stateWords(exercise)}</span>
      </div>
      <p>{exercise.task}</p>
      <p class="muted">
        <strong>Done when:</strong> {exercise.doneWhen}
      </p>
      {exercise.status === 'attempted' && exercise.hint && (
        <p class="hint-box">
          <strong>Hint from your last try</strong>
          {exercise.lastAttemptAt && (
            <>
              {' '}
              (<time dateTime={exercise.lastAttemptAt}>{formatTime(exercise.lastAttemptAt)}</time>)
            </>
          )}
          : {exercise.hint}
        </p>
      )}
      <p class="exercise-links">
        <GuideLink docs={exercise.docs} title={exercise.title} />
        {snippet && app && (
          <a href={hrefOf({ screen: 'start', id: app.id, style: exercise.snippet })}>
            Code: {snippet}
            <span class="visually-hidden"> for {exercise.title}</span>
          </a>
        )}
      </p>
    </li>
  );
}

/** The section of the guides the exercise teaches, opened at its heading (/guides/, served by the gateway). */
function GuideLink({ docs, title }: { docs: string; title: string }) {
  const href = guideHref(docs);
  // The path as in the repository: exact, and what a reader of a checkout opens.
  const label = <code>{docs}</code>;
  // A path the guides do not serve (not expected: every exercise's is a guide's section) is still named, as text.
  if (!href) return <span>Read: {label}</span>;
  return (
    <a href={href}>
      Read: {label}
      <span class="visually-hidden"> for {title}</span>
    </a>
  );
}

/** "Join a class" and "Your classes": a learner's side of classes (docs/exercises.md, "Classes"). */
function ClassesOfLearner() {
  const [classes, setClasses] = useState<ClassSummary[]>();
  const [loadError, setLoadError] = useState<string>();
  const [status, setStatus] = useState('');
  const [confirm, setConfirm] = useState<ConfirmRequest>();

  const load = async () => {
    try {
      setClasses((await api<{ classes: ClassSummary[] }>('GET', 'classes')).classes);
      setLoadError(undefined);
    } catch (failure) {
      setLoadError(messageOf(failure));
    }
  };
  useEffect(() => {
    void load();
  }, []);

  return (
    <section class="card" aria-labelledby="classes-title">
      <h2 id="classes-title">Your classes</h2>
      <p class="hint">An instructor running a class sees your exercises in its grid while you are in it. Leaving removes you from the class's grid.</p>
      {loadError && <ErrorText message={loadError} />}
      {classes && classes.length === 0 && <p>You are in no class.</p>}
      {classes && classes.length > 0 && (
        <ul class="class-list">
          {classes.map((c) => (
            <li key={c.id}>
              <span>
                <strong>{c.name}</strong>{' '}
                <span class="muted">
                  <time dateTime={c.startsAt}>{formatTime(c.startsAt)}</time> to <time dateTime={c.endsAt}>{formatTime(c.endsAt)}</time>
                </span>
              </span>
              <button
                type="button"
                class="small"
                onClick={() =>
                  setConfirm({
                    title: `Leave “${c.name}”?`,
                    body: <p>Its instructor stops seeing your exercises. You can join again with the class's code.</p>,
                    confirmLabel: `Leave “${c.name}”`,
                    action: async () => {
                      await api('DELETE', `classes/${encodeURIComponent(c.id)}`);
                      await load();
                      setStatus(`You left “${c.name}”.`);
                    },
                  })
                }
              >
                Leave <span class="visually-hidden">“{c.name}”</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      <JoinClassForm
        onJoined={async (joined) => {
          await load();
          setStatus(`You joined “${joined.name}”.`);
        }}
      />
      <p role="status" class="status">
        {status}
      </p>
      <ConfirmDialog request={confirm} onClose={() => setConfirm(undefined)} />
    </section>
  );
}

function JoinClassForm({ onJoined }: { onJoined: (joined: ClassSummary) => Promise<void> }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const { busy, run } = useAction();
  const input = useRef<HTMLInputElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    if (!code.trim()) {
      setError('Type the code your instructor gave you.');
      input.current?.focus();
      return;
    }
    setError(undefined);
    await run(async () => {
      try {
        const answer = await api<{ class: ClassSummary }>('POST', 'classes/join', { body: { code } });
        setCode('');
        await onJoined(answer.class);
      } catch (failure) {
        setError(messageOf(failure));
        input.current?.focus();
        throw failure;
      }
    });
  };

  return (
    <form noValidate onSubmit={submit} class="join-class">
      <div class="field">
        <label for="class-code">Join a class: its code</label>
        <p class="hint" id="class-code-hint">
          Eight letters and digits, such as K7QD-M2PX; case and spaces do not matter.
        </p>
        <div class="inline">
          <input
            id="class-code"
            ref={input}
            name="code"
            autoComplete="off"
            autoCapitalize="characters"
            spellcheck={false}
            maxLength={40}
            value={code}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'class-code-hint class-code-error' : 'class-code-hint'}
            onInput={(e) => setCode(e.currentTarget.value)}
          />
          <button type="submit" aria-disabled={busy ? 'true' : undefined}>
            {busy ? 'Joining…' : 'Join'}
          </button>
        </div>
        <ErrorText id="class-code-error" message={error} />
      </div>
    </form>
  );
}
