import { progressKey, type ExerciseProgressRecord, type ExerciseProgressStore } from '../../stores/exercise-progress-store';
import { EXERCISES } from './catalogue';
import type { Exercise, ExerciseStatus, ObservedRequest } from './types';

/** A request of a batch, with who made it: the owner of the app it authenticated as, and that app. */
export interface LearnerRequest {
  userId: string;
  /** The app's internal id. */
  app: string;
  request: ObservedRequest;
}

/** One exercise as its learner sees it. */
export interface ExerciseView {
  exercise: Exercise;
  status: ExerciseStatus;
  hint: string;
  firstAttemptAt?: number;
  lastAttemptAt?: number;
  doneAt?: number;
  /** The app that completed it (internal id). */
  doneWith?: string;
}

/** At most this many facts of a request are judged, each name and value bounded: they come from gateways, but are judged, not trusted. */
const FACTS_MAX = 16;
const FACT_NAME = /^[a-z][a-z0-9_]{0,31}$/;
const FACT_VALUE_MAX = 128;

/** A request's facts as judges may read them: named as docs/exercises.md names them, printable, bounded. */
export function sanitizeFacts(facts: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  let count = 0;
  for (const [name, value] of Object.entries(facts ?? {})) {
    if (count === FACTS_MAX) break;
    if (!FACT_NAME.test(name) || typeof value !== 'string' || value.length > FACT_VALUE_MAX || /[\u0000-\u001f\u007f]/.test(value)) continue;
    kept[name] = value;
    count++;
  }
  return kept;
}

/**
 * Judges the requests of each batch against every exercise (catalogue.ts),
 * off the request path: RecordedRequests calls it with the batch the
 * gateways flush, after storing its log entries. One read of the batch's
 * learners' progress, then one write per change; a request that changes
 * nothing (most: a done exercise is not judged again) costs no write.
 */
export class ExerciseProgressService {
  constructor(
    private readonly store: ExerciseProgressStore,
    private readonly exercises: readonly Exercise[] = EXERCISES,
  ) {}

  /** How many (learner, exercise) states changed. */
  async judge(requests: readonly LearnerRequest[]): Promise<number> {
    if (requests.length === 0) return 0;
    const known = new Map<string, ExerciseProgressRecord>();
    for (const record of await this.store.forUsers([...new Set(requests.map((r) => r.userId))])) known.set(progressKey(record), record);
    const changed = new Map<string, ExerciseProgressRecord>();
    // In the order they were answered: "a 401 read and fixed" needs the 401 first.
    for (const { userId, app, request } of [...requests].sort((a, b) => a.request.at - b.request.at)) {
      for (const exercise of this.exercises) {
        const key = progressKey({ userId, exerciseId: exercise.id });
        const previous = known.get(key);
        if (previous?.status === 'done') continue;
        const verdict = exercise.judge(request, previous);
        if (!verdict) continue;
        const base = { userId, exerciseId: exercise.id, firstAttemptAt: previous?.firstAttemptAt ?? request.at, lastAttempt: previous?.lastAttempt };
        const next: ExerciseProgressRecord =
          verdict.kind === 'done'
            ? { ...base, status: 'done', doneAt: request.at, doneWith: app }
            : { ...base, status: 'attempted', lastAttempt: { at: request.at, hint: verdict.hint, facts: request.facts, path: request.path } };
        known.set(key, next);
        changed.set(key, next);
      }
    }
    await this.store.save([...changed.values()]);
    return changed.size;
  }

  /** Every exercise of the catalogue, in its order, with where this learner stands. */
  async list(userId: string): Promise<ExerciseView[]> {
    const mine = new Map((await this.store.forUsers([userId])).map((record) => [record.exerciseId, record]));
    return this.exercises.map((exercise) => {
      const record = mine.get(exercise.id);
      return {
        exercise,
        status: record?.status ?? 'not_started',
        hint: record?.status === 'attempted' ? (record.lastAttempt?.hint ?? '') : '',
        firstAttemptAt: record?.firstAttemptAt,
        lastAttemptAt: record?.lastAttempt?.at,
        doneAt: record?.doneAt,
        doneWith: record?.doneWith,
      };
    });
  }

  /** A learner's progress goes with them (AdminService's deletion and purge). */
  deleteForUser(userId: string): Promise<void> {
    return this.store.deleteForUser(userId);
  }
}
