import { z } from 'zod';
import { CLASS_GRID_COLUMNS } from './class-csv';
import { classSummarySchema } from '../portal/class-routes';
import { AdminOperations, sessionOperator } from './operations';
import { sessionOf } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import type { RouteContext } from '../../http/context';
import { inputOf, timestamp, type Contract } from '../../http/contract';
import { csvAttachment, empty, json } from '../../http/reply';
import { routeOf, type Route, type RouteSpec } from '../../http/route';

/** Every row here is for operators (http/route-family.ts). */
const route = routeOf('operators');

/*
 * Classes for instructors (docs/exercises.md, "Classes"): thin rows over
 * AdminOperations, which the CLI's `classes` commands use too. Operator-only
 * like every row of admin-routes.ts: anyone else gets an unknown path's 404,
 * and their OpenAPI document leaves these rows out.
 */

const EXAMPLE_CLASS = {
  id: '6a01c0a95e2b4d7a9c3e1f77',
  name: 'API integration, autumn cohort',
  startsAt: '2030-09-01T09:00:00.000Z',
  endsAt: '2030-12-20T17:00:00.000Z',
  joinCode: 'KX7P-3MWQ',
  signUpDomain: 'uni.example.edu',
  createdAt: '2030-08-25T10:00:00.000Z',
  learners: 24,
};

const classSchema = classSummarySchema
  .extend({
    joinCode: z.string().meta({ description: 'What learners type in the portal: 8 letters and digits (no 0, O, 1 or I), any case, hyphen optional.' }),
    signUpDomain: z.string().optional().meta({ description: 'Only learners whose email is at this domain may join (exact, as SIGNUP_DOMAINS).' }),
    ssoGroup: z.string().optional().meta({ description: "Only learners whose identity provider's groups claim holds this group may join." }),
    createdAt: timestamp,
    learners: z.number().int().meta({ description: 'Learners in it now (at most 500).' }),
  })
  .meta({ id: 'Class', example: EXAMPLE_CLASS });

const createBody = z
  .strictObject({
    name: z
      .string({ error: (issue) => (issue.input === undefined ? 'name is required' : 'name must be a string') })
      .meta({ description: '1 to 100 printable characters.' }),
    startsAt: z
      .string({ error: (issue) => (issue.input === undefined ? 'startsAt is required' : 'startsAt must be a string') })
      .meta({ description: 'RFC 3339.' }),
    endsAt: z
      .string({ error: (issue) => (issue.input === undefined ? 'endsAt is required' : 'endsAt must be a string') })
      .meta({ description: 'RFC 3339, after startsAt.' }),
    signUpDomain: z.string({ error: 'signUpDomain must be a string' }).optional(),
    ssoGroup: z.string({ error: 'ssoGroup must be a string' }).optional(),
  })
  .meta({
    id: 'NewClass',
    example: { name: EXAMPLE_CLASS.name, startsAt: EXAMPLE_CLASS.startsAt, endsAt: EXAMPLE_CLASS.endsAt, signUpDomain: EXAMPLE_CLASS.signUpDomain },
  });

const classPath = z.object({ id: z.string().meta({ description: "The class's id, from GET /api/admin/classes.", example: EXAMPLE_CLASS.id }) });
const viewQuery = z.object({
  stuckMinutes: z
    .string()
    .regex(/^[1-9]\d{0,3}$/, { error: 'stuckMinutes must be a whole number from 1 to 1440' })
    .optional()
    .meta({ description: 'Attempted, not done, first attempt longer ago than this: stuck. Default 15; 1 to 1440.', example: '15' }),
});

const cellSchema = z.object({
  status: z.enum(['not_started', 'attempted', 'done']),
  stuck: z.boolean(),
  firstAttemptAt: timestamp.optional(),
  doneAt: timestamp.optional(),
  hint: z.string().optional().meta({ description: 'Attempted: from their last refused attempt.' }),
});
const viewSchema = z
  .object({
    class: classSchema,
    stuckMinutes: z.number().int(),
    exercises: z.array(
      z.object({
        id: z.string(),
        title: z.string(),
        group: z.string(),
        done: z.number().int(),
        attempted: z.number().int().meta({ description: 'Attempted and not done (the stuck ones included).' }),
        stuck: z.number().int(),
        commonRefusal: z
          .object({ hint: z.string(), learners: z.number().int() })
          .optional()
          .meta({ description: 'The hint most learners of the class hold now on it (ties: the most recent), and how many hold it.' }),
      }),
    ),
    learners: z.array(
      z.object({
        userId: z.string(),
        email: z.string(),
        joinedAt: timestamp,
        done: z.number().int(),
        cells: z.record(z.string(), cellSchema).meta({ description: 'By exercise id: every exercise of the catalogue.' }),
      }),
    ),
  })
  .meta({
    id: 'ClassView',
    example: {
      class: EXAMPLE_CLASS,
      stuckMinutes: 15,
      exercises: [
        {
          id: 'auth-basic',
          title: 'Basic authentication',
          group: 'authentication',
          done: 18,
          attempted: 4,
          stuck: 2,
          commonRefusal: { hint: 'invalid_credentials: The App ID or App Secret is wrong.', learners: 3 },
        },
      ],
      learners: [
        {
          userId: '66f1c0a95e2b4d7a9c3e1f21',
          email: 'learner@uni.example.edu',
          joinedAt: '2030-09-01T09:05:00.000Z',
          done: 7,
          cells: { 'auth-basic': { status: 'done', stuck: false, firstAttemptAt: '2030-09-01T09:20:00.000Z', doneAt: '2030-09-01T09:24:00.000Z' } },
        },
      ],
    },
  });

