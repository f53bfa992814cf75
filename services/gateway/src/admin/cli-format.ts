import type { AdminOperations } from '../routes/operators/operations';

/*
 * How the CLI shows each answer to a person (cli.ts; --json prints the
 * answers as the API gives them instead): plain text tables, one row a line,
 * columns padded to their widest cell, so `grep` and `awk` work on them too.
 */

type Answer<K extends keyof AdminOperations> = AdminOperations[K] extends (...args: never[]) => Promise<infer R> ? R : never;

/** Columns padded to their widest cell, separated by two spaces; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

/** A timestamp as a person reads it: minutes, UTC; empty stays empty. */
const when = (iso: string) => (iso ? `${iso.slice(0, 16).replace('T', ' ')}Z` : '-');
const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

type UserRow = Answer<'listUsers'>['users'][number];
const status = (user: Pick<UserRow, 'disabled' | 'operator'>) =>
  [user.operator ? 'operator' : '', user.disabled ? 'disabled' : ''].filter(Boolean).join(', ') || 'active';

export function usersText(users: readonly UserRow[], total: number): string {
  const rows = users.map((u) => [
    u.id,
    u.email || '-',
    u.provider,
    when(u.createdAt),
    String(u.appCount),
    String(u.requestCount),
    when(u.lastActiveAt),
    status(u),
  ]);
  const shown = users.length < total ? `${users.length} of ${plural(total, 'user')}` : plural(total, 'user');
  return `${table(['ID', 'EMAIL', 'PROVIDER', 'CREATED', 'APPS', 'REQUESTS', 'LAST ACTIVE', 'STATUS'], rows)}\n${shown}`;
}

export function userText(user: Answer<'getUser'>): string {
  const facts = [
    ['id', user.id],
    ['email', user.email || '-'],
    ['provider', user.provider],
    ['created', when(user.createdAt)],
    ['status', status(user)],
    ['requests', String(user.requestCount)],
    ['last active', when(user.lastActiveAt)],
  ];
  const apps = user.apps.map((app) => [app.appId, app.name, app.status, app.scopes.join(' ') || '-', when(app.createdAt)]);
  const width = Math.max(...facts.map(([name]) => name!.length)) + 2;
  const lines = facts.map(([name, value]) => `${`${name}:`.padEnd(width)}${value}`).join('\n');
  return `${lines}\n\n${plural(user.apps.length, 'app')}${apps.length ? `\n${table(['APP ID', 'NAME', 'STATUS', 'SCOPES', 'CREATED'], apps)}` : ''}`;
}

export const disabledText = (user: Answer<'setDisabled'>) => `${user.disabled ? 'Disabled' : 'Enabled'} ${user.email || user.id} (${user.id}).`;

export const deletedText = (deleted: Answer<'deleteUser'>) =>
  `Deleted user ${deleted.id} with ${plural(deleted.appsDeleted, 'app')}, their credentials, tokens, logs and OAuth state.`;

export function purgedText(purged: Answer<'purge'>): string {
  const what = `${plural(purged.users, 'user')}, ${plural(purged.apps, 'app')} and ${plural(purged.usageRows, 'usage row')}`;
  return purged.dryRun
    ? `Dry run: would delete ${what} (created before ${purged.before}). Nothing was deleted.`
    : `Deleted ${what} (created before ${purged.before}).`;
}

/** An operator by email; the CLI by its certificate, with the user it said it ran as (not verified, so marked). */
const who = (actor: { kind: string; id: string; email: string; statedUser?: string }) =>
  actor.email || `${actor.kind}:${actor.id}${actor.statedUser ? ` (says ${actor.statedUser})` : ''}`;

export function auditText(page: Answer<'audit'>): string {
  const rows = page.entries.map((e) => [when(e.at), who(e.actor), e.action, e.targetEmail || e.targetUserId || '-', e.detail || '-']);
  const more = page.nextPageToken ? `\nmore: --page-token ${page.nextPageToken}` : '';
  return `${table(['AT', 'BY', 'ACTION', 'USER', 'DETAIL'], rows)}${more}`;
}

