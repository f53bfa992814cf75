import { health } from '@sandbox/contracts';
import { LIVENESS, SERVICE_NAMES, type ServiceName } from '@sandbox/runtime';
import {
  judge,
  READINESS_CHECK_INTERVAL_MS,
  REFUSALS_TO_DOWN,
  ReplicaHealth,
  SILENT_INTERVALS_TO_DOWN,
  staleAfterMs,
  view,
  type ServiceHealth,
} from '../../src/readiness';

const { SERVING, NOT_SERVING, SERVICE_UNKNOWN } = health.HealthCheckResponse_ServingStatus;
const T0 = Date.parse('2025-01-01T12:00:00.000Z');

/** A replica that answered its liveness check at `at` and whose Watch streams said `stores`. */
function replica(at = T0, stores: Record<string, health.HealthCheckResponse_ServingStatus> = {}, liveness = SERVING): ReplicaHealth {
  const r = new ReplicaHealth(`10.0.0.${Math.floor(Math.random() * 250)}:50051`, T0 - 5000);
  r.watched(LIVENESS, liveness, at);
  for (const [name, status] of Object.entries(stores)) r.watched(name, status, at);
  r.answered(liveness, at);
  return r;
}

/** Every service with one serving replica (identity with MongoDB and Redis, oauth with Redis), unless given. */
function system(given: Partial<Record<ServiceName, ReplicaHealth[]>> = {}): Record<ServiceName, ServiceHealth> {
  const defaults: Record<ServiceName, () => ReplicaHealth[]> = {
    identity: () => [replica(T0, { mongodb: SERVING, redis: SERVING })],
    oauth: () => [replica(T0, { redis: SERVING })],
    data: () => [replica()],
    playground: () => [replica()],
  };
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, { replicas: given[name] ?? defaults[name]() }])) as Record<ServiceName, ServiceHealth>;
}

describe('a replica’s liveness', () => {
  it(`when a check is refused (a stopped process), then the replica stays up until ${REFUSALS_TO_DOWN} refusals in a row, then it is down as unreachable`, () => {
    const r = replica(T0);
    r.failed('unreachable', T0 + 1000, true);
    expect(r.liveness(T0 + 1000)).toEqual({ status: 'up', at: T0 });
    r.failed('unreachable', T0 + 1250, true);
    expect(r.liveness(T0 + 1250)).toEqual({ status: 'down', reason: 'unreachable', at: T0 + 1250 });
    r.answered(SERVING, T0 + 4000);
    expect(r.liveness(T0 + 4000)).toEqual({ status: 'up', at: T0 + 4000 });
  });

  it(`when checks go unanswered (a busy or a hung process), then the replica stays up, its verdict ageing, until it has been silent ${SILENT_INTERVALS_TO_DOWN} intervals`, () => {
    const silence = SILENT_INTERVALS_TO_DOWN * READINESS_CHECK_INTERVAL_MS;
    const r = replica(T0);
    for (let at = T0 + 2000; at <= T0 + silence; at += 1000) r.failed('no answer in time', at, false);
    expect(r.liveness(T0 + silence - 1)).toEqual({ status: 'up', at: T0 });
    expect(r.liveness(T0 + silence)).toEqual({ status: 'down', reason: 'no answer in time', at: T0 + silence });
  });

  it('when a late answer comes (a busy replica), then the silence is over and so is any doubt', () => {
    const r = replica(T0);
    r.failed('no answer in time', T0 + 2000, false);
    r.failed('no answer in time', T0 + 3000, false);
    r.answered(SERVING, T0 + 3500);
    r.failed('no answer in time', T0 + 5000, false);
    r.failed('no answer in time', T0 + 6000, false);
    expect(r.liveness(T0 + 8000)).toEqual({ status: 'up', at: T0 + 3500 });
  });

  it('when the replica says it is not serving (draining), then it is down at once', () => {
    const r = replica(T0);
    r.watched(LIVENESS, NOT_SERVING, T0 + 100);
    expect(r.liveness()).toEqual({ status: 'down', reason: 'not serving', at: T0 + 100 });
  });

  it('when nothing was heard yet, then it is down as not yet checked', () => {
    expect(new ReplicaHealth('10.0.0.1:50051', T0).liveness()).toEqual({ status: 'down', reason: 'not yet checked', at: T0 });
  });

  it('a store verdict pushed on an open stream is as fresh as the replica’s last answer; once the stream ended, it ages', () => {
    const r = replica(T0, { mongodb: SERVING });
    r.answered(SERVING, T0 + 1000);
    expect(r.store('mongodb')).toEqual({ status: 'up', at: T0 + 1000 });
    r.watchEnded('mongodb');
    r.answered(SERVING, T0 + 2000);
    expect(r.store('mongodb')).toEqual({ status: 'up', at: T0 });
  });
});

