import { createPrivateKey } from 'node:crypto';
import { loadOAuthConfig } from '../../services/oauth/src/config';
import { loadSigningKey } from '../../services/oauth/src/domain/signing-key';
import { chartRenderer, findManifest as find, PREFIX, SERVICES, type Manifest } from './support/chart';

// The chart's `oauth:` block and the key behind OAuth 2.0 access tokens,
// rendered by the real helm (built into .tools by scripts/lib/helm.sh): the
// oauth container's OAUTH_ACCESS_TOKEN_ALG, the schema's refusals, and the
// generated JWT_SIGNING_KEY the ES256 key is derived from. helm-chart.test.ts
// covers the rest of the chart; this file only what token signing adds.

const { render, expectRefused } = chartRenderer('token-signing-chart');

/** A service container's plain env, by name (values only, not secret references). */
const envOf = (manifests: Manifest[], service: string): Record<string, string> => {
  const container = find(manifests, 'Deployment', `${PREFIX}-${service}`).spec.template.spec.containers.find((c: Manifest) => c.name === service);
  return Object.fromEntries((container.env as Manifest[]).filter((e) => 'value' in e).map((e) => [e.name, e.value]));
};

describe('the chart’s access-token signing', () => {
  it('by default the oauth process signs access tokens ES256, and only oauth is told', () => {
    const manifests = render();
    expect(envOf(manifests, 'oauth').OAUTH_ACCESS_TOKEN_ALG).toBe('ES256');
    for (const service of SERVICES.filter((s) => s !== 'oauth')) expect(envOf(manifests, service).OAUTH_ACCESS_TOKEN_ALG).toBeUndefined();
  });

  it.each(['EdDSA', 'RS256'])('when oauth.accessTokenAlg is %s, then the oauth process is told so', (alg) => {
    expect(envOf(render(['--set', `oauth.accessTokenAlg=${alg}`]), 'oauth').OAUTH_ACCESS_TOKEN_ALG).toBe(alg);
  });

  it.each(['HS256', 'none', 'es256'])('when oauth.accessTokenAlg is %s, then helm template fails and names the value', (alg) => {
    expectRefused(['--set', `oauth.accessTokenAlg=${alg}`], '/oauth/accessTokenAlg');
  });

  it('a generated JWT_SIGNING_KEY is the RSA key the oauth service accepts, and the ES256 key of access tokens derives from it', async () => {
    const secret = find(render([], { givenKey: false }), 'Secret', `${PREFIX}-secrets`);
    const pem = Buffer.from(secret.data.JWT_SIGNING_KEY, 'base64').toString();
    // helm's genPrivateKey "rsa" makes 4096 bits, no other size: why access tokens no longer use it by default.
    expect(createPrivateKey(pem).asymmetricKeyDetails?.modulusLength).toBe(4096);
    const config = loadOAuthConfig({ JWT_SIGNING_KEY: pem, OAUTH_ACCESS_TOKEN_ALG: 'ES256', GRPC_TLS: 'off' });
    const keys = await loadSigningKey(config.signingKeyPem, config.accessTokenAlg);
    expect(keys.accessTokens.jwks.keys.map((key) => [key.kty, key.alg])).toEqual([
      ['EC', 'ES256'],
      ['RSA', 'RS256'],
    ]);
  });
});