type LimitJson = Answer<'setAppLimit'>;
const limitWords = (limit: LimitJson) => (limit.exempt ? 'exempt' : `${limit.perSecond}/s, burst ${limit.burst}`);

export function limitsText(list: Answer<'listAppLimits'>): string {
  if (!list.limits.length) return 'No app has a limit of its own: every app has the default.';
  const rows = list.limits.map((l) => [l.appId, limitWords(l), when(l.setAt), who(l.setBy)]);
  return table(['APP ID', 'LIMIT', 'SET', 'BY'], rows);
}

export const limitText = (limit: LimitJson) =>
  `${limit.appId}: ${limit.exempt ? 'exempt from the fair-share limits' : `${limit.perSecond} requests a second, bursts of ${limit.burst}`}, on every gateway within about a second.`;

export const unlimitText = (cleared: Answer<'clearAppLimit'>) => `${cleared.appId}: back to the default limit.`;

// ---- classes ----

type ClassRow = Answer<'listClasses'>['classes'][number];
const rules = (c: ClassRow) => [c.signUpDomain ? `domain ${c.signUpDomain}` : '', c.ssoGroup ? `group ${c.ssoGroup}` : ''].filter(Boolean).join(', ') || '-';

export function classesText(classes: readonly ClassRow[]): string {
  if (classes.length === 0) return 'No classes. Create one: npm run admin -- classes create --name <name> --starts <time> --ends <time>';
  return table(
    ['ID', 'NAME', 'JOIN CODE', 'STARTS', 'ENDS', 'LEARNERS', 'WHO MAY JOIN'],
    classes.map((c) => [c.id, c.name, c.joinCode, when(c.startsAt), when(c.endsAt), String(c.learners), rules(c)]),
  );
}

export function classText(c: ClassRow): string {
  return [
    `Class ${c.id}: ${c.name}`,
    `  join code  ${c.joinCode}   (learners type it in the portal's Classes screen, any case)`,
    `  open       ${when(c.startsAt)} to ${when(c.endsAt)}; joining until the end`,
    `  who        ${rules(c)}`,
    `  learners   ${c.learners}`,
  ].join('\n');
}

/** A grid cell in one character: - not started, a attempted, S stuck, D done. */
const CELL = { not_started: '-', attempted: 'a', stuck: 'S', done: 'D' } as const;

/**
 * The class view as a person reads it in a terminal: the exercises numbered,
 * with their counts and most common refusal; then one line per learner, one
 * character per exercise in the same numbering.
 */
export function classViewText(view: Answer<'classView'>): string {
  const exercises = table(
    ['#', 'EXERCISE', 'DONE', 'ATTEMPTED', 'STUCK', 'MOST COMMON REFUSAL'],
    view.exercises.map((e, i) => [
      String(i + 1),
      e.id,
      String(e.done),
      String(e.attempted),
      String(e.stuck),
      e.commonRefusal ? `${e.commonRefusal.hint} (${plural(e.commonRefusal.learners, 'learner')})` : '-',
    ]),
  );
  const numbers = view.exercises.map((_, i) => String((i + 1) % 10)).join('');
  const learners = view.learners.length
    ? table(
        ['EMAIL', 'JOINED', 'DONE', numbers],
        view.learners.map((l) => [
          l.email,
          when(l.joinedAt),
          String(l.done),
          view.exercises
            .map((e) => {
              const cell = l.cells[e.id];
              return CELL[cell?.status === 'attempted' && cell.stuck ? 'stuck' : ((cell?.status as keyof typeof CELL | undefined) ?? 'not_started')];
            })
            .join(''),
        ]),
      )
    : 'No learners yet: they join with the code above.';
  return [
    classText(view.class),
    '',
    exercises,
    '',
    learners,
    '',
    `Cells: - not started, a attempted, S stuck (attempted, not done, first attempt over ${view.stuckMinutes} minutes ago), D done.`,
  ].join('\n');
}
