import { randomBytes } from 'node:crypto';
import { GrpcStatus } from '@sandbox/runtime';
import { AppService } from '../../src/domain/apps';
import { CredentialCrypto } from '../../src/domain/credential-crypto';
import { newAppId, newSecret } from '../../src/domain/credentials';
import { CredentialVerifier } from '../../src/domain/verification';
import { MemoryAppLimitStore } from '../../src/stores/memory-app-limit-store';
import { MemoryAppStore } from '../../src/stores/memory-app-store';
import { MemoryRequestLogStore } from '../../src/stores/memory-request-log-store';
import { MemoryUsageStore } from '../../src/stores/memory-usage-store';

describe('CredentialVerifier', () => {
  const crypto = new CredentialCrypto(randomBytes(32));
  let store: MemoryAppStore;
  let now: number;
  let verifier: CredentialVerifier;
  let apps: AppService;

  beforeEach(() => {
    store = new MemoryAppStore();
    now = 1_000_000;
    verifier = new CredentialVerifier(store, crypto, 500, () => now);
    apps = new AppService({
      apps: store,
      logs: new MemoryRequestLogStore(),
      usage: new MemoryUsageStore(),
      limits: new MemoryAppLimitStore(),
      crypto,
      onChange: () => verifier.invalidate(),
    });
  });

  const create = (scopes?: string[]) => apps.create('owner-a', { name: 'app', description: '', redirectUris: ['https://a.example/cb'], scopes });

  it('when each credential is checked, then it answers the app, its owner and its scopes', async () => {
    const { app, issued } = await create(['hr:read']);
    const principal = { id: app.id, appId: app.appId, ownerId: 'owner-a', scopes: ['hr:read'] };
    await expect(verifier.verifyApiKey(issued.apiKey!)).resolves.toEqual({ ok: true, reason: '', principal });
    await expect(verifier.verifyBearerToken(issued.bearerToken!)).resolves.toEqual({ ok: true, reason: '', principal });
    await expect(verifier.verifyBasic(app.appId, issued.appSecret!)).resolves.toEqual({ ok: true, reason: '', principal });
  });

  it('when a credential is missing, malformed, unknown or of the wrong kind, then a refusal with a reason (not an error)', async () => {
    const { app, issued } = await create();
    const refusals = [
      await verifier.verifyApiKey(''),
      await verifier.verifyApiKey('not-a-key'),
      await verifier.verifyApiKey(newSecret('apiKey')),
      await verifier.verifyApiKey(issued.bearerToken!),
      await verifier.verifyBearerToken(issued.apiKey!),
      await verifier.verifyBearerToken(newSecret('bearerToken')),
      await verifier.verifyBasic(app.appId, newSecret('appSecret')),
      await verifier.verifyBasic(newAppId(), issued.appSecret!),
      await verifier.verifyBasic(app.appId, ''),
    ];
    for (const check of refusals) {
      expect(check.ok).toBe(false);
      expect(check.principal).toBeUndefined();
      expect(check.reason.length).toBeGreaterThan(0);
      for (const secret of Object.values(issued)) expect(check.reason).not.toContain(secret!);
    }
    expect(refusals[2].reason).toBe('The API key is not valid.');
  });

  it('when rotated through this service, then the old values are refused at once, even if cached', async () => {
    const { app, issued } = await create();
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(true);
    expect((await verifier.verifyBearerToken(issued.bearerToken!)).ok).toBe(true);
    expect((await verifier.verifyBasic(app.appId, issued.appSecret!)).ok).toBe(true);
    const { issued: fresh } = await apps.rotate('owner-a', app.id, {});
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(false);
    expect((await verifier.verifyBearerToken(issued.bearerToken!)).ok).toBe(false);
    expect((await verifier.verifyBasic(app.appId, issued.appSecret!)).ok).toBe(false);
    expect((await verifier.verifyApiKey(fresh.apiKey!)).ok).toBe(true);
    expect((await verifier.verifyBasic(app.appId, fresh.appSecret!)).ok).toBe(true);
  });

  it('when revoked or deleted, then every credential is refused at once and the signing key is withheld', async () => {
    const { app, issued } = await create();
    await verifier.verifyApiKey(issued.apiKey!);
    await apps.delete('owner-a', app.id, true);
    expect(await verifier.verifyApiKey(issued.apiKey!)).toMatchObject({ ok: false, reason: expect.stringMatching(/revoked/) });
    expect((await verifier.verifyBearerToken(issued.bearerToken!)).ok).toBe(false);
    expect(await verifier.lookupApp(app.appId)).toMatchObject({ found: true, active: false });
    expect(await verifier.getSigningKey(app.appId)).toMatchObject({ found: true, active: false, apiKey: '' });
    await apps.delete('owner-a', app.id, false);
    expect(await verifier.lookupApp(app.appId)).toMatchObject({ found: false, active: false });
    expect((await verifier.verifyBasic(app.appId, issued.appSecret!)).ok).toBe(false);
  });

  it('when the owner is disabled, then every credential is refused with the reason, without reading the user, and the signing key is withheld; enabled, they work again', async () => {
    const { app, issued } = await create();
    await verifier.verifyApiKey(issued.apiKey!);
    await store.setOwnerDisabled('owner-a', true);
    verifier.invalidate();
    const reason = "The app's owner account has been disabled by an operator; its credentials work again only if the account is enabled.";
    expect(await verifier.verifyApiKey(issued.apiKey!)).toEqual({ ok: false, reason, principal: undefined });
    expect(await verifier.verifyBearerToken(issued.bearerToken!)).toEqual({ ok: false, reason, principal: undefined });
    expect(await verifier.verifyBasic(app.appId, issued.appSecret!)).toEqual({ ok: false, reason, principal: undefined });
    expect(await verifier.lookupApp(app.appId)).toMatchObject({ found: true, active: false });
    expect(await verifier.getSigningKey(app.appId)).toMatchObject({ found: true, active: false, apiKey: '' });
    await store.setOwnerDisabled('owner-a', false);
    verifier.invalidate();
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(true);
    expect(await verifier.getSigningKey(app.appId)).toMatchObject({ active: true, apiKey: issued.apiKey });
  });

  it('when the data was written under another CREDENTIAL_ENCRYPTION_KEY (a restore with the wrong key), then the signing key is refused as unreadable (401), not an internal error', async () => {
    const { app, issued } = await create();
    const otherKey = new CredentialVerifier(store, new CredentialCrypto(randomBytes(32)), 500, () => now);
    await expect(otherKey.getSigningKey(app.appId)).rejects.toMatchObject({
      status: GrpcStatus.UNAUTHENTICATED,
      code: 'api_key_unreadable',
      message: expect.stringMatching(/Rotate the API key/),
    });
    await expect(otherKey.getSigningKey(app.appId)).rejects.not.toMatchObject({ message: expect.stringContaining(issued.apiKey!) });
    // The App Secret and bearer token are plain hashes: they still work under any key.
    expect((await otherKey.verifyBasic(app.appId, issued.appSecret!)).ok).toBe(true);
  });

  it('when another replica revokes the app and its change is not heard of, then this one still follows within the cache TTL (500 ms)', async () => {
    const { app, issued } = await create();
    const otherReplica = new AppService({
      apps: store,
      logs: new MemoryRequestLogStore(),
      usage: new MemoryUsageStore(),
      limits: new MemoryAppLimitStore(),
      crypto,
      onChange: () => undefined,
    });
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(true);
    await otherReplica.delete('owner-a', app.id, true);
    now += 499;
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(true); // still within the promised bound
    now += 1;
    expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(false);
  });

  describe('what another replica changes, seen here before the cache tells (its change reaches this one through the change feed; until it does):', () => {
    const otherReplica = () =>
      new AppService({
        apps: store,
        logs: new MemoryRequestLogStore(),
        usage: new MemoryUsageStore(),
        limits: new MemoryAppLimitStore(),
        crypto,
        onChange: () => undefined,
      });

    it('when another replica rotated the credentials, then each new one is accepted on its first use here, though the app is remembered with the old ones', async () => {
      const { app, issued } = await create();
      expect((await verifier.verifyBasic(app.appId, issued.appSecret!)).ok).toBe(true);
      const { issued: fresh } = await otherReplica().rotate('owner-a', app.id, {});
      // A refusal from memory is read again from the store before it is answered.
      expect((await verifier.verifyBasic(app.appId, fresh.appSecret!)).ok).toBe(true);
      expect((await verifier.verifyApiKey(fresh.apiKey!)).ok).toBe(true);
      expect((await verifier.verifyBearerToken(fresh.bearerToken!)).ok).toBe(true);
    });

    it("when another replica's operator enabled the owner again, then the credentials work on their first use here", async () => {
      const { issued } = await create();
      await store.setOwnerDisabled('owner-a', true);
      verifier.invalidate();
      expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(false);
      await store.setOwnerDisabled('owner-a', false); // another replica: no invalidate() here
      expect((await verifier.verifyApiKey(issued.apiKey!)).ok).toBe(true);
    });

    it("the oauth service's lookups always read the store: oauth remembers them itself, and asks again before it refuses on them", async () => {
      const { app } = await create();
      expect((await verifier.lookupApp(app.appId)).redirectUris).toEqual(['https://a.example/cb']);
      await otherReplica().setRedirectUris('owner-a', app.id, ['https://b.example/cb']);
      expect((await verifier.lookupApp(app.appId)).redirectUris).toEqual(['https://b.example/cb']);
      const { issued } = await otherReplica().rotate('owner-a', app.id, { apiKey: true });
      expect((await verifier.getSigningKey(app.appId)).apiKey).toBe(issued.apiKey);
    });
  });

  it('the oauth service can look an app up by App ID and get its plain API key', async () => {
    const { app, issued } = await create();
    await expect(verifier.lookupApp(app.appId)).resolves.toEqual({
      found: true,
      active: true,
      principal: { id: app.id, appId: app.appId, ownerId: 'owner-a', scopes: app.scopes },
      redirectUris: ['https://a.example/cb'],
    });
    expect((await verifier.getSigningKey(app.appId)).apiKey).toBe(issued.apiKey);
    expect(await verifier.lookupApp('garbage')).toEqual({ found: false, active: false, redirectUris: [] });
  });
});
