import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { AppService } from '../../src/domain/apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { newAppId, newResourceId } from '../../src/domain/credentials';
import { LIMITS } from '../../src/domain/limits';
import { lastAtWithin, UsageService, type UsageInput } from '../../src/domain/usage';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

describe('usage counts', () => {
  let store: MemoryUsageStore;
  let service: UsageService;
  let apps: AppService;

  beforeEach(() => {
    const appStore = new MemoryAppStore();
    store = new MemoryUsageStore();
    service = new UsageService(store, appStore);
    apps = new AppService({
      apps: appStore,
      logs: new MemoryRequestLogStore(),
      usage: store,
      limits: new MemoryAppLimitStore(),
      crypto: new CredentialCrypto(randomBytes(32)),
      onChange: () => undefined,
    });
  });

  const count = (overrides: Partial<UsageInput>): UsageInput => ({
    app: '',
    appId: '',
    day: '2030-01-10',
    authStyle: 'api_key_header',
    routeFamily: 'data',
    requests: 1,
    lastAt: '2030-01-10T10:00:00.000Z',
    ...overrides,
  });

  it('when counts name an app by internal id or by App ID, then they add up in its row, with its owner and the latest time', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const kept = await service.record([
      count({ app: app.id, requests: 3 }),
      count({ appId: app.appId, requests: 2, lastAt: '2030-01-10T11:00:00.000Z' }),
      count({ app: app.id, requests: 4, authStyle: 'basic', routeFamily: 'auth' }),
    ]);
    expect(kept).toBe(3);
    await service.record([count({ app: app.id, requests: 5, lastAt: '2030-01-10T09:00:00.000Z' })]);
    expect((await store.rows()).sort((x, y) => y.requests - x.requests)).toEqual([
      {
        day: '2030-01-10',
        app: app.id,
        appId: app.appId,
        userId: 'owner-a',
        authStyle: 'api_key_header',
        routeFamily: 'data',
        requests: 10,
        lastAt: new Date('2030-01-10T11:00:00.000Z'),
      },
      {
        day: '2030-01-10',
        app: app.id,
        appId: app.appId,
        userId: 'owner-a',
        authStyle: 'basic',
        routeFamily: 'auth',
        requests: 4,
        lastAt: new Date('2030-01-10T10:00:00.000Z'),
      },
    ]);
  });

  it('when a count is malformed or names no app, then it is dropped and the rest are kept', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const kept = await service.record([
      count({ app: app.id, day: '2030-02-30' }),
      count({ app: app.id, day: '10/01/2030' }),
      count({ app: app.id, requests: 0 }),
      count({ app: app.id, requests: -4 }),
      count({ app: app.id, requests: 1.5 }),
      count({ app: app.id, requests: 2_000_000_000 }),
      count({ app: app.id, routeFamily: 'Data Family' }),
      count({ app: app.id, routeFamily: '' }),
      count({ app: app.id, authStyle: 'x'.repeat(33) }),
      count({ app: newResourceId() }),
      count({ appId: newAppId() }),
      count({ app: 'not-an-id' }),
      count({ app: app.id, requests: 7 }),
    ]);
    expect(kept).toBe(1);
    expect((await store.rows()).map((row) => row.requests)).toEqual([7]);
  });

  it('when a batch is larger than a call may carry, then batch_too_large and nothing is counted', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const batch = Array.from({ length: LIMITS.recordBatchMax + 1 }, () => count({ app: app.id }));
    expect((await refusalOf(service.record(batch))).code).toBe('batch_too_large');
    expect(await store.rows()).toEqual([]);
  });

  it("a count's latest time is kept within its day; not a time at all, the day's start", () => {
    expect(lastAtWithin('2030-01-10', '2030-01-10T10:00:00Z').toISOString()).toBe('2030-01-10T10:00:00.000Z');
    expect(lastAtWithin('2030-01-10', '2099-01-01T00:00:00Z').toISOString()).toBe('2030-01-10T23:59:59.999Z');
    expect(lastAtWithin('2030-01-10', '2000-01-01T00:00:00Z').toISOString()).toBe('2030-01-10T00:00:00.000Z');
    expect(lastAtWithin('2030-01-10', 'soon').toISOString()).toBe('2030-01-10T00:00:00.000Z');
  });
});
