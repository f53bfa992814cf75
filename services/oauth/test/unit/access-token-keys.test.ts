import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify as verifySignature } from 'node:crypto';
import { calculateJwkThumbprint, createLocalJWKSet, decodeProtectedHeader, importJWK, jwtVerify, SignJWT, type JWK } from 'jose';
import { issueAccessToken, verifySignedAccessToken, type SignatureCheck } from '../../src/domain/oauth2/access-token';
import { ACCESS_TOKEN_ALGS, deriveEd25519Key, deriveEs256Key, loadSigningKey, type AccessTokenAlg, type SigningKey } from '../../src/domain/signing-key';

/** A fixed RSA key, as JWT_SIGNING_KEY gives it to every replica. */
const RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const OTHER_RSA_PEM = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const ISSUER = 'https://sandbox.example';
const NOW = Date.UTC(2030, 0, 1, 10, 0, 0);
const CONFIG = { accessTokenTtlSeconds: 3600, refreshTokenTtlSeconds: 86_400 };

const depsOf = (signingKey: SigningKey) => ({ clock: () => NOW, config: CONFIG, signingKey });
const issue = async (signingKey: SigningKey) =>
  (await issueAccessToken(depsOf(signingKey), { issuer: ISSUER, sub: 'app_1', clientId: 'app_1', scope: ['hr:read'] })).token;
