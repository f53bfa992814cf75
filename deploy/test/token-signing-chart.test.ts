import { spawnSync } from 'node:child_process';
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadOAuthConfig } from '../../services/oauth/src/config';
import { loadSigningKey } from '../../services/oauth/src/domain/signing-key';

// The chart's `oauth:` block and the key behind OAuth 2.0 access tokens,
// rendered by the real helm (built into .tools by scripts/lib/helm.sh): the
// oauth container's OAUTH_ACCESS_TOKEN_ALG, the schema's refusals, and the
// generated JWT_SIGNING_KEY the ES256 key is derived from. helm-chart.test.ts
// covers the rest of the chart; this file only what token signing adds.

const ROOT = resolve(__dirname, '..', '..');
const HELM = join(ROOT, '.tools', 'helm');
const CHART = join(ROOT, 'deploy', 'helm', 'training-sandbox');
const IMAGE_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'image-values.yaml');
const SERVICES = ['gateway', 'identity', 'oauth', 'data', 'playground'];
const PREFIX = 'ts-training-sandbox';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are untyped YAML
type Manifest = Record<string, any>;

let home: string;
let signingKey: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'token-signing-chart-'));
  // A given key: otherwise helm generates a 4096-bit one per render, which is most of a render's time.
  signingKey = join(home, 'jwt.pem');
  writeFileSync(signingKey, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

function helmTemplate(args: string[], givenKey = true) {
  const key = givenKey ? ['--set-file', `secrets.values.JWT_SIGNING_KEY=${signingKey}`] : [];
  const result = spawnSync(HELM, ['template', 'ts', CHART, '--namespace', 'sandbox', '-f', IMAGE_VALUES, ...key, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') },
  });
  if (result.error) throw result.error;
  return result;
}

function render(args: string[] = [], givenKey = true): Manifest[] {
  const { status, stdout, stderr } = helmTemplate(args, givenKey);
  if (status !== 0) throw new Error(`helm template failed (${status}): ${stderr}`);
  return parseAllDocuments(stdout)
    .map((doc) => doc.toJSON() as Manifest)
    .filter(Boolean);
}

const find = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
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
    const { status, stderr } = helmTemplate(['--set', `oauth.accessTokenAlg=${alg}`]);
    expect(status).not.toBe(0);
    expect(stderr).toContain('/oauth/accessTokenAlg');
  });

  it('a generated JWT_SIGNING_KEY is the RSA key the oauth service accepts, and the ES256 key of access tokens derives from it', async () => {
    const secret = find(render([], false), 'Secret', `${PREFIX}-secrets`);
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
