import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

// Renders the chart with the real helm (built into .tools by scripts/lib/helm.sh)
// and checks what a cluster would receive: hardening, probes, the network model,
// secrets handling and the values schema.

const ROOT = resolve(__dirname, '..', '..');
const HELM = join(ROOT, '.tools', 'helm');
const CHART = join(ROOT, 'deploy', 'helm', 'training-sandbox');
const PRODUCTION_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'production-values.yaml');
const RELEASE = 'ts';
const PREFIX = `${RELEASE}-training-sandbox`;
const GRPC_SERVICES = { identity: 50051, oauth: 50052, data: 50053, playground: 50054 } as const;
const SERVICES = ['gateway', ...Object.keys(GRPC_SERVICES)] as const;
const SECRET_KEYS = ['MONGO_URL', 'REDIS_URL', 'CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'PAGE_TOKEN_KEY'];
const SERVICES_DRAIN_SECONDS = 10;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are untyped YAML
type Manifest = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Container = Record<string, any>;

let helmHome: string;

function helm(args: string[]) {
  const result = spawnSync(HELM, args, {
    cwd: ROOT,
    encoding: 'utf8',
    env: {
      ...process.env,
      HELM_CACHE_HOME: join(helmHome, 'cache'),
      HELM_CONFIG_HOME: join(helmHome, 'config'),
      HELM_DATA_HOME: join(helmHome, 'data'),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function render(args: string[] = [], chart = CHART): Manifest[] {
  const { status, stdout, stderr } = helm(['template', RELEASE, chart, '--namespace', 'sandbox', ...args]);
  if (status !== 0) throw new Error(`helm template failed (${status}): ${stderr}`);
  const documents = parseAllDocuments(stdout);
  const manifests: Manifest[] = [];
  for (const document of documents) {
    if (document.errors.length > 0) throw new Error(`unparseable YAML from helm: ${document.errors[0]!.message}`);
    const value = document.toJS() as Manifest | null;
    if (value) manifests.push(value);
  }
  return manifests;
}

const ofKind = (manifests: Manifest[], kind: string) => manifests.filter((m) => m.kind === kind);
const named = (manifests: Manifest[], kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  return found;
};
const deployment = (manifests: Manifest[], service: string) => named(manifests, 'Deployment', `${PREFIX}-${service}`);
const containerOf = (manifests: Manifest[], service: string): Container => deployment(manifests, service).spec.template.spec.containers[0];
const envOf = (container: Container): Record<string, Manifest> => Object.fromEntries(container.env.map((e: Manifest) => [e.name, e]));
const componentSelector = (service: string) => ({
  'app.kubernetes.io/name': 'training-sandbox',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': service,
});
const isSubset = (subset: Record<string, string>, of: Record<string, string>) => Object.entries(subset).every(([k, v]) => of[k] === v);

beforeAll(() => {
  helmHome = mkdtempSync(join(tmpdir(), 'helm-home-'));
  if (!existsSync(HELM)) {
    // First run on a fresh machine: build helm (minutes); afterwards a no-op.
    const built = spawnSync('bash', ['-c', 'source scripts/lib/helm.sh && ensure_helm'], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`could not build helm: ${built.stderr}`);
  }
}, 15 * 60_000);

afterAll(() => rmSync(helmHome, { recursive: true, force: true }));

describe.each([
  ['default values', [] as string[]],
  ['production values', ['-f', PRODUCTION_VALUES]],
])('the chart with %s', (_label, args) => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(args);
  });

  it('when linted strictly, then helm reports no problem', () => {
    const { status, stdout, stderr } = helm(['lint', '--strict', CHART, ...args]);
    expect({ status, output: stdout + stderr }).toEqual({ status: 0, output: expect.stringContaining('0 chart(s) failed') });
  });

  it('when rendered, then there is one Deployment and one Service per service', () => {
    expect(ofKind(manifests, 'Deployment').map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `${PREFIX}-${s}`).sort());
    expect(ofKind(manifests, 'Service').map((d) => d.metadata.name).sort()).toEqual(SERVICES.map((s) => `${PREFIX}-${s}`).sort());
  });

  it('when rendered, then every container runs as non-root with a read-only root, no capabilities and no escalation', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      const pod = d.spec.template.spec;
      expect(pod.automountServiceAccountToken).toBe(false);
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect({ name: c.name, sc: c.securityContext }).toMatchObject({
          sc: {
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
        });
        expect(c.securityContext.capabilities.add ?? []).toEqual([]);
        expect(c.securityContext.privileged).not.toBe(true);
      }
    }
  });

  it('when rendered, then every container has cpu and memory requests and limits', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      for (const c of d.spec.template.spec.containers) {
        expect({ name: c.name, resources: c.resources }).toMatchObject({
          resources: {
            requests: { cpu: expect.anything(), memory: expect.anything() },
            limits: { cpu: expect.anything(), memory: expect.anything() },
          },
        });
      }
    }
  });

  it('when rendered, then every gRPC service is probed over grpc.health.v1 for "" on its own port', () => {
    for (const [service, port] of Object.entries(GRPC_SERVICES)) {
      const c = containerOf(manifests, service);
      expect(c.ports).toEqual([{ name: 'grpc', containerPort: port, protocol: 'TCP' }]);
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        // Readiness follows the store (""); startup and liveness only ask whether the process answers.
        const healthName = probe === 'readinessProbe' ? '' : 'liveness';
        expect({ service, probe, grpc: c[probe]?.grpc }).toEqual({ service, probe, grpc: { port, service: healthName } });
      }
    }
  });

  it('when rendered, then the gateway is ready on /health/ready and alive on /health', () => {
    const c = containerOf(manifests, 'gateway');
    expect(c.readinessProbe.httpGet).toMatchObject({ path: '/health/ready', port: 'http' });
    expect(c.livenessProbe.httpGet).toMatchObject({ path: '/health', port: 'http' });
  });

  it('when rendered, then pods get longer to stop than the pre-stop pause plus the services\' drain', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      const pod = d.spec.template.spec;
      const pause = Number(pod.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(SERVICES_DRAIN_SECONDS + pause);
    }
  });

  it('when rendered, then gRPC Services are headless and the gateway reaches each through dns:/// and its port', () => {
    const env = envOf(containerOf(manifests, 'gateway'));
    for (const [service, port] of Object.entries(GRPC_SERVICES)) {
      const svc = named(manifests, 'Service', `${PREFIX}-${service}`);
      expect(svc.spec.clusterIP).toBe('None');
      expect(svc.spec.ports).toEqual([expect.objectContaining({ port, targetPort: 'grpc' })]);
      expect(env[`${service.toUpperCase()}_GRPC_ADDR`]?.value).toBe(`dns:///${PREFIX}-${service}:${port}`);
    }
    expect(envOf(containerOf(manifests, 'oauth')).IDENTITY_GRPC_ADDR?.value).toBe(`dns:///${PREFIX}-identity:50051`);
    for (const service of Object.keys(GRPC_SERVICES)) {
      expect(envOf(containerOf(manifests, service))[`${service.toUpperCase()}_GRPC_HOST`]?.value).toBe('0.0.0.0');
    }
  });

  it('when rendered, then secret values reach the pods only through secretKeyRef', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      for (const e of d.spec.template.spec.containers[0].env) {
        if (SECRET_KEYS.includes(e.name)) expect({ name: e.name, ref: e.valueFrom?.secretKeyRef?.key }).toEqual({ name: e.name, ref: e.name });
      }
    }
    const wanted = { identity: ['MONGO_URL', 'REDIS_URL', 'CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY'], oauth: ['REDIS_URL'], data: ['PAGE_TOKEN_KEY'] };
    for (const [service, keys] of Object.entries(wanted)) {
      const env = envOf(containerOf(manifests, service));
      for (const key of keys) expect(env[key]?.valueFrom?.secretKeyRef?.optional).not.toBe(true);
    }
  });

  it('when rendered, then a deny-all policy covers every pod of the release', () => {
    const denyAll = ofKind(manifests, 'NetworkPolicy').filter((p) => !p.spec.ingress && !p.spec.egress);
    expect(denyAll).toHaveLength(1);
    expect(denyAll[0]!.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
    for (const d of ofKind(manifests, 'Deployment')) {
      expect(isSubset(denyAll[0]!.spec.podSelector.matchLabels, d.spec.template.metadata.labels)).toBe(true);
    }
  });

  it("when rendered, then identity's policy admits only the gateway and oauth, on its gRPC port", () => {
    const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-identity`);
    expect(policy.spec.podSelector.matchLabels).toEqual(componentSelector('identity'));
    expect(policy.spec.ingress).toEqual([
      {
        from: [{ podSelector: { matchLabels: componentSelector('gateway') } }, { podSelector: { matchLabels: componentSelector('oauth') } }],
        ports: [{ port: 50051, protocol: 'TCP' }],
      },
    ]);
  });

  it('when rendered, then oauth, data and playground admit only the gateway', () => {
    for (const service of ['oauth', 'data', 'playground'] as const) {
      const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`);
      expect(policy.spec.ingress).toEqual([
        { from: [{ podSelector: { matchLabels: componentSelector('gateway') } }], ports: [{ port: GRPC_SERVICES[service], protocol: 'TCP' }] },
      ]);
    }
  });

  it('when rendered, then each service may reach only DNS, its named peers and its stores', () => {
    const peerTargets = (service: string) =>
      named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`)
        .spec.egress.flatMap((rule: Manifest) => (rule.to ?? []).map((peer: Manifest) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component']))
        .filter((c: string | undefined) => c !== undefined)
        .sort();
    expect(peerTargets('gateway')).toEqual(['data', 'identity', 'oauth', 'playground']);
    expect(peerTargets('oauth')).toEqual(['identity']);
    for (const service of ['identity', 'data', 'playground']) expect(peerTargets(service)).toEqual([]);
    const egressPorts = (service: string) =>
      named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`)
        .spec.egress.flatMap((rule: Manifest) => rule.ports.map((p: Manifest) => `${p.protocol}/${p.port}`))
        .sort();
    expect(egressPorts('data')).toEqual(['TCP/53', 'UDP/53']);
    expect(egressPorts('oauth')).toEqual(['TCP/50051', 'TCP/53', 'TCP/6379', 'UDP/53']);
    // identity: MongoDB for its records, Redis for the sign-in throttle's shared counts.
    expect(egressPorts('identity')).toEqual(expect.arrayContaining(['TCP/27017', 'TCP/53', 'TCP/6379', 'UDP/53']));
  });

  it('when rendered, then every Deployment that is not autoscaled has a PDB allowing one pod down at a time', () => {
    for (const pdb of ofKind(manifests, 'PodDisruptionBudget')) expect(pdb.spec.maxUnavailable).toBe(1);
  });
});