const reasonOf = (check: SignatureCheck) => (check.ok ? 'accepted' : check.reason);
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('access-token keys derived from JWT_SIGNING_KEY', () => {
  it('when two replicas are given the same JWT_SIGNING_KEY, then they derive the same ES256 and Ed25519 keys', async () => {
    const [a, b] = [await loadSigningKey(RSA_PEM), await loadSigningKey(RSA_PEM)];
    expect(a.accessTokens.signing.publicJwk).toEqual(b.accessTokens.signing.publicJwk);
    const jwk = (pem: string, derive: typeof deriveEs256Key) => derive(createPrivateKey(pem)).export({ format: 'jwk' });
    expect(jwk(RSA_PEM, deriveEs256Key)).toEqual(jwk(RSA_PEM, deriveEs256Key));
    expect(jwk(RSA_PEM, deriveEd25519Key)).toEqual(jwk(RSA_PEM, deriveEd25519Key));
  });

  it('when JWT_SIGNING_KEY differs, then so do the derived keys', async () => {
    const [a, b] = [await loadSigningKey(RSA_PEM), await loadSigningKey(OTHER_RSA_PEM)];
    expect(a.accessTokens.signing.kid).not.toBe(b.accessTokens.signing.kid);
    expect(deriveEs256Key(createPrivateKey(RSA_PEM)).export({ format: 'jwk' }).d).not.toBe(
      deriveEs256Key(createPrivateKey(OTHER_RSA_PEM)).export({ format: 'jwk' }).d,
    );
    expect(deriveEd25519Key(createPrivateKey(RSA_PEM)).export({ format: 'jwk' }).d).not.toBe(
      deriveEd25519Key(createPrivateKey(OTHER_RSA_PEM)).export({ format: 'jwk' }).d,
    );
  });

  it('the ES256 key is a valid P-256 key pair: its published point verifies what its private scalar signs', async () => {
    const key = (await loadSigningKey(RSA_PEM)).accessTokens.signing;
    expect(key.privateKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    const { d, ...published } = key.privateKey.export({ format: 'jwk' });
    expect(Buffer.from(d!, 'base64url')).toHaveLength(32);
    // OpenSSL checks the point is on the curve when it imports it.
    const fromJwks = createPublicKey({ key: key.publicJwk as never, format: 'jwk' });
    expect(fromJwks.export({ format: 'jwk' })).toEqual(published);
    const signature = sign('sha256', Buffer.from('x'), key.privateKey);
    expect(verifySignature('sha256', Buffer.from('x'), fromJwks, signature)).toBe(true);
    expect(key.publicJwk).toEqual({ ...published, kid: await calculateJwkThumbprint(published as JWK), alg: 'ES256', use: 'sig' });
  });
});

describe('the JWKS', () => {
  it('by default: the ES256 key first, then the RSA key, each with its thumbprint as kid, alg and use sig; no Ed25519 key', async () => {
    const signingKey = await loadSigningKey(RSA_PEM);
    const { keys } = signingKey.accessTokens.jwks;
    expect(keys.map((k) => [k.kty, k.alg, k.use])).toEqual([
      ['EC', 'ES256', 'sig'],
      ['RSA', 'RS256', 'sig'],
    ]);
    expect(keys[1]).toEqual(signingKey.publicJwk);
    for (const key of keys) expect(key.kid).toBe(await calculateJwkThumbprint(key));
    for (const key of keys) expect(key).not.toHaveProperty('d');
  });

  it.each([
    ['RS256', ['RS256', 'ES256']],
    ['EdDSA', ['EdDSA', 'RS256', 'ES256']],
  ] as const)('when OAUTH_ACCESS_TOKEN_ALG is %s, then its key is listed first', async (alg, listed) => {
    const { keys } = (await loadSigningKey(RSA_PEM, alg)).accessTokens.jwks;
    expect(keys.map((k) => k.alg)).toEqual(listed);
  });
});

describe('issuing and verifying access tokens', () => {
  it.each(ACCESS_TOKEN_ALGS)('%s: the header names the key, the JWKS verifies it (jose, a third-party verifier), and the sandbox accepts it', async (alg) => {
    const signingKey = await loadSigningKey(RSA_PEM, alg);
    const token = await issue(signingKey);
    expect(decodeProtectedHeader(token)).toEqual({ alg, typ: 'at+jwt', kid: signingKey.accessTokens.signing.kid });
    const jwks = createLocalJWKSet(JSON.parse(JSON.stringify(signingKey.accessTokens.jwks)));
    const { payload } = await jwtVerify(token, jwks, { issuer: ISSUER, typ: 'at+jwt', currentDate: new Date(NOW) });
    expect(payload).toMatchObject({ sub: 'app_1', client_id: 'app_1', scope: 'hr:read' });
    expect(await verifySignedAccessToken(depsOf(signingKey), token)).toMatchObject({ ok: true, claims: { sub: 'app_1' } });
  });

  it.each([
    ['ES256', 64],
    ['EdDSA', 64],
    ['RS256', 256],
  ] as const)('%s: the signature has the size RFC 7518 / RFC 8037 give it (ES256: r || s, not DER)', async (alg, bytes) => {
    const token = await issue(await loadSigningKey(RSA_PEM, alg));
    expect(Buffer.from(token.split('.')[2], 'base64url')).toHaveLength(bytes);
  });

  it.each([
    ['RS256', 'ES256'],
    ['ES256', 'RS256'],
    ['ES256', 'EdDSA'],
  ] as const)('rolling upgrade: a token of a replica signing %s is accepted by one signing %s (same JWT_SIGNING_KEY)', async (before, after) => {
    const token = await issue(await loadSigningKey(RSA_PEM, before));
    expect(decodeProtectedHeader(token).alg).toBe(before);
    expect(await verifySignedAccessToken(depsOf(await loadSigningKey(RSA_PEM, after)), token)).toMatchObject({ ok: true });
  });

  it('a token of another sandbox (another JWT_SIGNING_KEY) is refused: its kid names none of our keys', async () => {
    const token = await issue(await loadSigningKey(OTHER_RSA_PEM));
    expect(reasonOf(await verifySignedAccessToken(depsOf(await loadSigningKey(RSA_PEM)), token))).toMatch(/kid and alg do not name one of the keys/);
  });
});

describe('the allow-list refuses', () => {
  let signingKey: SigningKey;
  let claims: string;
  beforeAll(async () => {
    signingKey = await loadSigningKey(RSA_PEM);
    claims = (await issue(signingKey)).split('.')[1];
  });
  const reasonFor = async (token: string) => reasonOf(await verifySignedAccessToken(depsOf(signingKey), token));

  it('alg none, with or without a kid of ours', async () => {
    for (const kid of [undefined, signingKey.accessTokens.signing.kid]) {
      expect(await reasonFor(`${b64({ alg: 'none', typ: 'at+jwt', kid })}.${claims}.`)).toMatch(/signed with ES256 or RS256 and no other algorithm/);
    }
  });

  it('HS256 keyed with a public key (the algorithm-confusion attack), whichever key the kid names', async () => {
    for (const key of signingKey.accessTokens.jwks.keys) {
      const secret = Buffer.from(createPublicKey({ key: key as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' }));
      const forged = await new SignJWT(JSON.parse(Buffer.from(claims, 'base64url').toString()))
        .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: key.kid })
        .sign(secret);
      expect(await reasonFor(forged)).toMatch(/signed with ES256 or RS256 and no other algorithm/);
    }
  });

  it('an unknown kid, a missing kid, and a kid of ours with the other key algorithm', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
    const payload = JSON.parse(Buffer.from(claims, 'base64url').toString());
    const signed = (header: Record<string, unknown>, key = other) =>
      new SignJWT(payload).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', ...header }).sign(key);
    expect(await reasonFor(await signed({ kid: 'someone-else' }))).toMatch(/kid and alg do not name one of the keys/);
    expect(await reasonFor(await signed({}))).toMatch(/kid and alg do not name one of the keys/);
    // RS256 header naming the ES256 key: refused before the signature is looked at.
    const rsaSigned = await new SignJWT(payload)
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: signingKey.accessTokens.signing.kid })
      .sign(signingKey.privateKey);
    expect(await reasonFor(rsaSigned)).toMatch(/kid and alg do not name one of the keys/);
  });

  it('EdDSA while it is not configured: its key is not published, so not accepted', async () => {
    const eddsaToken = await issue(await loadSigningKey(RSA_PEM, 'EdDSA'));
    expect(await reasonFor(eddsaToken)).toMatch(/signed with ES256 or RS256 and no other algorithm/);
  });

  it('the public JWK of the JWKS imports as what it says (jose importJWK with its alg)', async () => {
    for (const key of signingKey.accessTokens.jwks.keys) await expect(importJWK(key, key.alg as AccessTokenAlg)).resolves.toBeDefined();
  });
});
