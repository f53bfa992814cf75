import { createHmac } from 'node:crypto';
import type { oauth } from '@sandbox/contracts';
import { loadSigningKey, type SigningKey } from '../../src/domain/signing-key';
import { HMAC_WINDOW_SECONDS, hmacCanonicalString, verifyHmac, type PlaygroundAuthDeps } from '../../src/domain/playground-auth';
import { hmacSeenKey } from '../../src/domain/playground-auth/hmac';
import type { EphemeralStore } from '../../src/stores/ephemeral-store';
import { memoryDeps, StandInApps } from '../support/unit-deps';

const APP_ID = 'app_hmac_practice';
const API_KEY = `ak_${'H'.repeat(43)}`;

const hmacHex = (key: string, text: string) => createHmac('sha256', key).update(text).digest('hex');

describe('HMAC signatures over "timestamp.METHOD.path"', () => {
  let signingKey: SigningKey;
  let now: number;
  let store: EphemeralStore;
  let apps: StandInApps;
  let deps: PlaygroundAuthDeps;

  beforeAll(async () => {
    signingKey = await loadSigningKey(undefined);
  });
  beforeEach(() => {
    now = Date.UTC(2030, 0, 1, 12, 0, 0);
    apps = new StandInApps();
    apps.add({ appId: APP_ID, apiKey: API_KEY });
    deps = memoryDeps(() => now, apps, signingKey);
    ({ store } = deps);
  });
  afterEach(async () => store.close());

  const seconds = () => Math.floor(now / 1000);
  /** A request as a learner signs it: path without the query, unless they sign something else. */
  const signed = (overrides: Partial<oauth.VerifyHmacRequest> = {}, signedText?: string): oauth.VerifyHmacRequest => {
    const base = { appId: APP_ID, timestamp: String(seconds()), method: 'POST', path: '/playground/auth/hmac', rawQuery: '', ...overrides };
    const text = signedText ?? `${base.timestamp}.${base.method}.${base.path}`;
    return { signature: hmacHex(API_KEY, text), ...base, ...overrides };
  };
  const reasonFor = async (request: oauth.VerifyHmacRequest) => {
    const check = await verifyHmac(deps, request);
    expect(check.ok).toBe(false);
    expect(check.principal).toBeUndefined();
    expect(check.reason).not.toContain(API_KEY);
    return check.reason;
  };

  it('when the signature is right, then the app is accepted', async () => {
    await expect(verifyHmac(deps, signed())).resolves.toEqual({ ok: true, reason: '', principal: apps.apps.get(APP_ID)!.principal });
  });

  it('when the canonical string is built, then it is timestamp, uppercase method and path joined by dots', () => {
    expect(hmacCanonicalString('1767225600', 'post', '/playground/auth/hmac')).toBe('1767225600.POST./playground/auth/hmac');
  });

  it('when the same signature comes twice, then the second is refused as replayed; a new timestamp is accepted', async () => {
    const request = signed();
    expect((await verifyHmac(deps, request)).ok).toBe(true);
    const reason = await reasonFor(request);
    expect(reason).toMatch(/^Replayed: this exact signature \(of "\d+\.POST\.\/playground\/auth\/hmac"\) was already used/);
    expect(reason).toContain('A new x-timestamp makes a new signature');
    expect(reason).toContain('within the same second');
    now += 1000;
    expect((await verifyHmac(deps, signed())).ok).toBe(true);
  });

  it('when two checks of one signature race, then exactly one is accepted', async () => {
    const request = signed();
    const checks = await Promise.all([verifyHmac(deps, request), verifyHmac(deps, request), verifyHmac(deps, request)]);
    expect(checks.filter((check) => check.ok)).toHaveLength(1);
  });

  it('when a signature is remembered, then until the last second its timestamp can be accepted, plus a minute', async () => {
    const request = signed();
    await verifyHmac(deps, request);
    const key = hmacSeenKey(APP_ID, request.signature);
    now += (HMAC_WINDOW_SECONDS + 1 + 60) * 1000 - 1;
    expect(await store.get(key)).toBe('1');
    now += 1;
    expect(await store.get(key)).toBeUndefined();
  });

  it('when the timestamp is 300 s off either way, then accepted; 301 s, then refused with the direction, the offset and the server clock', async () => {
    expect((await verifyHmac(deps, signed({ timestamp: String(seconds() - 300) }))).ok).toBe(true);
    expect((await verifyHmac(deps, signed({ timestamp: String(seconds() + 300) }))).ok).toBe(true);
    const behind = await reasonFor(signed({ timestamp: String(seconds() - 301) }));
    expect(behind).toMatch(/is 301 s behind server time; it must be within 300 s either way/);
    expect(behind).toContain(`Server time is ${new Date(now).toISOString()} (${seconds()})`);
    expect(behind).toContain('The signature itself is right: only the time is off.');
    expect(await reasonFor(signed({ timestamp: String(seconds() + 301) }))).toMatch(/is 301 s ahead of server time/);
    const wrongAndLate = await reasonFor({ ...signed({ timestamp: String(seconds() + 400) }), signature: 'a'.repeat(64) });
    expect(wrongAndLate).not.toContain('itself is right');
  });

  it('when the timestamp is in milliseconds, then refused with a hint to send seconds', async () => {
    const reason = await reasonFor(signed({ timestamp: String(now) }));
    expect(reason).toMatch(/looks like milliseconds \(13 digits\): send seconds \(10 digits\)/);
    expect(await reasonFor(signed({ timestamp: `${seconds()}.5` }))).toMatch(/has a fraction: send whole seconds/);
    expect(await reasonFor(signed({ timestamp: 'yesterday' }))).toMatch(/'yesterday' is not a number of seconds/);
  });

  it('when the path was signed with its query string, then refused saying so, with the canonical string and the server clock, never the expected signature', async () => {
    const path = '/playground/auth/hmac';
    const ts = String(seconds());
    const request = signed({ path, rawQuery: 'page=2&size=10' }, `${ts}.POST.${path}?page=2&size=10`);
    const reason = await reasonFor(request);
    expect(reason).toMatch(/^The signature does not match\. You signed the path with its query string; sign the path only/);
    expect(reason).toContain(`The server signed "${ts}.POST.${path}".`);
    expect(reason).toContain(`Server time is ${new Date(now).toISOString()}`);
    expect(reason).not.toContain(hmacHex(API_KEY, `${ts}.POST.${path}`));
  });

  it('when the signature is uppercase hex, base64, or over a lowercase method, then refused with the fix', async () => {
    const right = signed();
    expect(await reasonFor({ ...right, signature: right.signature.toUpperCase() })).toMatch(/in uppercase hex: send lowercase hex/);
    expect(await reasonFor({ ...right, signature: Buffer.from(right.signature, 'hex').toString('base64') })).toMatch(/base64-encoded: send lowercase hex/);
    expect(await reasonFor(signed({}, `${right.timestamp}.post.${right.path}`))).toMatch(/signed the method in lowercase/);
    expect(await reasonFor({ ...right, signature: 'not-hex' })).toMatch(/64 lowercase hex characters/);
  });

  it('when signed with another key (the App Secret), then refused pointing at the API key', async () => {
    const reason = await reasonFor({ ...signed(), signature: hmacHex(`as_${'S'.repeat(43)}`, `${seconds()}.POST./playground/auth/hmac`) });
    expect(reason).toMatch(/your API key, not the App Secret/);
  });

  it('when the app is unknown or revoked, then refused saying so', async () => {
    expect(await reasonFor(signed({ appId: 'nobody' }))).toBe("x-app-id 'nobody' is not the App ID of any app here.");
    apps.apps.get(APP_ID)!.active = false;
    expect(await reasonFor(signed())).toBe(`The app '${APP_ID}' is revoked: its signatures are refused.`);
  });

  it('when a value is missing, then refused naming it', async () => {
    expect(await reasonFor(signed({ appId: '', signature: '' }))).toBe('All three headers are required: x-app-id, x-signature are missing or empty.');
  });

  it('when a request is refused, then nothing is remembered: the right signature still passes once', async () => {
    const request = signed();
    await reasonFor({ ...request, signature: 'f'.repeat(64) });
    expect((await verifyHmac(deps, request)).ok).toBe(true);
  });
});
