import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { AppService } from '../../src/domain/apps';
import { BatchApps } from '../../src/domain/batch-apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { PageTokens } from '../../src/domain/page-tokens';
import { newestPerApp, RequestLogService, sanitizeEntry, type RequestLogInput } from '../../src/domain/request-logs';
import { logEntries } from './log-entries';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

const refusalCode = async (promise: Promise<unknown>) => (await refusalOf(promise)).code;

describe('request logs', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  let appStore: MemoryAppStore;
  let logStore: MemoryRequestLogStore;
  let service: RequestLogService;
  let apps: AppService;
  const entry = (app: string, overrides: Partial<RequestLogInput> = {}): RequestLogInput => ({
    app,
    time: now.toISOString(),
    method: 'GET',
    path: '/playground/data/hr/employees',
    status: 200,
    authStyle: 'api_key',
    latencyMs: 3.25,
    requestId: 'req-1',
    appId: '',
    failure: '',
    ...overrides,
  });

  beforeEach(() => {
    appStore = new MemoryAppStore();
    logStore = new MemoryRequestLogStore();
    service = new RequestLogService(logStore, appStore, 5, new PageTokens(randomBytes(32)), () => now);
    apps = new AppService({
      apps: appStore,
      logs: logStore,
      usage: new MemoryUsageStore(),
      limits: new MemoryAppLimitStore(),
      crypto: new CredentialCrypto(randomBytes(32)),
      onChange: () => undefined,
    });
  });

  it('when an app is deleted after a batch read it and before its entries went in, then they are taken back at once', async () => {
    const { app } = await apps.create('owner-a', { name: 'A', description: '', redirectUris: [] });
    const read = await BatchApps.resolve(appStore, [entry(app.id)]);
    // The deletion, on any replica, between the batch's read and its insert: the app and its log go first.
    await appStore.deleteAllOwned('owner-a');
    await logStore.deleteForApps([app.id]);
    expect(await service.record([entry(app.id)], read)).toBe(1);
    expect(await logStore.count(app.id)).toBe(0);
  });

  describe('sanitizeEntry', () => {
    it('when the path carries a query string, then only the path is kept (an api_key never reaches the log)', () => {
      const clean = sanitizeEntry(entry('0123456789abcdef01234567', { path: '/playground/auth/api-key-query?api_key=ak_secret' }), now);
      expect(clean?.path).toBe('/playground/auth/api-key-query');
      expect(JSON.stringify(clean)).not.toContain('ak_secret');
    });

    it('when fields are odd, then they are bounded rather than trusted', () => {
      const clean = sanitizeEntry(
        entry('0123456789abcdef01234567', { method: 'get', status: 42, authStyle: 'Bearer xyz', latencyMs: -1, requestId: 'a b', time: 'yesterday' }),
        now,
      );
      expect(clean).toMatchObject({ method: 'GET', status: 0, authStyle: '', latencyMs: 0, requestId: '', time: now });
      expect(sanitizeEntry(entry('not-an-app-id'), now)).toBeUndefined();
    });

    it('when the time is far in the future, then the receive time is used', () => {
      expect(sanitizeEntry(entry('0123456789abcdef01234567', { time: '2031-01-01T00:00:00Z' }), now)?.time).toEqual(now);
    });
  });

  it('when entries arrive for an unknown app, then they are dropped; for a known one, kept', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    expect(await service.record([entry(app.id), entry('0123456789abcdef01234567')])).toBe(1);
    expect(await logStore.appIds()).toEqual([app.id]);
  });

  it('when an entry names its app by App ID (a refused OAuth client), then it lands in that app’s log with the rule that failed', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const refused = entry('', { appId: app.appId, status: 401, authStyle: 'oauth2', failure: 'invalid_client: The client secret is wrong.\u0007' });
    const unknown = entry('', { appId: 'app_' + 'x'.repeat(22) });
    expect(await service.record([refused, unknown])).toBe(1);
    const [logged] = (await service.list('owner-a', app.id, 10, '')).entries;
    expect(logged).toMatchObject({ app: app.id, status: 401, authStyle: 'oauth2', failure: 'invalid_client: The client secret is wrong. ' });
  });

  it('when more entries than the cap arrive, then only the newest cap remain', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const batch = Array.from({ length: 8 }, (_, i) => entry(app.id, { time: new Date(now.getTime() - 8000 + i * 1000).toISOString(), requestId: `r${i}` }));
    await service.record(batch);
    const page = await service.list('owner-a', app.id, 50, '');
    expect(page.total).toBe(5);
    expect(page.entries.map((e) => e.requestId)).toEqual(['r7', 'r6', 'r5', 'r4', 'r3']);
  });

  it('when listed in pages, then newest first with a next token until the end', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    await service.record([0, 1, 2, 3, 4].map((i) => entry(app.id, { time: new Date(now.getTime() - 5000 + i * 1000).toISOString(), requestId: `r${i}` })));
    const first = await service.list('owner-a', app.id, 2, '');
    expect(first.entries.map((e) => e.requestId)).toEqual(['r4', 'r3']);
    const second = await service.list('owner-a', app.id, 2, first.nextPageToken);
    expect(second.entries.map((e) => e.requestId)).toEqual(['r2', 'r1']);
    const third = await service.list('owner-a', app.id, 2, second.nextPageToken);
    expect(third.entries.map((e) => e.requestId)).toEqual(['r0']);
    expect(third.nextPageToken).toBe('');
  });

  it("when a page token is made up, altered or another app's, then invalid_page_token", async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const { app: other } = await apps.create('owner-a', { name: 'b', description: '', redirectUris: [] });
    await service.record([0, 1, 2].map((i) => entry(app.id, { time: new Date(now.getTime() - 5000 + i * 1000).toISOString() })));
    await service.record([0, 1, 2].map((i) => entry(other.id, { time: new Date(now.getTime() - 5000 + i * 1000).toISOString() })));
    const { nextPageToken } = await service.list('owner-a', app.id, 1, '');
    const unsigned = Buffer.from(JSON.stringify({ t: now.getTime(), i: 'f'.repeat(24) })).toString('base64url');
    const flipped = nextPageToken[5] === 'A' ? 'B' : 'A';
    for (const token of [unsigned, 'garbage', `${nextPageToken.slice(0, 5)}${flipped}${nextPageToken.slice(6)}`, `${nextPageToken}A`]) {
      expect(await refusalCode(service.list('owner-a', app.id, 1, token))).toBe('invalid_page_token');
    }
    expect(await refusalCode(service.list('owner-a', other.id, 1, nextPageToken))).toBe('invalid_page_token');
    await expect(service.list('owner-a', app.id, 1, nextPageToken)).resolves.toMatchObject({ entries: [expect.anything()] });
  });

  it("when the app id is malformed, unknown or not the caller's, then the same answer every time", async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const ids = ['not-an-id', 'ABCDEF0123456789abcdef01', '0123456789abcdef01234567', app.id];
    for (const [size, token] of [
      [10, ''],
      [-1, ''],
      [10, 'forged'],
    ] as const) {
      const answers = await Promise.all(ids.map((id) => refusalOf(service.list('owner-b', id, size, token))));
      for (const answer of answers) expect(answer).toEqual(answers[0]);
    }
    expect(await refusalOf(service.list('owner-b', 'not-an-id', 10, ''))).toEqual({
      status: 5,
      code: 'app_not_found',
      message: 'No app with this id was found.',
    });
  });

  it("when another owner asks for an app's logs, then app_not_found", async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    expect(await refusalCode(service.list('owner-b', app.id, 10, ''))).toBe('app_not_found');
    expect(await refusalCode(service.list('owner-a', app.id, -1, ''))).toBe('invalid_page_size');
  });

  it('when a batch is too large, then it is refused whole', async () => {
    expect(await refusalCode(service.record(Array.from({ length: 1001 }, () => entry('0123456789abcdef01234567'))))).toBe('batch_too_large');
  });

  it('when logs outlive their app, then the orphan cleanup removes them', async () => {
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    await logStore.append([
      {
        id: 'f'.repeat(24),
        app: '0123456789abcdef01234567',
        time: now,
        method: 'GET',
        path: '/',
        status: 200,
        authStyle: '',
        latencyMs: 0,
        requestId: '',
        failure: '',
      },
    ]);
    await service.record([entry(app.id)]);
    expect(await service.removeOrphans()).toBe(1);
    expect(await logStore.appIds()).toEqual([app.id]);
  });
});

