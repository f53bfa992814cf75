import { z } from 'zod';
import type { ServiceName } from './service-addresses';

/**
 * What a service needs before it runs as more than one process: each replica
 * otherwise keeps its own memory (a store) or makes up its own key, and what
 * one replica wrote or signed the next would not know (docs/state.md).
 * One table, read by the launcher (which refuses before starting anything,
 * and makes up the keys for one run) and by each service (which refuses to
 * start, whoever started it).
 */
export interface ReplicaNeed {
  variable: string;
  kind: 'store' | 'key';
  /** What goes wrong without it, for the one line the refusal prints. */
  why: string;
  /** Needed only while this variable is set (the feature it turns on): e.g. SSO_COOKIE_KEY only with SSO_CLIENT_ID. */
  onlyWith?: string;
}

/** The processes that can run as replicas: the four services and the gateway. */
export type ReplicatedProcess = ServiceName | 'gateway';

export const REPLICA_NEEDS: Readonly<Record<ReplicatedProcess, readonly ReplicaNeed[]>> = {
  identity: [
    { variable: 'MONGO_URL', kind: 'store', why: 'without it each identity replica keeps its own accounts, apps, credentials and request logs in memory' },
    { variable: 'REDIS_URL', kind: 'store', why: 'without it each identity replica counts sign-in failures on its own, multiplying the attempts allowed' },
  ],
  oauth: [
    { variable: 'REDIS_URL', kind: 'store', why: 'without it each oauth replica keeps its own codes, tokens, nonces and replay memories in memory' },
    { variable: 'JWT_SIGNING_KEY', kind: 'key', why: 'without it each oauth replica signs with a key of its own, and what one issues the other refuses' },
  ],
  data: [{ variable: 'PAGE_TOKEN_KEY', kind: 'key', why: 'without it each data replica seals page tokens with a key of its own, and the other refuses them' }],
  playground: [],
  gateway: [
    {
      variable: 'SSO_COOKIE_KEY',
      kind: 'key',
      onlyWith: 'SSO_CLIENT_ID',
      why: 'without it each gateway replica seals the single sign-on cookies with a key of its own, and a sign-in started on one fails on another',
    },
  ],
};

/** Whether a need applies to this environment (a need of a feature applies only while the feature is on). */
export const needApplies = (need: ReplicaNeed, vars: Record<string, unknown>): boolean =>
  need.onlyWith === undefined || (vars[need.onlyWith] !== undefined && vars[need.onlyWith] !== '');

/** `<NAME>_REPLICAS`: one service's count, over REPLICAS (the launcher reads the same two; the chart sets the first). */
export const replicasVariable = (name: string) => `${name.toUpperCase()}_REPLICAS`;

const count = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === '' ? undefined : Number(v)))
    .refine((v) => v === undefined || (Number.isInteger(v) && v >= 1), { message: 'must be a whole number, 1 or more' });

/** REPLICAS and `<NAME>_REPLICAS`, to spread into a service's config schema. */
export function replicaVariables(name: ServiceName) {
  return { REPLICAS: count(), [replicasVariable(name)]: count() };
}

/** How many replicas the variables say run, and which variable said so. */
export function replicaCount(vars: Record<string, unknown>, name: string): { count: number; variable: string } {
  const own = vars[replicasVariable(name)];
  if (typeof own === 'number') return { count: own, variable: replicasVariable(name) };
  return { count: typeof vars.REPLICAS === 'number' ? vars.REPLICAS : 1, variable: 'REPLICAS' };
}

/** The refusal's words: "is required with 2 oauth replicas (REPLICAS=2): without it ...". */
export function replicaNeedMessage(need: ReplicaNeed, name: string, replicas: { count: number; variable: string }): string {
  return `is required with ${replicas.count} ${name} replicas (${replicas.variable}=${replicas.count}): ${need.why}`;
}

/**
 * A service's refinement: with more than one replica, every variable the
 * table names must be set. The service then refuses to start with one line
 * naming it (loadConfig).
 */
export function requireReplicaNeeds(name: ReplicatedProcess) {
  return (vars: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const replicas = replicaCount(vars, name);
    if (replicas.count <= 1) return;
    for (const need of REPLICA_NEEDS[name]) {
      if (!needApplies(need, vars)) continue;
      if (vars[need.variable] === undefined || vars[need.variable] === '')
        ctx.addIssue({ code: 'custom', path: [need.variable], message: replicaNeedMessage(need, name, replicas) });
    }
  };
}
