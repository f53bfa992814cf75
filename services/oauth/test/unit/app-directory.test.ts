import type { identity } from '@sandbox/contracts';
import { AppDirectory, usable, type DirectoryApp } from '../../src/domain/app-directory';

const APP_ID = 'app_AAAAAAAAAAAAAAAAAAAAAA';
const principal = { id: 'a1', appId: APP_ID, ownerId: 'o1', scopes: ['hr:read'] };

/** Identity as oauth calls it: what it answers now, and how often it was asked. */
function standInIdentity() {
  const state = { redirectUris: [] as string[], apiKey: 'ak_old', active: true, lookups: 0, keyReads: 0 };
  let release: (() => void) | undefined;
  const client = {
    state,
    /** The next lookup waits until released (a read under way). */
    holdNext() {
      const held = new Promise<void>((resolve) => (release = resolve));
      const previous = client.lookupApp;
      client.lookupApp = async (request: identity.LookupAppRequest) => {
        client.lookupApp = previous;
        await held;
        return previous(request);
      };
      return () => release?.();
    },
    lookupApp: async (_: identity.LookupAppRequest): Promise<DirectoryApp> => {
      state.lookups++;
      return { found: true, active: state.active, principal: { ...principal }, redirectUris: [...state.redirectUris] };
    },
    getSigningKey: async (_: identity.GetSigningKeyRequest) => {
      state.keyReads++;
      return { found: true, active: state.active, principal: { ...principal }, apiKey: state.apiKey };
    },
    verifyBasic: async () => ({ check: undefined }),
  };
  return client;
}

describe('AppDirectory', () => {
  let now: number;
  let identity: ReturnType<typeof standInIdentity>;
  let directory: AppDirectory;
  const withRedirect = (uri: string) => (app: DirectoryApp) => usable(app) && app.redirectUris.includes(uri);

  beforeEach(() => {
    now = 1_000_000;
    identity = standInIdentity();
    directory = new AppDirectory(identity, () => now, 500);
  });

  it('when an app is asked for again within 500 ms and the remembered view lets the request through, then identity is not asked again', async () => {
    identity.state.redirectUris = ['https://a.example/cb'];
    await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    now += 499;
    await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    expect(identity.state.lookups).toBe(1);
    now += 1;
    await directory.lookup(APP_ID);
    expect(identity.state.lookups).toBe(2);
  });

  it('when the remembered view would refuse (a redirect URI registered a moment ago), then identity is asked again, and its answer stands', async () => {
    await directory.lookup(APP_ID);
    identity.state.redirectUris = ['https://a.example/cb'];
    const app = await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    expect({ redirectUris: app.redirectUris, lookups: identity.state.lookups }).toEqual({ redirectUris: ['https://a.example/cb'], lookups: 2 });
    // The fresh view is what is remembered now.
    await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    expect(identity.state.lookups).toBe(2);
  });

  it('when identity confirms the refusal, then it stands, and the next refusal is confirmed again', async () => {
    await directory.lookup(APP_ID);
    expect((await directory.lookup(APP_ID, undefined, withRedirect('https://nowhere.example/cb'))).redirectUris).toEqual([]);
    await directory.lookup(APP_ID, undefined, withRedirect('https://nowhere.example/cb'));
    expect(identity.state.lookups).toBe(3);
  });

  it("when a read is under way, then a request that would be refused by it shares it instead of asking again (it began after the request's change was heard of)", async () => {
    const release = identity.holdNext();
    const first = directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    const second = directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    release();
    await Promise.all([first, second]);
    expect(identity.state.lookups).toBe(1);
  });

  it('when a signature does not match the remembered key (rotated a moment ago), then the key is read again', async () => {
    const signedWith = (apiKey: string) => (key: { apiKey: string }) => key.apiKey === apiKey;
    expect((await directory.signingKey(APP_ID, undefined, signedWith('ak_old'))).apiKey).toBe('ak_old');
    identity.state.apiKey = 'ak_new';
    expect((await directory.signingKey(APP_ID, undefined, signedWith('ak_new'))).apiKey).toBe('ak_new');
    expect(identity.state.keyReads).toBe(2);
  });

  it('when a change is heard of, then everything remembered is forgotten at once, so a view that would let a request through is not used', async () => {
    identity.state.redirectUris = ['https://a.example/cb'];
    await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'));
    await directory.signingKey(APP_ID);
    identity.state.active = false;
    directory.forget();
    expect((await directory.lookup(APP_ID, undefined, withRedirect('https://a.example/cb'))).active).toBe(false);
    expect((await directory.signingKey(APP_ID)).active).toBe(false);
    expect({ lookups: identity.state.lookups, keyReads: identity.state.keyReads }).toEqual({ lookups: 2, keyReads: 2 });
  });

  it('when nothing can tell this process of changes (cacheMs 0: no Redis), then nothing is remembered', async () => {
    const unremembering = new AppDirectory(identity, () => now, 0);
    await unremembering.lookup(APP_ID);
    await unremembering.lookup(APP_ID);
    expect(identity.state.lookups).toBe(2);
  });
});