describe('trimming to the cap', () => {
  it('when entries keep arriving, then an app is trimmed once a quarter of its cap has come since its last trim, at most once per interval', async () => {
    const appStore = new MemoryAppStore();
    const logStore = new MemoryRequestLogStore();
    let now = new Date('2030-01-01T00:00:00Z');
    const service = new RequestLogService(logStore, appStore, 8, new PageTokens(randomBytes(32)), () => now, 5_000);
    const apps = new AppService({
      apps: appStore,
      logs: logStore,
      usage: new MemoryUsageStore(),
      limits: new MemoryAppLimitStore(),
      crypto: new CredentialCrypto(randomBytes(32)),
      onChange: () => undefined,
    });
    const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
    const trims = jest.spyOn(logStore, 'trim');
    const record = (count: number) => service.record(logEntries(app.id, count, now));
    await record(1); // a quarter of 8 is 2: not yet
    expect(trims).not.toHaveBeenCalled();
    await record(1);
    expect(trims).toHaveBeenCalledTimes(1);
    await record(8); // due by count, but within the interval: the log may hold more than its cap for now
    expect(trims).toHaveBeenCalledTimes(1);
    expect(await logStore.count(app.id)).toBe(10);
    now = new Date(now.getTime() + 5_000);
    await record(2);
    expect(trims).toHaveBeenCalledTimes(2);
    await service.trimsSettled();
    expect(await logStore.count(app.id)).toBe(8);
  });

  describe('on a slow store', () => {
    let logStore: MemoryRequestLogStore;
    let service: RequestLogService;
    let apps: AppService;
    let now: Date;
    /** Trims wait for `release` (a store busy elsewhere); each call noted by app. */
    let release: () => void;
    let started: string[];
    beforeEach(() => {
      const appStore = new MemoryAppStore();
      logStore = new MemoryRequestLogStore();
      now = new Date('2030-01-01T00:00:00Z');
      service = new RequestLogService(logStore, appStore, 4, new PageTokens(randomBytes(32)), () => now, 5_000);
      apps = new AppService({
        apps: appStore,
        logs: logStore,
        usage: new MemoryUsageStore(),
        limits: new MemoryAppLimitStore(),
        crypto: new CredentialCrypto(randomBytes(32)),
        onChange: () => undefined,
      });
      started = [];
      const held = new Promise<void>((resolve) => (release = resolve));
      const trim = logStore.trim.bind(logStore);
      jest.spyOn(logStore, 'trim').mockImplementation(async (app, cap) => {
        started.push(app);
        await held;
        return trim(app, cap);
      });
    });
    const record = (app: string, count: number) => service.record(logEntries(app, count, now));

    it('when a trim is slow, then the batch is stored and answered without waiting for it', async () => {
      const { app } = await apps.create('owner-a', { name: 'a', description: '', redirectUris: [] });
      expect(await record(app.id, 3)).toBe(3);
      expect(started).toEqual([app.id]);
      expect(await record(app.id, 3)).toBe(3);
      expect(await logStore.count(app.id)).toBe(6);
      release();
      await service.trimsSettled();
      expect(await logStore.count(app.id)).toBe(4);
    });

    it('when an app is due again while its trim still runs, then no second trim of it starts; beyond the limit, other apps are owed theirs', async () => {
      const created = await Promise.all(['a', 'b', 'c'].map((name) => apps.create('owner-a', { name, description: '', redirectUris: [] })));
      const [a, b, c] = created.map(({ app }) => app.id) as [string, string, string];
      await record(a, 4);
      now = new Date(now.getTime() + 5_000);
      await record(a, 4); // due again by count and by time, but its trim still runs
      await record(b, 4);
      await record(c, 4); // the limit (TRIMS_AT_ONCE, 2) is reached: c is owed
      expect(started).toEqual([a, b]);
      release();
      await service.trimsSettled();
      now = new Date(now.getTime() + 5_000);
      await record(c, 1); // its owed time has come: the next batch's scheduling finds it due
      await new Promise((resolve) => setTimeout(resolve, 10));
      await service.trimsSettled();
      expect(started).toEqual([a, b, c]);
      expect(await logStore.count(c)).toBe(4);
    });
  });
});

