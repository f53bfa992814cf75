import { AppError, GrpcStatus } from '@sandbox/runtime';
import {
  canonicalJoinCode,
  ClassService,
  CLASS_MAX_LEARNERS,
  computeClassView,
  JOIN_CODE_ALPHABET,
  newJoinCode,
  shownJoinCode,
} from '../../src/domain/classes';
import type { Exercise } from '../../src/domain/exercises/types';
import type { AuditActor } from '../../src/stores/audit-store';
import { MemoryAuditStore } from '../../src/stores/memory-audit-store';
import { MemoryClassMembershipStore } from '../../src/stores/memory-class-membership-store';
import { MemoryClassStore } from '../../src/stores/memory-class-store';
import { MemoryExerciseProgressStore } from '../../src/stores/memory-exercise-progress-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import type { UserRecord } from '../../src/stores/user-store';

/*
 * Classes (domain/classes.ts) on memory stores, with an injected clock: join
 * codes, the joining rules, and the grid an instructor sees.
 */

const CLI: AuditActor = { kind: 'cli', id: 'cli', email: '', statedUser: 'ops@host' };
const T0 = Date.parse('2030-09-01T09:00:00Z');
const ids = { ada: 'a'.repeat(24), bob: 'b'.repeat(24), cy: 'c'.repeat(24), sso: 'd'.repeat(24) };