describe('the chart with default values', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render();
  });

  it('when rendered, then there is no HPA and no Ingress, every service has a PDB, and the gateway does not trust proxy headers', () => {
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(manifests, 'Ingress')).toEqual([]);
    expect(ofKind(manifests, 'PodDisruptionBudget')).toHaveLength(5);
    expect(envOf(containerOf(manifests, 'gateway')).TRUST_PROXY?.value).toBe('false');
  });

  it('when no secret value is given, then the chart renders an empty Secret that the pods reference', () => {
    const secret = named(manifests, 'Secret', `${PREFIX}-secrets`);
    expect(secret.data ?? {}).toEqual({});
    expect(envOf(containerOf(manifests, 'identity')).MONGO_URL?.valueFrom.secretKeyRef.name).toBe(`${PREFIX}-secrets`);
  });
});

describe('the chart with production values (HPA, Ingress, existingSecret)', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(['-f', PRODUCTION_VALUES]);
  });

  it('when a service autoscales, then it has an HPA and its Deployment leaves replicas to it', () => {
    const scaled = ofKind(manifests, 'HorizontalPodAutoscaler').map((h) => h.spec.scaleTargetRef.name).sort();
    expect(scaled).toEqual(['data', 'gateway', 'identity', 'oauth'].map((s) => `${PREFIX}-${s}`));
    for (const name of scaled) expect(named(manifests, 'Deployment', name).spec.replicas).toBeUndefined();
    expect(deployment(manifests, 'playground').spec.replicas).toBe(3);
  });

  it('when a service turns its PDB off, then only that one has none', () => {
    expect(ofKind(manifests, 'PodDisruptionBudget').map((p) => p.metadata.name).sort()).toEqual(
      ['data', 'gateway', 'identity', 'oauth'].map((s) => `${PREFIX}-${s}`),
    );
  });

  it('when the Ingress is on, then it routes to the gateway and the gateway trusts proxy headers', () => {
    const [ingress] = ofKind(manifests, 'Ingress');
    expect(ingress!.spec.rules[0].http.paths[0].backend.service).toEqual({ name: `${PREFIX}-gateway`, port: { name: 'http' } });
    expect(envOf(containerOf(manifests, 'gateway')).TRUST_PROXY?.value).toBe('true');
    expect(named(manifests, 'NetworkPolicy', `${PREFIX}-gateway`).spec.ingress[0].from).toEqual([
      { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
    ]);
  });

  it('when existingSecret is set, then no Secret is rendered and the pods read the named one', () => {
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    expect(envOf(containerOf(manifests, 'oauth')).REDIS_URL?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-secrets', key: 'REDIS_URL' });
  });
});

