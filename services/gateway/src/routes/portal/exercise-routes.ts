import { z } from 'zod';
import type { identity } from '@sandbox/contracts';
import { sessionOf } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import { timestamp } from '../../http/contract';
import { json } from '../../http/reply';
import type { Route, RouteSpec } from '../../http/route';

/*
 * The learner's exercises (docs/exercises.md): what identity decided from
 * the requests their apps made. Read-only: nothing here marks an exercise
 * done.
 */

const exerciseSchema = z
  .object({
    id: z.string().meta({ example: 'auth-basic' }),
    group: z.enum(['getting_started', 'authentication', 'paging', 'http']),
    title: z.string().meta({ example: 'Basic authentication' }),
    task: z.string().meta({ description: 'What to do.' }),
    doneWhen: z.string().meta({ description: 'What counts as done, decided from the requests your apps make.' }),
    docs: z.string().meta({ description: 'The doc section it teaches: a path under docs/ with its anchor.', example: 'docs/auth-playground.md#basic' }),
    snippet: z.string().optional().meta({ description: "The portal snippet that shows how (an auth or pagination style's id)." }),
    status: z.enum(['not_started', 'attempted', 'done']),
    hint: z.string().optional().meta({ description: 'Attempted, not done: drawn from your last refused attempt, naming the rule that failed.' }),
    firstAttemptAt: timestamp.optional(),
    lastAttemptAt: timestamp.optional(),
    doneAt: timestamp.optional(),
    doneWithApp: z.string().optional().meta({ description: 'The name of the app whose request completed it (absent once that app is deleted).' }),
  })
  .meta({ id: 'Exercise' });

/** The one mapping from identity's ExerciseState to JSON: empty fields left out. */
export function exerciseJson(state: identity.ExerciseState) {
  const optional = (name: string, value: string) => (value ? { [name]: value } : {});
  return {
    id: state.id,
    group: state.group,
    title: state.title,
    task: state.task,
    doneWhen: state.doneWhen,
    docs: state.docs,
    ...optional('snippet', state.snippet),
    status: state.status,
    ...optional('hint', state.hint),
    ...optional('firstAttemptAt', state.firstAttemptAt),
    ...optional('lastAttemptAt', state.lastAttemptAt),
    ...optional('doneAt', state.doneAt),
    ...optional('doneWithApp', state.doneWithApp),
  };
}

const exercisesContract = {
  responses: {
    200: {
      description: "Every exercise, in the catalogue's order, with where you stand.",
      schema: z.object({ exercises: z.array(exerciseSchema) }).meta({ id: 'ExerciseList' }),
    },
  },
};

/** `portal`: portal-routes.ts's maker of a signed-in user's route. */
export function exerciseRoutes(deps: GatewayDeps, portal: (spec: RouteSpec) => Route): Route[] {
  return [
    portal({
      methods: 'GET',
      path: '/api/exercises',
      summary: 'Your exercises: which skills your apps have shown, with a hint from your last failed attempt.',
      contract: exercisesContract,
      handler: async (ctx) => {
        const { exercises } = await deps.clients.identity.listExercises({ ownerId: sessionOf(ctx).user.id }, ctx.call());
        return json({ exercises: exercises.map(exerciseJson) });
      },
    }),
  ];
}