const user = (id: string, email: string, extra: Partial<UserRecord> = {}): UserRecord => ({
  id,
  key: `password:${email}`,
  email,
  provider: 'password',
  createdAt: new Date(T0 - 86_400_000),
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('join codes', () => {
  it('when codes are drawn, then each is 8 characters of an alphabet without 0, O, 1 or I, and they differ', () => {
    const codes = new Set(Array.from({ length: 200 }, () => newJoinCode()));
    expect(codes.size).toBe(200);
    for (const code of codes) expect(code).toMatch(new RegExp(`^[${JOIN_CODE_ALPHABET}]{8}$`));
    expect(JOIN_CODE_ALPHABET).not.toMatch(/[0O1I]/);
  });

  it('when a code is typed in lower case, with spaces or hyphens, then it reads as the code; anything else is not a code', () => {
    expect(shownJoinCode('KX7P3MWQ')).toBe('KX7P-3MWQ');
    expect(canonicalJoinCode('kx7p-3mwq')).toBe('KX7P3MWQ');
    expect(canonicalJoinCode(' kx7p 3mwq ')).toBe('KX7P3MWQ');
    expect(canonicalJoinCode('KX7P--3MWQ')).toBe('KX7P3MWQ');
    expect(canonicalJoinCode('KX7P3MW')).toBeUndefined();
    expect(canonicalJoinCode('KX7P3MW0')).toBeUndefined();
  });
});

describe('classes', () => {
  let now: number;
  let users: MemoryUserStore;
  let classes: MemoryClassStore;
  let memberships: MemoryClassMembershipStore;
  let progress: MemoryExerciseProgressStore;
  let audit: MemoryAuditStore;
  let service: ClassService;
  let draws: string[];

  beforeEach(async () => {
    now = T0;
    users = new MemoryUserStore();
    classes = new MemoryClassStore();
    memberships = new MemoryClassMembershipStore();
    progress = new MemoryExerciseProgressStore();
    audit = new MemoryAuditStore();
    draws = [];
    service = new ClassService({
      users,
      classes,
      classMemberships: memberships,
      exerciseProgress: progress,
      audit,
      now: () => new Date(now),
      drawCode: () => draws.shift() ?? newJoinCode(),
    });
    await users.insert(user(ids.ada, 'ada@uni.example.edu'));
    await users.insert(user(ids.bob, 'bob@uni.example.edu'));
    await users.insert(user(ids.cy, 'cy@elsewhere.example'));
    await users.insert(user(ids.sso, 'sso@uni.example.edu', { provider: 'https://idp.example', key: 'https://idp.example#s1', groups: ['api-course'] }));
  });

  const create = (extra: Record<string, string> = {}) =>
    service.create(CLI, { name: 'Autumn cohort', startsAt: '2030-09-01T09:00:00Z', endsAt: '2030-09-30T17:00:00Z', ...extra });

  it('when a class is created, then it has a join code, is audited, and its dates and name are checked', async () => {
    const created = await create({ signUpDomain: '@Uni.Example.EDU' });
    expect(created.record.joinCode).toMatch(/^[A-Z2-9]{8}$/);
    expect(created.record.signUpDomain).toBe('uni.example.edu');
    expect((await audit.list(10))[0]).toMatchObject({ action: 'class.create', actor: CLI });
    expect((await refusal(create({ endsAt: '2030-09-01T09:00:00Z' }))).code).toBe('invalid_class_dates');
    expect((await refusal(create({ startsAt: 'tomorrow' }))).code).toBe('invalid_class_dates');
    expect((await refusal(create({ name: '  ' }))).code).toBe('invalid_class_name');
    expect((await refusal(create({ name: 'x'.repeat(101) }))).code).toBe('invalid_class_name');
    expect((await refusal(create({ signUpDomain: 'ada@uni.example.edu' }))).code).toBe('invalid_sign_up_domain');
  });

  it('when a drawn code is taken, then another is drawn', async () => {
    draws = ['AAAABBBB'];
    await create();
    draws = ['AAAABBBB', 'CCCCDDDD'];
    expect((await create()).record.joinCode).toBe('CCCCDDDD');
  });

  it('when learners join, then any case and spacing works, joining again is harmless, and the rules are named in the refusals', async () => {
    const { record } = await create({ signUpDomain: 'uni.example.edu' });
    const typed = shownJoinCode(record.joinCode).toLowerCase().replace('-', ' ');
    expect((await service.join(ids.ada, typed)).record.id).toBe(record.id);
    expect((await service.join(ids.ada, record.joinCode)).learners).toBe(1);
    expect(await service.mine(ids.ada)).toEqual([record]);

    const outside = await refusal(service.join(ids.cy, record.joinCode));
    expect([outside.status, outside.code]).toEqual([GrpcStatus.PERMISSION_DENIED, 'class_domain_not_allowed']);
    expect(outside.message).toContain('uni.example.edu');
    expect((await refusal(service.join(ids.ada, 'ZZZZ-ZZZZ'))).code).toBe('class_not_found');
    expect((await refusal(service.join(ids.ada, 'not a code'))).code).toBe('invalid_join_code');

    now = Date.parse('2030-09-30T17:00:00Z');
    const ended = await refusal(service.join(ids.bob, record.joinCode));
    expect(ended.code).toBe('class_ended');
    // One already in it is answered as before: joining is idempotent.
    expect((await service.join(ids.ada, record.joinCode)).record.id).toBe(record.id);
  });

  it('when a class has an SSO group, then only a user whose provider named the group joins', async () => {
    const { record } = await create({ ssoGroup: 'api-course' });
    expect((await service.join(ids.sso, record.joinCode)).learners).toBe(1);
    const refused = await refusal(service.join(ids.bob, record.joinCode));
    expect(refused.code).toBe('class_group_required');
    expect(refused.message).toContain('api-course');
  });

  it(`when a class holds ${CLASS_MAX_LEARNERS} learners, then the next is refused`, async () => {
    const { record } = await create();
    for (let i = 0; i < CLASS_MAX_LEARNERS; i++) await memberships.add({ classId: record.id, userId: `u${i}`, joinedAt: new Date(T0) });
    expect((await refusal(service.join(ids.ada, record.joinCode))).code).toBe('class_full');
  });

  it('when two learners race for the last seat, then the class never holds more than the cap', async () => {
    const { record } = await create();
    for (let i = 0; i < CLASS_MAX_LEARNERS - 1; i++) await memberships.add({ classId: record.id, userId: `u${i}`, joinedAt: new Date(T0) });
    const outcomes = await Promise.allSettled([service.join(ids.ada, record.joinCode), service.join(ids.bob, record.joinCode)]);
    const members = await memberships.count(record.id);
    expect(members).toBeLessThanOrEqual(CLASS_MAX_LEARNERS);
    // Whoever was told they joined is in; whoever was refused was told the class is full.
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(members - (CLASS_MAX_LEARNERS - 1));
    for (const o of outcomes) if (o.status === 'rejected') expect((o.reason as { code: string }).code).toBe('class_full');
  });

  it('when a learner leaves, or the class is deleted, then the memberships go and the progress stays', async () => {
    const { record } = await create();
    await service.join(ids.ada, record.joinCode);
    await service.join(ids.bob, record.joinCode);
    await progress.save([{ userId: ids.bob, exerciseId: 'auth-basic', status: 'done', firstAttemptAt: T0, doneAt: T0 }]);
    await service.leave(ids.ada, record.id);
    expect(await service.mine(ids.ada)).toEqual([]);
    expect((await refusal(service.leave(ids.ada, record.id))).code).toBe('class_not_found');
    expect(await service.delete(CLI, record.id)).toBe(1);
    expect(await service.mine(ids.bob)).toEqual([]);
    expect(await progress.forUsers([ids.bob])).toHaveLength(1);
    expect((await audit.list(10))[0]).toMatchObject({ action: 'class.delete' });
    expect((await refusal(service.view(record.id, 0))).code).toBe('class_not_found');
  });

  it('when the view is read, then stuck follows the clock and stuckMinutes, and stuckMinutes is bounded', async () => {
    const { record } = await create();
    await service.join(ids.ada, record.joinCode);
    await progress.save([
      { userId: ids.ada, exerciseId: 'auth-basic', status: 'attempted', firstAttemptAt: T0, lastAttempt: { at: T0, hint: 'wrong secret', facts: {} } },
    ]);
    now = T0 + 15 * 60_000;
    let view = await service.view(record.id, 0);
    expect(view.stuckMinutes).toBe(15);
    const cell = () => view.learners[0]!.cells.find((c) => c.exerciseId === 'auth-basic')!;
    expect(cell()).toMatchObject({ status: 'attempted', stuck: false, hint: 'wrong secret' });
    now += 1;
    view = await service.view(record.id, 0);
    expect(cell().stuck).toBe(true);
    view = await service.view(record.id, 30);
    expect(cell().stuck).toBe(false);
    expect((await refusal(service.view(record.id, 1441))).code).toBe('invalid_stuck_minutes');
  });
});

describe('computeClassView', () => {
  const exercises = [
    { id: 'one', title: 'One', group: 'http' },
    { id: 'two', title: 'Two', group: 'http' },
  ] as unknown as Exercise[];
  const member = (userId: string, at: number) => ({ classId: 'c', userId, joinedAt: new Date(at) });
  const attempt = (userId: string, exerciseId: string, hint: string, at: number) => ({
    userId,
    exerciseId,
    status: 'attempted' as const,
    firstAttemptAt: at,
    lastAttempt: { at, hint, facts: {} },
  });

  it('when learners hold hints, then the common refusal is the most held, a tie going to the most recent; counts add up', () => {
    const view = computeClassView({
      exercises,
      members: [member('u1', 1), member('u2', 2), member('u3', 3), member('gone', 4)],
      users: [user('u1', 'u1@x.example'), user('u2', 'u2@x.example'), user('u3', 'u3@x.example')],
      progress: [
        attempt('u1', 'one', 'A', 100),
        attempt('u2', 'one', 'B', 200),
        attempt('u3', 'one', 'B', 50),
        attempt('u1', 'two', 'A', 100),
        attempt('u2', 'two', 'B', 300),
        { userId: 'u3', exerciseId: 'two', status: 'done', firstAttemptAt: 10, doneAt: 20 },
      ],
      now: 1000,
      stuckMs: 500,
    });
    expect(view.learners.map((l) => l.userId)).toEqual(['u1', 'u2', 'u3']);
    expect(view.exercises[0]).toEqual({ id: 'one', title: 'One', group: 'http', done: 0, attempted: 3, stuck: 3, commonRefusal: { hint: 'B', learners: 2 } });
    expect(view.exercises[1]).toMatchObject({ done: 1, attempted: 2, stuck: 2, commonRefusal: { hint: 'B', learners: 1 } });
    expect(view.learners[2]!.done).toBe(1);
  });
});