describe('secret values given to the chart', () => {
  const secrets: Record<string, string> = {
    MONGO_URL: 'mongodb://sandbox:Mongo-Pass-7f3a@mongo.example:27017/sandbox',
    REDIS_URL: 'redis://:Redis-Pass-91c2@redis.example:6379',
    CREDENTIAL_ENCRYPTION_KEY: 'q0vYhB3m7cJ2kX8pT4sN6wR1zL5fD9gA0eU3iO7yH2M',
    SESSION_SIGNING_KEY: 'Zt6Lq1Wd8Rf3Hn5Jb0Kc7Xv2Mp9Sg4Ya6Ue1Io8Py3A',
    PAGE_TOKEN_KEY: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
  };
  const setArgs = Object.entries(secrets).flatMap(([k, v]) => ['--set-string', `secrets.values.${k}=${v}`]);

  it('when rendered, then they appear only in the Secret, base64-encoded', () => {
    const manifests = render(setArgs);
    const secret = named(manifests, 'Secret', `${PREFIX}-secrets`);
    for (const [key, value] of Object.entries(secrets)) expect(Buffer.from(secret.data[key], 'base64').toString()).toBe(value);
    const elsewhere = JSON.stringify(manifests.filter((m) => m.kind !== 'Secret'));
    for (const value of Object.values(secrets)) expect(elsewhere).not.toContain(value);
  });

  it('when the install notes are rendered, then they name no secret value', () => {
    // helm template does not print NOTES.txt, so render it through tpl in a copy of the chart.
    const copy = mkdtempSync(join(tmpdir(), 'chart-notes-'));
    try {
      cpSync(CHART, copy, { recursive: true });
      cpSync(join(CHART, 'templates', 'NOTES.txt'), join(copy, 'notes.txt'));
      writeFileSync(
        join(copy, 'templates', 'zz-notes.yaml'),
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ tpl (.Files.Get "notes.txt") . | quote }}\n',
      );
      const notes = named(render(setArgs, copy), 'ConfigMap', 'notes').data.notes as string;
      expect(notes).toContain(`svc/${PREFIX}-gateway`);
      for (const value of Object.values(secrets)) expect(notes).not.toContain(value);
      expect(notes).not.toMatch(/mongodb:\/\/|redis:\/\//);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });
});

describe('the values schema', () => {
  it.each([
    ['an unknown key on a service', ['--set', 'services.gateway.bogus=1'], "additional properties 'bogus' not allowed"],
    ['an unknown top-level key', ['--set', 'bogus=1'], "additional properties 'bogus' not allowed"],
    ['an unknown key in the defaults', ['--set', 'defaults.hpa.bogus=1'], "additional properties 'bogus' not allowed"],
    ['a service the system does not have', ['--set', 'services.billing.port=1'], "additional properties 'billing' not allowed"],
    ['a key too short to be 32 bytes', ['--set', 'secrets.values.PAGE_TOKEN_KEY=short'], 'PAGE_TOKEN_KEY'],
    ['a MONGO_URL that is not a MongoDB URL', ['--set', 'secrets.values.MONGO_URL=http://x'], 'MONGO_URL'],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => {
    const { status, stderr } = helm(['template', RELEASE, CHART, ...args]);
    expect(status).not.toBe(0);
    expect(stderr).toContain(message);
  });

  it('when existingSecret and secret values are both given, then the render fails', () => {
    const { status, stderr } = helm(['template', RELEASE, CHART, '--set', 'secrets.existingSecret=s', '--set', `secrets.values.PAGE_TOKEN_KEY=${'ab'.repeat(32)}`]);
    expect(status).not.toBe(0);
    expect(stderr).toContain('not both');
  });

  it('when the grace period does not cover the drain, then the render fails', () => {
    const { status, stderr } = helm(['template', RELEASE, CHART, '--set', 'services.data.terminationGracePeriodSeconds=12']);
    expect(status).not.toBe(0);
    expect(stderr).toContain('services.data: terminationGracePeriodSeconds');
  });

  it('when every object in the schema is checked, then each closes its properties', () => {
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8'));
    const open: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.properties && n.additionalProperties !== false) open.push(path);
      for (const [key, child] of Object.entries(n)) walk(child, `${path}/${key}`);
    };
    walk(schema, '#');
    expect(open).toEqual([]);
  });
});