const noSuchClass = { 404: 'No class with this id.' };
const contracts = {
  create: {
    body: createBody,
    responses: { 201: { description: 'The class, with its join code.', schema: classSchema } },
    refusals: { 400: 'The request is malformed, the name or a date is not valid, or endsAt is not after startsAt: the message says which.' },
  },
  list: { responses: { 200: { description: 'Every class, newest first.', schema: z.object({ classes: z.array(classSchema) }).meta({ id: 'ClassList' }) } } },
  view: {
    params: classPath,
    query: viewQuery,
    responses: { 200: { description: 'The class as a grid of its learners by exercise.', schema: viewSchema } },
    refusals: { ...noSuchClass, 400: 'stuckMinutes is not a whole number from 1 to 1440.' },
  },
  csv: {
    params: classPath,
    query: viewQuery,
    responses: {
      200: {
        description: `The grid as CSV with a header row (${CLASS_GRID_COLUMNS.join(',')}, then one column per exercise id, each not_started, attempted, stuck or done); a cell that a spreadsheet would run as a formula starts with '.`,
        contentType: 'text/csv',
        schema: z.string().meta({ example: `${CLASS_GRID_COLUMNS.join(',')},auth-basic\r\nlearner@uni.example.edu,2030-09-01T09:05:00.000Z,7,done\r\n` }),
        headers: { 'Content-Disposition': { description: 'attachment; filename="class-<name>.csv".', required: true } },
      },
    },
    refusals: noSuchClass,
  },
  remove: {
    params: classPath,
    responses: { 204: { description: "Deleted with its memberships; the learners' progress stays theirs." } },
    refusals: noSuchClass,
  },
} satisfies Record<string, Contract>;

const minutes = (value: string | undefined) => (value === undefined ? undefined : Number(value));

export function classAdminRoutes(deps: GatewayDeps): Route[] {
  const operations = () => new AdminOperations(deps.clients.identity, deps.clients.oauth, deps.logger);
  const operator = (ctx: RouteContext) => sessionOperator(sessionOf(ctx));
  const admin = (spec: RouteSpec) => route({ auth: ['portal_session'], operatorOnly: true, noStore: true, rateLimited: false, ...spec });
  return [
    admin({
      methods: 'POST',
      path: '/api/admin/classes',
      summary: 'Create a class ({name, startsAt, endsAt, signUpDomain?, ssoGroup?}); the answer holds its join code.',
      body: 'json',
      contract: contracts.create,
      handler: async (ctx) => json(await operations().createClass(operator(ctx), inputOf(ctx, contracts.create).body, ctx.call()), 201),
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/classes',
      summary: 'Every class, newest first, with its join code and learner count.',
      contract: contracts.list,
      handler: async (ctx) => json(await operations().listClasses(operator(ctx), ctx.call())),
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/classes/:id',
      summary: 'A class as a grid of learners by exercise: done, attempted, stuck (stuckMinutes) and the most common refusal.',
      contract: contracts.view,
      handler: async (ctx) => {
        const { params, query } = inputOf(ctx, contracts.view);
        return json(await operations().classView(operator(ctx), params.id, minutes(query.stuckMinutes), ctx.call()));
      },
    }),
    admin({
      methods: 'GET',
      path: '/api/admin/classes/:id/grid.csv',
      summary: "A class's grid as CSV: one row per learner, one column per exercise.",
      contract: contracts.csv,
      handler: async (ctx) => {
        const { params, query } = inputOf(ctx, contracts.csv);
        const { fileName, csv } = await operations().classCsv(operator(ctx), params.id, minutes(query.stuckMinutes), ctx.call());
        return csvAttachment(fileName, csv);
      },
    }),
    admin({
      methods: 'DELETE',
      path: '/api/admin/classes/:id',
      summary: "Delete a class and its memberships (the learners' progress stays theirs).",
      contract: contracts.remove,
      handler: async (ctx) => {
        await operations().deleteClass(operator(ctx), inputOf(ctx, contracts.remove).params.id, ctx.call());
        return empty(204);
      },
    }),
  ];
}
