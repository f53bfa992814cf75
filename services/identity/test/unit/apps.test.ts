import { randomBytes } from 'node:crypto';
import { refusalOf } from '@sandbox/testing';
import { AppService, chosenKinds } from '../../src/domain/apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { LIMITS, PACK_SCOPES } from '../../src/domain/limits';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

const NOT_FOUND = 5;

describe('AppService', () => {
  let store: MemoryAppStore;
  let logs: MemoryRequestLogStore;
  let usage: MemoryUsageStore;
  let limits: MemoryAppLimitStore;
  let apps: AppService;
  let changes: number;
  const crypto = new CredentialCrypto(randomBytes(32));
  const create = (owner = 'owner-a', extra: Partial<Parameters<AppService['create']>[1]> = {}) =>
    apps.create(owner, { name: 'My app', description: '', redirectUris: [], ...extra });

  beforeEach(() => {
    store = new MemoryAppStore();
    logs = new MemoryRequestLogStore();
    usage = new MemoryUsageStore();
    limits = new MemoryAppLimitStore();
    changes = 0;
    apps = new AppService({ apps: store, logs, usage, limits, crypto, onChange: () => changes++ });
  });

  it('when an app is created, then every credential is issued once and only hashes and ciphertext are kept', async () => {
    const { app, issued } = await create('owner-a', { description: 'for practice' });
    expect(issued.appSecret).toMatch(/^as_/);
    expect(issued.apiKey).toMatch(/^ak_/);
    expect(issued.bearerToken).toMatch(/^bt_/);
    expect(app).toMatchObject({ name: 'My app', description: 'for practice', status: 'active', scopes: [...PACK_SCOPES] });
    expect(app.appId).toMatch(/^app_/);
    const stored = JSON.stringify(await store.findOwned('owner-a', app.id));
    for (const value of Object.values(issued)) expect(stored).not.toContain(value!.slice(3));
    expect(app.credentials.apiKey.hint).toBe(issued.apiKey!.slice(-4));
    expect(crypto.decrypt(app.credentials.apiKey.sealed, app.id)).toBe(issued.apiKey);
  });

  describe('remembered app lists (listCacheMs)', () => {
    let now: number;
    let reads: number;
    /** The service as composition.ts wires it: its own changes drop what it remembers, as the change feed does. */
    const remembering = () => {
      now = Date.parse('2030-01-01T00:00:00Z');
      reads = 0;
      const listByOwner = store.listByOwner.bind(store);
      store.listByOwner = async (owner) => (reads++, listByOwner(owner));
      const service: AppService = new AppService({
        apps: store,
        logs,
        usage,
        limits,
        crypto,
        listCacheMs: 500,
        onChange: () => (changes++, service.forgetLists()),
        now: () => new Date(now),
      });
      return service;
    };

    it('when a list is read again within the lifetime, then the store is not read; after it, it is', async () => {
      apps = remembering();
      await create('owner-a');
      await apps.list('owner-a');
      await apps.list('owner-a');
      expect(reads).toBe(1);
      now += 500;
      await apps.list('owner-a');
      expect(reads).toBe(2);
    });

    it('when an app is created, changed or deleted, then the next list shows it at once', async () => {
      apps = remembering();
      expect(await apps.list('owner-a')).toEqual([]);
      const { app } = await create('owner-a');
      expect((await apps.list('owner-a')).map((a) => a.id)).toEqual([app.id]);
      await apps.setRedirectUris('owner-a', app.id, ['https://localhost:3000/cb']);
      expect((await apps.list('owner-a'))[0]!.redirectUris).toEqual(['https://localhost:3000/cb']);
      await apps.delete('owner-a', app.id, false);
      expect(await apps.list('owner-a')).toEqual([]);
    });
  });

  it('when the create body asks for fewer scopes, then the app holds only those', async () => {
    const { app } = await create('owner-a', { scopes: ['stocks:read'] });
    expect(app.scopes).toEqual(['stocks:read']);
  });

  it('when the name is blank or a scope unknown, then nothing is stored', async () => {
    expect((await refusalOf(create('owner-a', { name: '  ' }))).code).toBe('name_required');
    expect((await refusalOf(create('owner-a', { scopes: ['admin'] }))).code).toBe('unknown_scope');
    expect(await store.listByOwner('owner-a')).toEqual([]);
  });

  it('when an owner reaches the app limit, then too_many_apps', async () => {
    for (let i = 0; i < LIMITS.appsPerOwnerMax; i++) await create('owner-a');
    expect(await refusalOf(create('owner-a'))).toMatchObject({ status: 8, code: 'too_many_apps' });
    await expect(create('owner-b')).resolves.toBeDefined();
  });

  it('when another owner asks for an app, then it is not found on every operation, exactly like an unknown id', async () => {
    const { app } = await create('owner-a');
    const unknown = '0123456789abcdef01234567';
    for (const id of [app.id, unknown]) {
      expect(await refusalOf(apps.get('owner-b', id))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.delete('owner-b', id, false))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.delete('owner-b', id, true))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.rotate('owner-b', id, {}))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.regenerateSecret('owner-b', id))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.setRedirectUris('owner-b', id, []))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
      expect(await refusalOf(apps.setScopes('owner-b', id, []))).toMatchObject({ status: NOT_FOUND, code: 'app_not_found' });
    }
    expect(await apps.list('owner-b')).toEqual([]);
    expect(await apps.resetOwner('owner-b')).toBe(0);
    await expect(apps.get('owner-a', app.id)).resolves.toMatchObject({ id: app.id, status: 'active' });
  });

  it('when an id has the wrong form, then every operation answers exactly what an unknown id gets, whatever else the request holds', async () => {
    const { app } = await create('owner-a');
    const findOwned = jest.spyOn(store, 'findOwned');
    const update = jest.spyOn(store, 'update');
    const malformed = ['nope', '../x', '', 'ABCDEF0123456789ABCDEF01', '{"$ne":null}', `${app.id}\n`, app.id.toUpperCase()];
    const unknown = '0123456789abcdef01234567';
    const operations: [string, (id: string) => Promise<unknown>][] = [
      ['get', (id) => apps.get('owner-a', id)],
      ['delete', (id) => apps.delete('owner-a', id, false)],
      ['revoke', (id) => apps.delete('owner-a', id, true)],
      ['rotate', (id) => apps.rotate('owner-a', id, {})],
      ['rotate nothing', (id) => apps.rotate('owner-a', id, { appSecret: false })],
      ['regenerate', (id) => apps.regenerateSecret('owner-a', id)],
      ['redirect URIs', (id) => apps.setRedirectUris('owner-a', id, ['https://client.example/cb'])],
      ['bad redirect URIs', (id) => apps.setRedirectUris('owner-a', id, ['javascript:alert(1)'])],
      ['scopes', (id) => apps.setScopes('owner-a', id, ['hr:read'])],
      ['bad scopes', (id) => apps.setScopes('owner-a', id, ['admin'])],
    ];
    for (const [name, run] of operations) {
      const expected = await refusalOf(run(unknown));
      for (const id of malformed) expect({ name, id, answer: await refusalOf(run(id)) }).toEqual({ name, id, answer: expected });
    }
    expect(await refusalOf(apps.get('owner-a', 'nope'))).toEqual({ status: NOT_FOUND, code: 'app_not_found', message: 'No app with this id was found.' });
    // A malformed id never reaches the store.
    for (const call of [...findOwned.mock.calls, ...update.mock.calls]) expect(call[1]).toMatch(/^[0-9a-f]{24}$/);
    await expect(apps.get('owner-a', app.id)).resolves.toMatchObject({ status: 'active' });
  });

  it('when only the API key is rotated, then only it changes, and the change is announced', async () => {
    const { app } = await create();
    const before = changes;
    const { app: after, issued } = await apps.rotate('owner-a', app.id, { apiKey: true });
    expect(Object.keys(issued)).toEqual(['apiKey']);
    expect(after.credentials.apiKey.lookup).not.toBe(app.credentials.apiKey.lookup);
    expect(after.credentials.appSecret).toEqual(app.credentials.appSecret);
    expect(after.credentials.bearerToken).toEqual(app.credentials.bearerToken);
    expect(changes).toBe(before + 1);
  });

  it('which credentials a rotation picks', () => {
    expect(chosenKinds({})).toEqual(['appSecret', 'apiKey', 'bearerToken']);
    expect(chosenKinds({ bearerToken: true, appSecret: false })).toEqual(['bearerToken']);
    expect(() => chosenKinds({ appSecret: false })).toThrow(/at least one/);
  });

  it('when the secret is regenerated, then only a new App Secret is issued', async () => {
    const { app } = await create();
    const { issued, app: after } = await apps.regenerateSecret('owner-a', app.id);
    expect(Object.keys(issued)).toEqual(['appSecret']);
    expect(after.credentials.appSecret.hash).toBe(CredentialCrypto.hash(issued.appSecret!));
  });

  it('when an app is revoked, then it stays visible as revoked, refuses changes, and revoking again is the same answer', async () => {
    const { app } = await create();
    const { outcome } = await apps.delete('owner-a', app.id, true);
    expect(outcome).toBe('revoked');
    expect((await apps.get('owner-a', app.id)).status).toBe('revoked');
    expect(await refusalOf(apps.rotate('owner-a', app.id, {}))).toMatchObject({ status: 9, code: 'app_revoked' });
    expect((await refusalOf(apps.setScopes('owner-a', app.id, ['hr:read']))).code).toBe('app_revoked');
    await expect(apps.delete('owner-a', app.id, true)).resolves.toMatchObject({ outcome: 'revoked' });
  });

  const usageOf = (app: { id: string; appId: string }, ownerId = 'owner-a') => ({
    day: '2030-01-01',
    app: app.id,
    appId: app.appId,
    userId: ownerId,
    authStyle: 'basic',
    routeFamily: 'data',
    requests: 3,
    lastAt: new Date('2030-01-01T10:00:00Z'),
  });
  const limitOf = (app: { appId: string }) => ({
    appId: app.appId,
    exempt: true,
    perSecond: 0,
    burst: 0,
    setAt: new Date(),
    setBy: { kind: 'cli' as const, id: 'root@pod', email: '' },
  });

  it('when an app is deleted, then it, its logs, its usage rows and its own limit are gone and its id is not found; revoking keeps them', async () => {
    const { app } = await create();
    const { app: other } = await create();
    const entry = (id: string) => ({
      id: randomBytes(12).toString('hex'),
      app: id,
      time: new Date(),
      method: 'GET',
      path: '/x',
      status: 200,
      authStyle: 'api_key',
      latencyMs: 1,
      requestId: 'r',
      failure: '',
    });
    await logs.append([entry(app.id), entry(other.id)]);
    await usage.add([usageOf(app), usageOf(other)]);
    await limits.put(limitOf(app));
    await limits.put(limitOf(other));
    await apps.delete('owner-a', other.id, true);
    await expect(apps.delete('owner-a', app.id, false)).resolves.toEqual({ outcome: 'deleted' });
    expect(await logs.count(app.id)).toBe(0);
    expect(await logs.count(other.id)).toBe(1);
    expect((await usage.rows()).map((row) => row.app)).toEqual([other.id]);
    expect((await limits.list()).map((limit) => limit.appId)).toEqual([other.appId]);
    expect((await refusalOf(apps.get('owner-a', app.id))).code).toBe('app_not_found');
    expect((await refusalOf(apps.delete('owner-a', app.id, false))).code).toBe('app_not_found');
  });

  it('when redirect URIs and scopes are replaced, then the app holds exactly the new lists', async () => {
    const { app } = await create('owner-a', { redirectUris: ['https://a.example/cb'] });
    const updated = await apps.setRedirectUris('owner-a', app.id, ['https://b.example/cb', 'http://localhost:3000/cb']);
    expect(updated.redirectUris).toEqual(['https://b.example/cb', 'http://localhost:3000/cb']);
    expect((await apps.setScopes('owner-a', app.id, ['hr:read', 'fpa:read'])).scopes).toEqual(['fpa:read', 'hr:read']);
    expect((await refusalOf(apps.setRedirectUris('owner-a', app.id, Array(11).fill('https://x.example/cb')))).code).toBe('too_many_redirect_uris');
    expect((await apps.get('owner-a', app.id)).redirectUris).toEqual(['https://b.example/cb', 'http://localhost:3000/cb']);
  });

  it("when an owner resets, then all their apps, logs, usage and limits go and no one else's", async () => {
    const { app: a1 } = await create('owner-a');
    await create('owner-a');
    const { app: b1 } = await create('owner-b');
    await logs.append([
      { id: 'x'.repeat(24), app: a1.id, time: new Date(), method: 'GET', path: '/', status: 200, authStyle: '', latencyMs: 0, requestId: '', failure: '' },
    ]);
    await usage.add([usageOf(a1), usageOf(b1, 'owner-b')]);
    await limits.put(limitOf(a1));
    await limits.put(limitOf(b1));
    expect(await apps.resetOwner('owner-a')).toBe(2);
    expect(await apps.list('owner-a')).toEqual([]);
    expect(await logs.count(a1.id)).toBe(0);
    expect((await usage.rows()).map((row) => row.app)).toEqual([b1.id]);
    expect((await limits.list()).map((limit) => limit.appId)).toEqual([b1.appId]);
    expect((await apps.list('owner-b')).map((a) => a.id)).toEqual([b1.id]);
  });
});
