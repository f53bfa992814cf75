import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { DELETED_USER_MEMORY_MS, deletedUserRecordId } from '../../src/domain/accounts';
import { AdminService } from '../../src/domain/admin';
import { AppLeftovers } from '../../src/domain/app-leftovers';
import { newAppId, newResourceId } from '../../src/domain/credentials';
import { OPERATOR_PAGE_TOKEN_KEY_INFO, PageTokens } from '../../src/domain/page-tokens';
import type { AppRecord } from '../../src/stores/app-store';
import type { AuditActor } from '../../src/stores/audit-store';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryExerciseProgressStore } from '../../src/stores/memory-exercise-progress-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryAuditStore } from '../../src/stores/memory-audit-store';
import { MemoryClassMembershipStore } from '../../src/stores/memory-class-membership-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemorySessionStore } from '../../src/stores/memory-session-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';
import { MemoryUserStore } from '../../src/stores/memory-user-store';
import type { UsageRecord } from '../../src/stores/usage-store';
import type { UserRecord } from '../../src/stores/user-store';

const NOT_FOUND = 5;
const INVALID_ARGUMENT = 3;
const FAILED_PRECONDITION = 9;
const ISSUER = 'https://idp.example.test';
const CLI: AuditActor = { kind: 'cli', id: 'root@admin-pod', email: '' };
const T0 = new Date('2030-01-10T12:00:00.000Z');

