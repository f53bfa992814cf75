import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { AppService } from '../../src/domain/apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { newAppId, newResourceId } from '../../src/domain/credentials';
import { LIMITS } from '../../src/domain/limits';
import { PageTokens } from '../../src/domain/page-tokens';
import { RecordedRequests } from '../../src/domain/recorded-requests';
import { RequestLogService, type RequestLogInput } from '../../src/domain/request-logs';
import { UsageService, type UsageInput } from '../../src/domain/usage';
import type { AppStore } from '../../src/stores/app-store';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

/*
 * A gateway's flush (RecordRequests) costs identity's store what it reads and
 * writes per flush, whatever the requests in it: the apps it names are read
 * once for its log entries and its usage counts together.
 */
describe('a recorded batch of requests', () => {
  const now = new Date('2030-01-10T10:00:00Z');
  let appStore: MemoryAppStore;
  let logStore: MemoryRequestLogStore;
  let usageStore: MemoryUsageStore;
  let apps: AppService;
  let recorded: RecordedRequests;
  /** Calls of each AppStore method made while recording. */
  let reads: Record<string, number>;

  beforeEach(() => {
    appStore = new MemoryAppStore();
    logStore = new MemoryRequestLogStore();
    usageStore = new MemoryUsageStore();
    apps = new AppService({
      apps: appStore,
      logs: logStore,
      usage: usageStore,
      limits: new MemoryAppLimitStore(),
      crypto: new CredentialCrypto(randomBytes(32)),
      onChange: () => undefined,
    });
    reads = {};
    const counted = new Proxy(appStore, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          reads[String(property)] = (reads[String(property)] ?? 0) + 1;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as AppStore;
    const logs = new RequestLogService(logStore, counted, 1000, new PageTokens(randomBytes(32)), () => now);
    recorded = new RecordedRequests(counted, logs, new UsageService(usageStore, counted));
  });

  const entry = (named: { app?: string; appId?: string }, requestId: string): RequestLogInput => ({
    app: named.app ?? '',
    appId: named.appId ?? '',
    time: now.toISOString(),
    method: 'GET',
    path: '/playground/data/hr/employees',
    status: 200,
    authStyle: 'api_key_header',
    latencyMs: 2,
    requestId,
    failure: '',
  });
  const count = (named: { app?: string; appId?: string }, requests: number): UsageInput => ({
    app: named.app ?? '',
    appId: named.appId ?? '',
    day: '2030-01-10',
    authStyle: 'api_key_header',
    routeFamily: 'data',
    requests,
    lastAt: now.toISOString(),
  });

  it('when a flush names its apps by internal id only, then the apps are read once for its entries and its counts', async () => {
    const { app: a } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const { app: b } = await apps.create('owner-b', { name: 'b', description: '', redirectUris: [] });
    reads = {};
    const kept = await recorded.record(
      [entry({ app: a.id }, 'r1'), entry({ app: b.id }, 'r2'), entry({ app: a.id }, 'r3')],
      [count({ app: a.id }, 2), count({ app: b.id }, 1)],
    );
    expect(kept).toEqual({ entries: 3, usage: 2 });
    // Read once for entries and counts; once more after the insert, for an app deleted meanwhile (request-logs.ts).
    expect(reads).toEqual({ findByIds: 1, existingIds: 1 });
    expect((await logStore.list(a.id, 10)).map((e) => e.requestId).sort()).toEqual(['r1', 'r3']);
    expect((await usageStore.rows()).map((row) => [row.appId, row.userId, row.requests]).sort()).toEqual(
      [
        [a.appId, 'owner-a', 2],
        [b.appId, 'owner-b', 1],
      ].sort(),
    );
  });

  it('when some name their app by App ID, then one more read resolves them all, for the entries and the counts alike', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    reads = {};
    const kept = await recorded.record([entry({ appId: app.appId }, 'r1'), entry({ app: app.id }, 'r2')], [count({ appId: app.appId }, 4)]);
    expect(kept).toEqual({ entries: 2, usage: 1 });
    expect(reads).toEqual({ idsByAppId: 1, findByIds: 1, existingIds: 1 });
    expect((await usageStore.rows())[0]).toMatchObject({ app: app.id, appId: app.appId, requests: 4 });
  });

  it('when entries and counts name apps that do not exist, then they are dropped and the rest kept', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const kept = await recorded.record(
      [entry({ app: newResourceId() }, 'gone'), entry({ appId: newAppId() }, 'unknown'), entry({ app: app.id }, 'kept')],
      [count({ app: newResourceId() }, 9), count({ appId: newAppId() }, 9), count({ app: app.id }, 1)],
    );
    expect(kept).toEqual({ entries: 1, usage: 1 });
    expect((await logStore.list(app.id, 10)).map((e) => e.requestId)).toEqual(['kept']);
    expect((await usageStore.rows()).map((row) => row.requests)).toEqual([1]);
  });

  it('when more flushes arrive than are stored and may wait, then the extra are refused at once (record_busy), one whose caller gave up while waiting is dropped, and none of theirs is stored', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    // The store answers reads of apps only when let: the first two flushes are being stored, the next three wait.
    let letReads!: () => void;
    const reading = new Promise<void>((resolve) => (letReads = resolve));
    const slow = new Proxy(appStore, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'findByIds' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await reading;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as AppStore;
    const bounded = new RecordedRequests(
      slow,
      new RequestLogService(logStore, slow, 1000, new PageTokens(randomBytes(32)), () => now),
      new UsageService(usageStore, slow),
      { concurrency: 2, maxWaiting: 3 },
    );
    const flushes = [1, 2, 3, 4].map((n) => bounded.record([entry({ app: app.id }, `admitted-${n}`)], [count({ app: app.id }, 1)]));
    // A fifth waits, and its caller gives up meanwhile: dropped when its turn comes, nothing of it stored.
    const gaveUp = new AbortController();
    const abandoned = refusalOf(bounded.record([entry({ app: app.id }, 'abandoned')], [count({ app: app.id }, 1)], gaveUp.signal));
    gaveUp.abort();
    const refused = await refusalOf(bounded.record([entry({ app: app.id }, 'refused')], [count({ app: app.id }, 1)]));
    expect({ code: refused.code, status: refused.status, retryAfterSeconds: refused.retryAfterSeconds }).toEqual({
      code: 'record_busy',
      status: 8, // RESOURCE_EXHAUSTED
      retryAfterSeconds: 1,
    });
    letReads();
    expect(await Promise.all(flushes)).toEqual(Array(4).fill({ entries: 1, usage: 1 }));
    expect((await abandoned).code).toBe('record_abandoned');
    expect((await logStore.list(app.id, 10)).map((e) => e.requestId).sort()).toEqual(['admitted-1', 'admitted-2', 'admitted-3', 'admitted-4']);
    expect((await usageStore.rows()).map((row) => row.requests)).toEqual([4]);
    // Turns are given back: the next flush is taken.
    expect(await bounded.record([entry({ app: app.id }, 'later')], [])).toEqual({ entries: 1, usage: 0 });
  });

  it('when a flush is empty, then the store is not asked anything', async () => {
    expect(await recorded.record([], [])).toEqual({ entries: 0, usage: 0 });
    expect(reads).toEqual({});
  });

  it('when either part is larger than a call may carry, then batch_too_large and nothing is stored', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const tooMany = LIMITS.recordBatchMax + 1;
    expect(
      (
        await refusalOf(
          recorded.record(
            Array.from({ length: tooMany }, (_, i) => entry({ app: app.id }, `r${i}`)),
            [count({ app: app.id }, 1)],
          ),
        )
      ).code,
    ).toBe('batch_too_large');
    expect(
      (
        await refusalOf(
          recorded.record(
            [entry({ app: app.id }, 'r')],
            Array.from({ length: tooMany }, () => count({ app: app.id }, 1)),
          ),
        )
      ).code,
    ).toBe('batch_too_large');
    expect(await logStore.count(app.id)).toBe(0);
    expect(await usageStore.rows()).toEqual([]);
  });
});