describe('judging every part', () => {
  it('when everything serves, then ready, each service with its replicas and each store with the parts that reach it', () => {
    const verdict = judge(system(), { redis: { up: true, checkedAt: T0 - 200 } }, T0);
    expect(verdict).toEqual({
      ready: true,
      down: [],
      components: {
        identity: { status: 'up', replicas: { up: 1, of: 1 }, at: T0 },
        oauth: { status: 'up', replicas: { up: 1, of: 1 }, at: T0 },
        data: { status: 'up', replicas: { up: 1, of: 1 }, at: T0 },
        playground: { status: 'up', replicas: { up: 1, of: 1 }, at: T0 },
        mongodb: { status: 'up', via: 'identity', at: T0 },
        // As fresh as its oldest confirmation: the gateway's own check.
        redis: { status: 'up', via: 'identity, oauth, gateway', at: T0 - 200 },
      },
    });
  });

  it('when one replica of a service is draining and the other serves, then the service is up, one of two', () => {
    const verdict = judge(system({ data: [replica(T0, {}, NOT_SERVING), replica(T0)] }), {}, T0);
    expect(verdict.ready).toBe(true);
    expect(verdict.components.data).toEqual({ status: 'up', replicas: { up: 1, of: 2 }, at: T0 });
  });

  it('when every replica of a service is down, then it is named, with the replica’s own word over silence', () => {
    const silent = replica(T0);
    silent.failed('unreachable', T0 + 1000, true);
    silent.failed('unreachable', T0 + 1250, true);
    const verdict = judge(system({ data: [silent, replica(T0, {}, NOT_SERVING)] }), {}, T0 + 1250);
    expect(verdict).toMatchObject({
      ready: false,
      down: ['data'],
      components: { data: { status: 'down', reason: 'not serving', replicas: { up: 0, of: 2 }, at: T0 + 1250 } },
    });
  });

  it('when identity finds its Redis down, then redis is down, saying from where, while oauth still reaches it', () => {
    const verdict = judge(system({ identity: [replica(T0, { mongodb: SERVING, redis: NOT_SERVING })] }));
    expect(verdict.down).toEqual(['redis']);
    expect(verdict.components.redis).toEqual({ status: 'down', via: 'identity, oauth', reason: 'not serving (from identity)', at: T0 });
    expect(verdict.components.identity!.status).toBe('up');
  });

  it('when identity uses no Redis (it answers SERVICE_UNKNOWN), then redis is reached through oauth only', () => {
    const verdict = judge(system({ identity: [replica(T0, { mongodb: SERVING, redis: SERVICE_UNKNOWN })] }));
    expect(verdict.components.redis).toEqual({ status: 'up', via: 'oauth', at: T0 });
  });

  it('when a service is down, then its stores are unknown, not down: only the service is named', () => {
    const gone = replica(T0, { mongodb: NOT_SERVING, redis: NOT_SERVING });
    gone.failed('unreachable', T0 + 1000, true);
    gone.failed('unreachable', T0 + 1250, true);
    const verdict = judge(system({ identity: [gone], oauth: [replica(T0, { redis: SERVICE_UNKNOWN })] }));
    expect(verdict.down).toEqual(['identity']);
    expect(verdict.components.mongodb).toBeUndefined();
    expect(verdict.components.redis).toBeUndefined();
  });

  it('when the gateway’s own Redis check fails, then redis is down from the gateway', () => {
    const verdict = judge(system(), { redis: { up: false, checkedAt: T0 + 500, reason: 'connect ECONNREFUSED' } });
    expect(verdict.components.redis).toEqual({ status: 'down', via: 'identity, oauth, gateway', reason: 'connect ECONNREFUSED (from gateway)', at: T0 + 500 });
  });

  it('when a name resolves to no replica, then the service is down with no address', () => {
    const services = system();
    services.playground = { replicas: [], none: { reason: 'no address', at: T0 } };
    expect(judge(services).components.playground).toEqual({ status: 'down', reason: 'no address', at: T0 });
  });
});

describe('ages and staleness', () => {
  const staleAfter = staleAfterMs(READINESS_CHECK_INTERVAL_MS, 1000);

  it('a verdict carries when it was confirmed and its age', () => {
    expect(view({ status: 'up', at: T0 }, T0 + 312, staleAfter)).toEqual({ status: 'up', checkedAt: '2025-01-01T12:00:00.000Z', ageMs: 312 });
  });

  it('when a verdict is older than two checks should make it, then it is flagged stale and keeps its status: staleness is not an outage', () => {
    expect(staleAfter).toBe(4000);
    expect(view({ status: 'up', at: T0 }, T0 + staleAfter, staleAfter)).toEqual({ status: 'up', checkedAt: '2025-01-01T12:00:00.000Z', ageMs: staleAfter });
    expect(view({ status: 'up', at: T0 }, T0 + staleAfter + 1, staleAfter)).toEqual({
      status: 'up',
      checkedAt: '2025-01-01T12:00:00.000Z',
      ageMs: staleAfter + 1,
      stale: true,
    });
  });

  it('a stale verdict does not make the system unready by itself', () => {
    // Nothing heard for a minute and no check made (a starved gateway): still the last verdicts, flagged.
    const verdict = judge(system(), {}, T0 + 60_000);
    expect(verdict.ready).toBe(true);
    expect(view(verdict.components.identity!, T0 + 60_000, staleAfter)).toMatchObject({ status: 'up', stale: true, ageMs: 60_000 });
  });

  it('staleness comes before silence: a verdict is flagged stale before silence alone could make its part down', () => {
    expect(staleAfter).toBeLessThan(SILENT_INTERVALS_TO_DOWN * READINESS_CHECK_INTERVAL_MS);
  });
});