describe('the orphan sweep', () => {
  it('when a sweep is slower than its interval, then the next one joins it rather than starting a second', async () => {
    const appStore = new MemoryAppStore();
    const logStore = new MemoryRequestLogStore();
    const service = new RequestLogService(logStore, appStore, 4, new PageTokens(randomBytes(32)));
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const appIds = logStore.appIds.bind(logStore);
    const reads = jest.spyOn(logStore, 'appIds').mockImplementation(async () => {
      await held;
      return appIds();
    });
    const first = service.removeOrphans();
    const second = service.removeOrphans();
    release();
    expect(await Promise.all([first, second])).toEqual([0, 0]);
    expect(reads).toHaveBeenCalledTimes(1);
  });
});

describe('newestPerApp', () => {
  const at = (app: string, ms: number) => ({ app, time: new Date(ms) });

  it('when an app has more entries than its cap, then only its newest are kept, other apps untouched', () => {
    const kept = newestPerApp([at('a', 1), at('a', 5), at('b', 2), at('a', 3), at('a', 4)], 2);
    expect(kept.filter((e) => e.app === 'a').map((e) => e.time.getTime())).toEqual([5, 4]);
    expect(kept.filter((e) => e.app === 'b')).toHaveLength(1);
  });

  it('when every app is within its cap, then everything is kept', () => {
    expect(newestPerApp([at('a', 1), at('b', 2)], 5)).toHaveLength(2);
  });
});
