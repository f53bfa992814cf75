import { z } from 'zod';
import type { identity } from '@sandbox/contracts';
import { sessionOf } from '../../auth/scheme';
import type { GatewayDeps } from '../../deps';
import { inputOf, timestamp, type Contract } from '../../http/contract';
import { empty, json } from '../../http/reply';
import type { Route, RouteSpec } from '../../http/route';

/*
 * A learner's classes (docs/exercises.md, "Classes"): join one with the code
 * an instructor gave, list those one is in, leave one. What a class shows a
 * learner is its name and dates; its join code, rules and learners are the
 * operators' (operators/class-routes.ts).
 */

/** A class as its learners see it: the operators' Class (operators/class-routes.ts) extends it. */
export const classSummarySchema = z
  .object({
    id: z.string(),
    name: z.string().meta({ example: 'API integration, autumn cohort' }),
    startsAt: timestamp,
    endsAt: timestamp.meta({ description: 'Joining is open until then.' }),
  })
  .meta({
    id: 'ClassSummary',
    example: {
      id: '6a01c0a95e2b4d7a9c3e1f77',
      name: 'API integration, autumn cohort',
      startsAt: '2030-09-01T09:00:00.000Z',
      endsAt: '2030-12-20T17:00:00.000Z',
    },
  });

/** The one mapping from identity's ClassInfo to what a learner sees. */
export function classSummaryJson(info: identity.ClassInfo | undefined) {
  return { id: info?.id ?? '', name: info?.name ?? '', startsAt: info?.startsAt ?? '', endsAt: info?.endsAt ?? '' };
}

const joinBody = z
  .strictObject({
    code: z
      .string({ error: (issue) => (issue.input === undefined ? 'code is required' : 'code must be a string') })
      .max(64, { error: 'code is at most 64 characters' })
      .meta({ description: 'The join code as your instructor gave it: any case, spaces and hyphens allowed.', example: 'kx7p-3mwq' }),
  })
  .meta({ id: 'JoinClass' });

const contracts = {
  join: {
    body: joinBody,
    responses: {
      200: {
        description: 'You are in the class (again: joining twice is harmless).',
        schema: z.object({ class: classSummarySchema }).meta({ id: 'JoinedClass' }),
      },
    },
    refusals: {
      400: 'The code is not a join code (invalid_join_code), the class has ended (class_ended), or it is full (class_full).',
      403: "The class is for another email domain (class_domain_not_allowed) or for an identity provider's group you are not in (class_group_required).",
      404: 'No class has this join code (class_not_found).',
    },
  },
  list: {
    responses: {
      200: {
        description: 'The classes you are in, in the order you joined.',
        schema: z.object({ classes: z.array(classSummarySchema) }).meta({ id: 'MyClasses' }),
      },
    },
  },
  leave: {
    params: z.object({ id: z.string().meta({ description: "The class's id, from GET /api/classes.", example: '6a01c0a95e2b4d7a9c3e1f77' }) }),
    responses: { 204: { description: 'You left the class; your exercise progress stays yours.' } },
    refusals: { 404: 'You are not in a class with this id.' },
  },
} satisfies Record<string, Contract>;

/** `portal`: portal-routes.ts's maker of a signed-in user's route. */
export function classRoutes(deps: GatewayDeps, portal: (spec: RouteSpec) => Route): Route[] {
  return [
    portal({
      methods: 'POST',
      path: '/api/classes/join',
      summary: 'Join a class with the code your instructor gave.',
      body: 'json',
      contract: contracts.join,
      handler: async (ctx) => {
        const joined = await deps.clients.identity.joinClass({ ownerId: sessionOf(ctx).user.id, code: inputOf(ctx, contracts.join).body.code }, ctx.call());
        return json({ class: classSummaryJson(joined.class) });
      },
    }),
    portal({
      methods: 'GET',
      path: '/api/classes',
      summary: 'The classes you are in.',
      contract: contracts.list,
      handler: async (ctx) => {
        const { classes } = await deps.clients.identity.listMyClasses({ ownerId: sessionOf(ctx).user.id }, ctx.call());
        return json({ classes: classes.map(classSummaryJson) });
      },
    }),
    portal({
      methods: 'DELETE',
      path: '/api/classes/:id',
      summary: 'Leave a class.',
      contract: contracts.leave,
      handler: async (ctx) => {
        await deps.clients.identity.leaveClass({ ownerId: sessionOf(ctx).user.id, classId: inputOf(ctx, contracts.leave).params.id }, ctx.call());
        return empty(204);
      },
    }),
  ];
}