describe('AdminService', () => {
  let now: Date;
  let users: MemoryUserStore;
  let sessions: MemorySessionStore;
  let apps: MemoryAppStore;
  let logs: MemoryRequestLogStore;
  let usage: MemoryUsageStore;
  let audit: MemoryAuditStore;
  let limits: MemoryAppLimitStore;
  let exerciseProgress: MemoryExerciseProgressStore;
  let classMemberships: MemoryClassMembershipStore;
  let changes: number;
  let sessionChanges: number;
  let admin: AdminService;

  beforeEach(() => {
    now = T0;
    users = new MemoryUserStore();
    sessions = new MemorySessionStore();
    apps = new MemoryAppStore();
    logs = new MemoryRequestLogStore();
    usage = new MemoryUsageStore();
    audit = new MemoryAuditStore();
    limits = new MemoryAppLimitStore();
    exerciseProgress = new MemoryExerciseProgressStore();
    classMemberships = new MemoryClassMembershipStore();
    changes = 0;
    sessionChanges = 0;
    admin = new AdminService({
      users,
      sessions,
      apps,
      logs,
      exerciseProgress,
      classMemberships,
      usage,
      audit,
      limits,
      operators: { emails: new Set(['ops@example.org']), groups: new Set(['sandbox-operators']), groupsClaim: 'groups' },
      tokens: new PageTokens(randomBytes(32), OPERATOR_PAGE_TOKEN_KEY_INFO),
      onChange: () => changes++,
      onSessionsChange: () => sessionChanges++,
      now: () => now,
    });
  });

  const aUser = async (email: string, overrides: Partial<UserRecord> = {}): Promise<UserRecord> => {
    const user: UserRecord = {
      id: newResourceId(),
      key: `password:${email}`,
      email,
      provider: 'password',
      passwordHash: 'scrypt$x',
      createdAt: now,
      ...overrides,
    };
    await users.insert(user);
    return user;
  };
  const anExternalUser = (email: string, subject: string, overrides: Partial<UserRecord> = {}) =>
    aUser(email, { key: `${ISSUER}#${subject}`, provider: ISSUER, passwordHash: undefined, ...overrides });
  const anApp = async (ownerId: string, name = 'Practice app'): Promise<AppRecord> => {
    const credential = { createdAt: now, hint: 'abcd' };
    const app: AppRecord = {
      id: newResourceId(),
      ownerId,
      name,
      description: '',
      appId: newAppId(),
      redirectUris: [],
      scopes: ['hr:read'],
      status: 'active',
      createdAt: now,
      updatedAt: now,
      credentials: {
        appSecret: { hash: randomBytes(16).toString('hex'), ...credential },
        apiKey: { lookup: randomBytes(16).toString('hex'), sealed: 'v1.x.y.z', ...credential },
        bearerToken: { hash: randomBytes(16).toString('hex'), ...credential },
      },
    };
    await apps.insert(app);
    return app;
  };
  const counted = (app: AppRecord, day: string, requests: number, overrides: Partial<UsageRecord> = {}): UsageRecord => ({
    day,
    app: app.id,
    appId: app.appId,
    userId: app.ownerId,
    authStyle: 'api_key_header',
    routeFamily: 'data',
    requests,
    lastAt: new Date(`${day}T09:00:00.000Z`),
    ...overrides,
  });
  const logged = (app: AppRecord, time: Date) => ({
    id: randomBytes(12).toString('hex'),
    app: app.id,
    time,
    method: 'GET',
    path: '/playground/data/hr/employees',
    status: 200,
    authStyle: 'api_key_header',
    latencyMs: 1,
    requestId: 'r',
    failure: '',
  });
  const auditTrail = async () => (await audit.list(100)).map((entry) => entry.action);

  describe('disable and enable', () => {
    it('when a user is disabled, then the user is marked, every app of theirs too, caches are dropped and the audit log says who did it to whom', async () => {
      const ada = await aUser('ada@example.org');
      const bob = await aUser('bob@example.org');
      const [one, two, bobs] = [await anApp(ada.id), await anApp(ada.id), await anApp(bob.id)];
      now = new Date(T0.getTime() + 60_000);
      const overview = await admin.setDisabled(CLI, ada.id, true);
      expect(overview).toMatchObject({ disabled: true, appCount: 2, operator: false });
      expect((await users.findById(ada.id))?.disabledAt).toEqual(now);
      expect((await apps.findByIds([one.id, two.id, bobs.id])).map((app) => app.ownerDisabled ?? false)).toEqual([true, true, false]);
      expect(changes).toBeGreaterThan(0);
      expect((await audit.list(1))[0]).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        at: now,
        actor: CLI,
        action: 'user.disable',
        targetUserId: ada.id,
        targetEmail: 'ada@example.org',
        detail: 'sign-in, sessions and app credentials refused',
      });
    });

    it('when a disabled user is enabled, then the marks go, and disabling twice keeps the first moment', async () => {
      const ada = await aUser('ada@example.org');
      const app = await anApp(ada.id);
      await admin.setDisabled(CLI, ada.id, true);
      now = new Date(T0.getTime() + 5000);
      await admin.setDisabled(CLI, ada.id, true);
      expect((await users.findById(ada.id))?.disabledAt).toEqual(T0);
      const enabled = await admin.setDisabled(CLI, ada.id, false);
      expect(enabled.disabled).toBe(false);
      expect((await users.findById(ada.id))?.disabledAt).toBeUndefined();
      expect((await apps.findByAppId(app.appId))?.ownerDisabled).toBe(false);
      expect(await auditTrail()).toEqual(['user.enable', 'user.disable', 'user.disable']);
    });

    it('when a user is disabled, then their sessions are kept (refused while disabled, not ended), so an enable brings them back', async () => {
      const ada = await aUser('ada@example.org');
      await sessions.put({ id: 's1', userId: ada.id, expiresAt: new Date(T0.getTime() + 3600_000), kind: 'active' });
      await admin.setDisabled(CLI, ada.id, true);
      expect(await sessions.find('s1', now)).toBeDefined();
    });

    it('when an operator in a session names their own account, then cannot_act_on_self, for disable and delete alike; the CLI is not a session', async () => {
      const ops = await aUser('ops@example.org');
      const self: AuditActor = { kind: 'session', id: ops.id, email: ops.email };
      for (const call of [admin.setDisabled(self, ops.id, true), admin.deleteUser(self, ops.id)]) {
        expect(await refusalOf(call)).toEqual({
          status: FAILED_PRECONDITION,
          code: 'cannot_act_on_self',
          message: 'An operator cannot disable or delete their own account; ask another operator, or use the admin CLI.',
        });
      }
      expect((await admin.setDisabled({ kind: 'cli', id: ops.id, email: '' }, ops.id, true)).disabled).toBe(true);
      expect(await auditTrail()).toEqual(['user.disable']);
    });

    it('when the user is unknown or the id is not one, then user_not_found (404), and nothing is audited', async () => {
      for (const id of [newResourceId(), 'not-an-id', '', 'FFFFFFFFFFFFFFFFFFFFFFFF']) {
        expect(await refusalOf(admin.setDisabled(CLI, id, true))).toEqual({ status: NOT_FOUND, code: 'user_not_found', message: 'No user has this id.' });
        expect((await refusalOf(admin.deleteUser(CLI, id))).code).toBe('user_not_found');
        expect((await refusalOf(admin.getUser(id))).code).toBe('user_not_found');
      }
      expect(await auditTrail()).toEqual([]);
    });
  });

  describe('delete', () => {
    it("when a user is deleted, then their apps, logs, usage, limits, exercise progress and sessions go, and nobody else's", async () => {
      const ada = await aUser('ada@example.org');
      const bob = await aUser('bob@example.org');
      const [mine, theirs] = [await anApp(ada.id), await anApp(bob.id)];
      await logs.append([logged(mine, now), logged(theirs, now)]);
      await usage.add([counted(mine, '2030-01-10', 5), counted(theirs, '2030-01-10', 7)]);
      await limits.put({ appId: mine.appId, exempt: true, perSecond: 0, burst: 0, setAt: now, setBy: CLI });
      await limits.put({ appId: theirs.appId, exempt: true, perSecond: 0, burst: 0, setAt: now, setBy: CLI });
      await sessions.put({ id: 's-ada', userId: ada.id, expiresAt: new Date(T0.getTime() + 3600_000), kind: 'active' });
      await sessions.put({ id: 's-bob', userId: bob.id, expiresAt: new Date(T0.getTime() + 3600_000), kind: 'active' });
      const progress = (userId: string) => ({ userId, exerciseId: 'auth-basic', status: 'done' as const, firstAttemptAt: 1, doneAt: 2, doneWith: 'x' });
      await exerciseProgress.save([progress(ada.id), progress(bob.id)]);
      for (const userId of [ada.id, bob.id]) await classMemberships.add({ classId: 'c'.repeat(24), userId, joinedAt: now });

      await expect(admin.deleteUser(CLI, ada.id)).resolves.toEqual({ appIds: [mine.appId] });
      expect(await users.findById(ada.id)).toBeUndefined();
      expect(await apps.listByOwner(ada.id)).toEqual([]);
      expect([await logs.count(mine.id), await logs.count(theirs.id)]).toEqual([0, 1]);
      expect((await usage.rows()).map((row) => row.app)).toEqual([theirs.id]);
      expect((await limits.list()).map((limit) => limit.appId)).toEqual([theirs.appId]);
      expect((await exerciseProgress.forUsers([ada.id, bob.id])).map((record) => record.userId)).toEqual([bob.id]);
      // Out of every class; the class and its other learners stay.
      expect((await classMemberships.forClass('c'.repeat(24))).map((m) => m.userId)).toEqual([bob.id]);
      expect([await sessions.find('s-ada', now), await sessions.find('s-bob', now)].map(Boolean)).toEqual([false, true]);
      expect(changes).toBeGreaterThan(0);
      // After the user is gone: every replica drops the sessions it remembers.
      expect(sessionChanges).toBe(1);
      expect((await audit.list(1))[0]).toMatchObject({
        action: 'user.delete',
        actor: CLI,
        targetUserId: ada.id,
        targetEmail: 'ada@example.org',
        detail: `1 app deleted: ${mine.appId}`,
      });
    });

    it("when an identity provider's user is deleted, then a record refuses their tokens issued before now, for 24 hours; a local user leaves none", async () => {
      const ivy = await anExternalUser('ivy@campus.example', 'emp-9');
      const ada = await aUser('ada@example.org');
      await admin.deleteUser(CLI, ivy.id);
      await admin.deleteUser(CLI, ada.id);
      const record = await sessions.find(deletedUserRecordId(`${ISSUER}#emp-9`), now);
      expect(record).toEqual({
        id: deletedUserRecordId(`${ISSUER}#emp-9`),
        userId: ivy.id,
        kind: 'deleted',
        issuedBefore: T0,
        expiresAt: new Date(T0.getTime() + DELETED_USER_MEMORY_MS),
      });
      expect(await sessions.find(deletedUserRecordId(`password:ada@example.org`), now)).toBeUndefined();
      expect(await sessions.find(record!.id, new Date(T0.getTime() + DELETED_USER_MEMORY_MS))).toBeUndefined();
    });

    it('when a deletion fails half-way, then the same request sent again finishes it, and only the finished one is audited', async () => {
      const ada = await aUser('ada@example.org');
      const app = await anApp(ada.id);
      await usage.add([counted(app, '2030-01-10', 5)]);
      await sessions.put({ id: 's-ada', userId: ada.id, expiresAt: new Date(T0.getTime() + 3600_000), kind: 'active' });
      const failOnce = jest.spyOn(sessions, 'deleteForUser').mockRejectedValueOnce(new Error('database went away'));
      await expect(admin.deleteUser(CLI, ada.id)).rejects.toThrow('database went away');
      expect(await users.findById(ada.id)).toBeDefined();
      expect(await apps.listByOwner(ada.id)).toEqual([]);
      expect(await auditTrail()).toEqual([]);

      await expect(admin.deleteUser(CLI, ada.id)).resolves.toEqual({ appIds: [] });
      failOnce.mockRestore();
      expect(await users.findById(ada.id)).toBeUndefined();
      expect(await usage.rows()).toEqual([]);
      expect(await sessions.find('s-ada', now)).toBeUndefined();
      expect(await auditTrail()).toEqual(['user.delete']);
    });

    it('when a deletion failed after the apps went, then the orphan sweep takes what they left', async () => {
      const ada = await aUser('ada@example.org');
      const app = await anApp(ada.id);
      await logs.append([logged(app, now)]);
      await limits.put({ appId: app.appId, exempt: true, perSecond: 0, burst: 0, setAt: now, setBy: CLI });
      jest.spyOn(logs, 'deleteForApps').mockRejectedValueOnce(new Error('database went away'));
      await expect(admin.deleteUser(CLI, ada.id)).rejects.toThrow('database went away');
      await usage.add([counted(app, '2030-01-10', 1)]); // a flush that resolved the app just before it went
      await new AppLeftovers({ apps, logs, usage, limits }).removeOrphans();
      expect(await usage.rows()).toEqual([]);
      expect(await limits.list()).toEqual([]);
    });
  });

  describe('purge', () => {
    it('when purging, then everyone created before the moment goes but operators; a dry run first says the same and changes nothing, unaudited', async () => {
      const old = new Date('2030-01-01T08:00:00Z');
      const learner = await aUser('ada@example.org', { createdAt: old });
      const byEmail = await aUser('ops@example.org', { createdAt: old });
      const byGroup = await anExternalUser('grace@campus.example', 'emp-1', { createdAt: old, operator: true });
      // The provider did not vouch for this email (email_verified), so the configured list does not spare them.
      const unverified = await anExternalUser('ops@example.org', 'emp-2', { createdAt: old });
      const newcomer = await aUser('new@example.org', { createdAt: new Date('2030-01-05T00:00:00Z') });
      const app = await anApp(learner.id);
      await usage.add([counted(app, '2030-01-01', 3), counted(app, '2030-01-02', 4)]);
      const newcomersApp = await anApp(newcomer.id);
      await usage.add([counted(newcomersApp, '2030-01-01', 1), counted(newcomersApp, '2030-01-02', 1), counted(newcomersApp, '2030-01-06', 1)]);
      await logs.append([logged(newcomersApp, new Date('2030-01-01T23:00:00Z')), logged(newcomersApp, new Date('2030-01-02T01:00:00Z'))]);

      const dry = await admin.purge(CLI, '2030-01-02', true);
      expect(dry).toEqual({ users: 2, apps: 1, usageRows: 2, appIds: [app.appId] });
      expect(await users.count()).toBe(5);
      expect((await usage.rows()).length).toBe(5);
      expect(await auditTrail()).toEqual([]);

      const done = await admin.purge(CLI, '2030-01-02', false);
      expect(done).toEqual(dry);
      const left = (await users.list({ limit: 10 })).map((user) => user.id);
      expect(left.sort()).toEqual([byEmail.id, byGroup.id, newcomer.id].sort());
      expect(left).not.toContain(unverified.id);
      expect((await usage.rows()).map((row) => `${row.app === newcomersApp.id ? 'newcomer' : 'learner'} ${row.day}`).sort()).toEqual([
        'newcomer 2030-01-02',
        'newcomer 2030-01-06',
      ]);
      expect(await logs.count(newcomersApp.id)).toBe(1);
      expect((await audit.list(1))[0]).toMatchObject({
        action: 'purge',
        targetUserId: '',
        detail: 'before 2030-01-02T00:00:00.000Z: 2 users, 1 app, 2 usage rows, 1 log entry deleted (operators spared)',
      });
    });

    it('when before is not a date or an RFC 3339 date-time, then invalid_before naming both forms', async () => {
      for (const before of ['', 'yesterday', '2030-02-30', '1893456000']) {
        expect(await refusalOf(admin.purge(CLI, before, true))).toEqual({
          status: INVALID_ARGUMENT,
          code: 'invalid_before',
          message: 'before must be a date (2030-01-31) or an RFC 3339 date-time (2030-01-31T17:00:00Z).',
        });
      }
    });
  });

  describe('the user list', () => {
    it('when listed, then oldest first with app count, request count and last activity (sign-up, sign-in or a request, the latest)', async () => {
      const ada = await aUser('ada@example.org', { createdAt: new Date('2030-01-01T00:00:00Z'), lastSeenAt: new Date('2030-01-03T00:00:00Z') });
      const bob = await aUser('bob@example.org', { createdAt: new Date('2030-01-02T00:00:00Z') });
      const cat = await aUser('cat@example.org', { createdAt: new Date('2030-01-02T00:00:00Z'), lastSeenAt: new Date('2030-01-02T01:00:00Z') });
      const [a1, a2] = [await anApp(ada.id), await anApp(ada.id)];
      await usage.add([counted(a1, '2030-01-04', 3, { lastAt: new Date('2030-01-04T10:00:00Z') }), counted(a2, '2030-01-02', 4)]);
      const { users: listed, total, nextPageToken } = await admin.listUsers({ pageSize: 0, pageToken: '', emailContains: '' });
      expect({ total, nextPageToken }).toEqual({ total: 3, nextPageToken: '' });
      expect(listed.map((u) => [u.user.email, u.appCount, u.requestCount, u.lastActiveAt.toISOString()])).toEqual([
        ['ada@example.org', 2, 7, '2030-01-04T10:00:00.000Z'],
        ...[bob, cat].sort((x, y) => (x.id < y.id ? -1 : 1)).map((u) => [u.email, 0, 0, u === cat ? '2030-01-02T01:00:00.000Z' : '2030-01-02T00:00:00.000Z']),
      ]);
    });

    it('when paged, then each page follows the last, a token works only for the list and filter that issued it, and the size is bounded', async () => {
      for (let i = 0; i < 5; i++) {
        now = new Date(T0.getTime() + i * 1000);
        await aUser(`user-${i}@example.org`);
      }
      const first = await admin.listUsers({ pageSize: 2, pageToken: '', emailContains: 'USER-' });
      const second = await admin.listUsers({ pageSize: 2, pageToken: first.nextPageToken, emailContains: 'user-' });
      const third = await admin.listUsers({ pageSize: 2, pageToken: second.nextPageToken, emailContains: 'user-' });
      expect([first, second, third].map((page) => page.users.map((u) => u.user.email.slice(0, 6)))).toEqual([
        ['user-0', 'user-1'],
        ['user-2', 'user-3'],
        ['user-4'],
      ]);
      expect(third.nextPageToken).toBe('');
      expect((await refusalOf(admin.listUsers({ pageSize: 2, pageToken: first.nextPageToken, emailContains: 'example' }))).code).toBe('invalid_page_token');
      expect((await refusalOf(admin.listAudit({ pageSize: 2, pageToken: first.nextPageToken }))).code).toBe('invalid_page_token');
      expect((await refusalOf(admin.listUsers({ pageSize: -1, pageToken: '', emailContains: '' }))).code).toBe('invalid_page_size');
      expect((await admin.listUsers({ pageSize: 10_000, pageToken: '', emailContains: '' })).users).toHaveLength(5);
    });

    it('when filtered by part of an email, then it is matched literally, in any case', async () => {
      await aUser('a.b@example.org');
      await aUser('axb@example.org');
      expect((await admin.listUsers({ pageSize: 0, pageToken: '', emailContains: ' A.B ' })).users.map((u) => u.user.email)).toEqual(['a.b@example.org']);
      expect((await admin.listUsers({ pageSize: 0, pageToken: '', emailContains: '.*' })).total).toBe(0);
    });

    it('when one user is read, then with their apps, and operators are shown as operators', async () => {
      const ops = await aUser('ops@example.org');
      const app = await anApp(ops.id);
      const { overview, apps: owned } = await admin.getUser(ops.id);
      expect(overview).toMatchObject({ operator: true, disabled: false, appCount: 1 });
      expect(owned.map((a) => a.appId)).toEqual([app.appId]);
    });
  });

  describe('usage export', () => {
    it('when exported, then one row per day, app, style and family, sorted by day, email, App ID, style and family, with email and app name; audited', async () => {
      const zed = await aUser('zed@example.org');
      const amy = await aUser('amy@example.org');
      const [z, a] = [await anApp(zed.id, 'Zed app'), await anApp(amy.id, 'Amy app')];
      await usage.add([
        counted(z, '2030-01-02', 1),
        counted(a, '2030-01-03', 2),
        counted(z, '2030-01-03', 3, { authStyle: 'basic' }),
        counted(a, '2030-01-02', 4, { routeFamily: 'oauth2', authStyle: 'basic' }),
        counted(a, '2030-01-02', 5, { routeFamily: 'data', authStyle: 'basic' }),
        counted(a, '2030-01-05', 6),
      ]);
      const rows = await admin.usage(CLI, '2030-01-02', '2030-01-03');
      expect(rows.map((row) => [row.day, row.email, row.appName, row.authStyle, row.routeFamily, row.requests])).toEqual([
        ['2030-01-02', 'amy@example.org', 'Amy app', 'basic', 'data', 5],
        ['2030-01-02', 'amy@example.org', 'Amy app', 'basic', 'oauth2', 4],
        ['2030-01-02', 'zed@example.org', 'Zed app', 'api_key_header', 'data', 1],
        ['2030-01-03', 'amy@example.org', 'Amy app', 'api_key_header', 'data', 2],
        ['2030-01-03', 'zed@example.org', 'Zed app', 'basic', 'data', 3],
      ]);
      expect(rows[0]).toMatchObject({ userId: amy.id, app: a.id, appId: a.appId });
      expect((await audit.list(1))[0]).toMatchObject({ action: 'usage.export', actor: CLI, detail: '2030-01-02 to 2030-01-03: 5 rows' });
      expect(await admin.usage(CLI, '', '')).toHaveLength(6);
    });

    it('when a day is not YYYY-MM-DD and real, or from is after to, then invalid_day, unaudited', async () => {
      for (const [from, to] of [
        ['2030-1-2', ''],
        ['', '2030-02-30'],
        ['2030-01-03', '2030-01-02'],
      ]) {
        expect(await refusalOf(admin.usage(CLI, from!, to!))).toMatchObject({ status: INVALID_ARGUMENT, code: 'invalid_day' });
      }
      expect(await auditTrail()).toEqual([]);
    });
  });

  describe('the audit log', () => {
    it('when read, then newest first, a page at a time', async () => {
      const ada = await aUser('ada@example.org');
      for (let i = 0; i < 3; i++) {
        now = new Date(T0.getTime() + i * 1000);
        await admin.setDisabled(CLI, ada.id, i % 2 === 0);
      }
      const first = await admin.listAudit({ pageSize: 2, pageToken: '' });
      const second = await admin.listAudit({ pageSize: 2, pageToken: first.nextPageToken });
      expect([...first.entries, ...second.entries].map((entry) => [entry.action, entry.at.getTime() - T0.getTime()])).toEqual([
        ['user.disable', 2000],
        ['user.enable', 1000],
        ['user.disable', 0],
      ]);
      expect(second.nextPageToken).toBe('');
    });
  });

  describe('app limits', () => {
    it("when an app's limit is set, replaced and cleared, then the list follows and each is audited with the app's owner", async () => {
      const ada = await aUser('ada@example.org');
      const app = await anApp(ada.id);
      await expect(admin.setAppLimit(CLI, app.appId, { exempt: false, perSecond: 2.5, burst: 5 })).resolves.toEqual({
        appId: app.appId,
        exempt: false,
        perSecond: 2.5,
        burst: 5,
        setAt: T0,
        setBy: CLI,
      });
      await admin.setAppLimit(CLI, app.appId, { exempt: true, perSecond: 7, burst: 9 });
      expect(await admin.listAppLimits()).toEqual([{ appId: app.appId, exempt: true, perSecond: 0, burst: 0, setAt: T0, setBy: CLI }]);
      await admin.clearAppLimit(CLI, app.appId);
      expect(await admin.listAppLimits()).toEqual([]);
      expect((await audit.list(3)).map((entry) => [entry.action, entry.targetEmail, entry.detail])).toEqual([
        ['app_limit.clear', 'ada@example.org', `${app.appId}: back to the default limit`],
        ['app_limit.set', 'ada@example.org', `${app.appId}: exempt from fair share`],
        ['app_limit.set', 'ada@example.org', `${app.appId}: 2.5/s, burst 5`],
      ]);
      expect(await refusalOf(admin.clearAppLimit(CLI, app.appId))).toMatchObject({ status: NOT_FOUND, code: 'app_limit_not_found' });
    });

    it('when the limit is not a positive rate with a whole burst of at least 1, or the App ID names no app, then refused in words', async () => {
      const app = await anApp((await aUser('ada@example.org')).id);
      for (const limit of [
        { perSecond: 0, burst: 5 },
        { perSecond: -1, burst: 5 },
        { perSecond: Number.NaN, burst: 5 },
        { perSecond: 5, burst: 0 },
        { perSecond: 5, burst: 1.5 },
      ]) {
        expect(await refusalOf(admin.setAppLimit(CLI, app.appId, { exempt: false, ...limit }))).toMatchObject({
          status: INVALID_ARGUMENT,
          code: 'invalid_limit',
        });
      }
      for (const appId of [newAppId(), 'not-an-app-id']) {
        expect(await refusalOf(admin.setAppLimit(CLI, appId, { exempt: true, perSecond: 0, burst: 0 }))).toEqual({
          status: NOT_FOUND,
          code: 'app_not_found',
          message: 'No app has this App ID.',
        });
      }
      expect(await admin.listAppLimits()).toEqual([]);
      expect(await auditTrail()).toEqual([]);
    });
  });
});
