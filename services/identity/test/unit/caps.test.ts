import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { AppService } from '../../src/domain/apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { LIMITS } from '../../src/domain/limits';
import { PageTokens } from '../../src/domain/page-tokens';
import { newLogId, RequestLogService, type RequestLogInput } from '../../src/domain/request-logs';
import { logEntries } from './log-entries';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

/* The caps as the embedded default (memory stores, one identity process) holds them under concurrent calls. */
const appService = (appStore: MemoryAppStore, logStore = new MemoryRequestLogStore()) =>
  new AppService({
    apps: appStore,
    logs: logStore,
    usage: new MemoryUsageStore(),
    limits: new MemoryAppLimitStore(),
    crypto: new CredentialCrypto(randomBytes(32)),
    onChange: () => undefined,
  });

describe('apps per account', () => {
  it('when 150 apps are created at once for one account, then exactly the cap are stored and the rest refused with too_many_apps', async () => {
    const appStore = new MemoryAppStore();
    const apps = appService(appStore);
    const results = await Promise.allSettled(Array.from({ length: 150 }, () => apps.create('owner-a', { name: 'a', description: '', redirectUris: [] })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(LIMITS.appsPerOwnerMax);
    const refusals = await Promise.all(results.filter((r) => r.status === 'rejected').map((r) => refusalOf(Promise.reject(r.reason))));
    expect(refusals).toHaveLength(150 - LIMITS.appsPerOwnerMax);
    expect(new Set(refusals.map((r) => `${r.status} ${r.code}`))).toEqual(new Set(['8 too_many_apps']));
    await expect(appStore.countByOwner('owner-a')).resolves.toBe(LIMITS.appsPerOwnerMax);
  });
});

describe('request-log entries per app', () => {
  const start = new Date('2030-01-01T00:00:00Z');
  let now: Date;
  let logStore: MemoryRequestLogStore;
  let service: RequestLogService;
  let appId: string;
  const entries = (count: number): RequestLogInput[] => logEntries(appId, count, now, (i) => `r${now.getTime()}-${i}`);

  beforeEach(async () => {
    jest.useFakeTimers({ now: start });
    now = start;
    const appStore = new MemoryAppStore();
    logStore = new MemoryRequestLogStore();
    service = new RequestLogService(logStore, appStore, 8, new PageTokens(randomBytes(32)), () => now, 5_000);
    appId = (await appService(appStore, logStore).create('owner-a', { name: 'a', description: '', redirectUris: [] })).app.id;
  });
  afterEach(() => jest.useRealTimers());

  it('when a trim is due by count but held back by its interval, then it is made when the interval ends, though nothing more arrives', async () => {
    await service.record(entries(2)); // a quarter of 8: trimmed at once (nothing to trim yet)
    await service.record(entries(8)); // due again by count, held back by the interval
    expect(await logStore.count(appId)).toBe(10);
    now = new Date(start.getTime() + 4_999);
    await jest.advanceTimersByTimeAsync(4_999);
    expect(await logStore.count(appId)).toBe(10);
    now = new Date(start.getTime() + 5_000);
    await jest.advanceTimersByTimeAsync(1);
    await service.trimsSettled();
    expect(await logStore.count(appId)).toBe(8);
  });

  it('when the log holds more than its cap (a trim not yet made, or forgotten by a restart), then its owner still sees the newest cap, and the excess is trimmed', async () => {
    // Written past the service, as a replica that restarted before its trim left them.
    await logStore.append(
      Array.from({ length: 12 }, (_, i) => {
        const time = new Date(start.getTime() - 12_000 + i * 1000);
        return { id: newLogId(time), app: appId, time, method: 'GET', path: '/', status: 200, authStyle: '', latencyMs: 1, requestId: `r${i}`, failure: '' };
      }),
    );
    const page = await service.list('owner-a', appId, 50, '');
    expect(page.total).toBe(8);
    expect(page.entries.map((e) => e.requestId)).toEqual(['r11', 'r10', 'r9', 'r8', 'r7', 'r6', 'r5', 'r4']);
    expect(page.nextPageToken).toBe('');
    expect(await logStore.count(appId)).toBe(8);
  });
});
