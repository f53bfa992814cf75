/**
 * Exercises the sandbox checks off by itself (issue #37): what a learner is
 * asked to do, and how the sandbox decides from the requests their own apps
 * made, as recorded in the request log the gateway sends identity in batches
 * (RecordRequests). Never by a button that says "done".
 */

/** One request as identity sees it in a gateway's batch: the request log entry, with its time as epoch ms. */
export interface ObservedRequest {
  method: string;
  /** The path only, never the query (it may hold an api_key). */
  path: string;
  status: number;
  /** The style that authenticated it: basic, bearer, api_key_header, api_key_query, oauth2, oauth1, hmac, digest, jwt; '' when none did. */
  authStyle: string;
  /** For an answer of 400 or more, the rule that failed, "code: message"; '' otherwise. */
  failure: string;
  /** When the gateway answered, epoch milliseconds. */
  at: number;
  /**
   * What the gateway (and the service that answered) knew about the request
   * that its method, path and status do not say, by name (docs/exercises.md
   * lists the names): e.g. `grant` = client_credentials on POST /oauth/token,
   * `last_page` = true on a data page that was its entity's last.
   */
  facts: Readonly<Record<string, string>>;
}

/** Where a learner stands on one exercise. */
export type ExerciseStatus = 'not_started' | 'attempted' | 'done';

/** What the sandbox remembers of one learner's attempts at one exercise. */
export interface ExerciseProgress {
  status: Exclude<ExerciseStatus, 'not_started'>;
  /** The last attempt that did not complete it (kept after it is done, for the class view's "most common refusal"). */
  lastAttempt?: {
    at: number;
    hint: string;
    facts: Readonly<Record<string, string>>;
    /**
     * The path of that attempt's request (ObservedRequest.path). The judges
     * of a refusal "read and fixed" and of a retry after Retry-After compare
     * it with the later request's: the same endpoint, the same path.
     */
    path?: string;
  };
  /** When it was first attempted. */
  firstAttemptAt: number;
  /** When it was completed, and with which app (internal id). */
  doneAt?: number;
  doneWith?: string;
}

/**
 * A judge's answer for one request: it completes the exercise, it is an
 * attempt that did not (with the hint the learner sees, in words they can act
 * on, never revealing what would let them forge a request), or it has
 * nothing to do with the exercise (undefined).
 */
export type Verdict = { kind: 'done' } | { kind: 'attempt'; hint: string } | undefined;

/**
 * Decides what one request means for one exercise, given what the learner
 * did before (exercises like "a 401 read and fixed" need the earlier
 * attempt). Pure: no clock, no store.
 */
export type Judge = (request: ObservedRequest, previous: ExerciseProgress | undefined) => Verdict;

export type ExerciseGroup = 'getting_started' | 'authentication' | 'paging' | 'http';

/** One exercise of the catalogue (catalogue.ts): data, in one place. */
export interface Exercise {
  /** Stable, URL-safe: `auth-basic`, `paging-cursor`... */
  id: string;
  group: ExerciseGroup;
  title: string;
  /** What to do, in the imperative, one or two sentences. */
  task: string;
  /** What counts as done, in words (docs/exercises.md says the same). */
  doneWhen: string;
  /** The doc section it teaches: a path under docs/ with its anchor. */
  docs: string;
  /** The portal snippet that shows how (services/gateway/portal/src/snippets.ts), when there is one. */
  snippet?: string;
  judge: Judge;
}
