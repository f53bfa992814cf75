import { spawn, spawnSync } from 'node:child_process';
import { createHash, createPrivateKey, generateKeyPairSync, X509Certificate } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { parseAllDocuments } from 'yaml';
import { peerIdentity } from '@sandbox/runtime';
import { eventually } from '@sandbox/testing';
import { SERVICE_NODE_ARGS } from '../../packages/launcher/src/node-options';
import { PROCESS_NAMES } from '../../packages/launcher/src/replicas';

// Renders the chart with the real helm (built into .tools by scripts/lib/helm.sh)
// and checks what a cluster would receive: hardening, probes, the network model,
// the in-cluster stores, generated keys, timeouts, metrics and the values
// schema; then validates every manifest against the Kubernetes API's schemas
// (kubernetes-validate, provisioned into .tools by scripts/lib/provision.sh).

const ROOT = resolve(__dirname, '..', '..');
const HELM = join(ROOT, '.tools', 'helm');
const CHART = join(ROOT, 'deploy', 'helm', 'training-sandbox');
const PRODUCTION_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'production-values.yaml');
const IN_CLUSTER_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'in-cluster-stores-values.yaml');
/** Names the image, which the chart requires; every render here starts from it (first, so later values win). */
const IMAGE_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'image-values.yaml');
const GITOPS_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'gitops-values.yaml');
const ESCAPE_HATCH_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'escape-hatches-values.yaml');
const CHART_DIGESTS = join(ROOT, 'deploy', 'helm', 'chart-digests.json');
const UPGRADING = join(CHART, 'UPGRADING.md');
const KUBERNETES_VALIDATE = join(ROOT, '.tools', 'kubernetes-validate', 'bin', 'kubernetes-validate');
/** The newest Kubernetes release kubernetes-validate ships schemas for (scripts/lib/provision.sh pins it). */
const KUBERNETES_VERSION = '1.37.0';
const RELEASE = 'ts';
const PREFIX = `${RELEASE}-training-sandbox`;
const GRPC_SERVICES = { identity: 50051, oauth: 50052, data: 50053, playground: 50054 } as const;
/** Each gRPC service's plaintext grpc.health.v1 port, for the kubelet's probes (values.yaml; compose uses the same). */
const HEALTH_PORTS = { identity: 50061, oauth: 50062, data: 50063, playground: 50064 } as const;
/** Where every process finds its certificate (GRPC_TLS_DIR). */
const GRPC_TLS_DIR = '/run/sandbox-tls';
const SERVICES = ['gateway', ...Object.keys(GRPC_SERVICES)] as const;
const SECRET_KEYS = ['MONGO_URL', 'REDIS_URL', 'CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'PAGE_TOKEN_KEY', 'JWT_SIGNING_KEY'];
const GENERATED_KEYS = ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'PAGE_TOKEN_KEY', 'JWT_SIGNING_KEY'];
const STORES = { mongodb: 27017, redis: 6379 } as const;
const METRICS_PORT = 9090;
/** The longest request the sandbox holds open: /playground/timeout's 60 s. */
const LONGEST_REQUEST_SECONDS = 60;

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

/**
 * Helm generates a 4096-bit RSA key for JWT_SIGNING_KEY whenever none is
 * given, which costs 0.2 to 1.3 s a render on this machine: most of this
 * file's time. So a render is given a 2048-bit key made once here, except in
 * the tests about the generated keys themselves (generatingTheSigningKey())
 * and where the test names the key itself.
 */
let signingKeyFile: string;
let signingKeyGenerated = false;
function generatingTheSigningKey(): void {
  beforeAll(() => (signingKeyGenerated = true));
  afterAll(() => (signingKeyGenerated = false));
}
/** Whether these values bring their own Secret (secrets.existingSecret), in which case the chart generates nothing. */
const bringsASecret = (args: string[]) =>
  args.some((arg, i) => arg.includes('existingSecret') || (args[i - 1] === '-f' && /^\s*existingSecret:\s*\S/m.test(readFileSync(arg, 'utf8'))));
const givenSigningKey = (args: string[]) =>
  signingKeyGenerated || bringsASecret(args) || args.some((arg) => arg.includes('JWT_SIGNING_KEY'))
    ? []
    : ['--set-file', `secrets.values.JWT_SIGNING_KEY=${signingKeyFile}`];

/** `helm template` as an operator would run it: with an image (IMAGE_VALUES) and the given values. */
function helmTemplate(args: string[], chart = CHART) {
  return helm(['template', RELEASE, chart, '--namespace', 'sandbox', '-f', IMAGE_VALUES, ...args, ...givenSigningKey(args)]);
}

/** The render fails, and its message names what was wrong. */
function expectRefused(args: string[], message: string): void {
  const { status, stderr } = helmTemplate(args);
  expect(status).not.toBe(0);
  expect(stderr).toContain(message);
}

function renderText(args: string[] = [], chart = CHART): string {
  const { status, stdout, stderr } = helmTemplate(args, chart);
  if (status !== 0) throw new Error(`helm template failed (${status}): ${stderr}`);
  return stdout;
}

/** kubernetes-validate --strict over rendered manifests: its exit status, ERROR lines, kinds without a schema (but the ServiceMonitor), and how many passed. */
function validateOffline(rendered: string, label: string, crds: string[] = []) {
  const file = join(helmHome, `rendered-${label.replace(/\W+/g, '-')}.yaml`);
  writeFileSync(file, rendered);
  const result = spawnSync(KUBERNETES_VALIDATE, ['--strict', '--kubernetes-version', KUBERNETES_VERSION, file], { encoding: 'utf8' });
  if (result.error) throw result.error;
  const lines = (result.stdout + result.stderr).split('\n');
  return {
    status: result.status,
    errors: lines.filter((line) => line.startsWith('ERROR')),
    unknown: lines.filter((line) => /Couldn't find schema/.test(line) && !['ServiceMonitor', ...crds].some((kind) => line.includes(`kind ${kind} `))),
    passed: lines.filter((line) => / passed for resource /.test(line)).length,
  };
}

function render(args: string[] = [], chart = CHART): Manifest[] {
  const documents = parseAllDocuments(renderText(args, chart));
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
/** Every pod template the chart renders: Deployments, StatefulSets and the `helm test` pod. */
const podSpecs = (manifests: Manifest[]): Array<{ name: string; pod: Manifest }> => [
  ...manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet').map((m) => ({ name: m.metadata.name, pod: m.spec.template.spec })),
  ...ofKind(manifests, 'Pod').map((m) => ({ name: m.metadata.name, pod: m.spec })),
];
const podAnnotations = (manifests: Manifest[], service: string): Record<string, string> =>
  deployment(manifests, service).spec.template.metadata.annotations ?? {};
const secretData = (manifests: Manifest[], name: string): Record<string, string> =>
  Object.fromEntries(Object.entries(named(manifests, 'Secret', name).data as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));
const containerOf = (manifests: Manifest[], service: string): Container => deployment(manifests, service).spec.template.spec.containers[0];
const envOf = (container: Container): Record<string, Manifest> => Object.fromEntries(container.env.map((e: Manifest) => [e.name, e]));
const componentSelector = (service: string) => ({
  'app.kubernetes.io/name': 'training-sandbox',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': service,
});
/**
 * Validates a ServiceMonitor against the prometheus-operator CRD's schema as
 * @kubernetes-models/prometheus-operator ships it (kubernetes-validate knows
 * only the core API). That package is ESM-only, so it runs in a child node.
 */
function serviceMonitorProblems(monitor: Manifest): string {
  const script = `
    import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    try { new ServiceMonitor(JSON.parse(input)).validate(); } catch (error) { console.log(error.message); }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input: JSON.stringify(monitor), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not run the ServiceMonitor validation: ${result.stderr}`);
  return result.stdout.trim();
}
const isSubset = (subset: Record<string, string>, of: Record<string, string>) => Object.entries(subset).every(([k, v]) => of[k] === v);

beforeAll(() => {
  helmHome = mkdtempSync(join(tmpdir(), 'helm-home-'));
  signingKeyFile = join(helmHome, 'jwt-signing-key.pem');
  writeFileSync(signingKeyFile, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  if (!existsSync(HELM)) {
    // First run on a fresh machine: build helm (minutes); afterwards a no-op.
    const built = spawnSync('bash', ['-c', 'source scripts/lib/helm.sh && ensure_helm'], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`could not build helm: ${built.stderr}`);
  }
  if (!existsSync(KUBERNETES_VALIDATE)) {
    const installed = spawnSync('bash', ['-c', 'source scripts/lib/provision.sh && ensure_kubernetes_validate'], { cwd: ROOT, encoding: 'utf8' });
    if (installed.status !== 0) throw new Error(`could not install kubernetes-validate: ${installed.stderr}`);
  }
}, 15 * 60_000);

afterAll(() => rmSync(helmHome, { recursive: true, force: true }));

describe.each([
  ['default values', [] as string[]],
  ['production values', ['-f', PRODUCTION_VALUES]],
  ['in-cluster stores values', ['-f', IN_CLUSTER_VALUES]],
])('the chart with %s', (_label, args) => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(args);
  });

  it('when linted strictly, then helm reports no problem', () => {
    const { status, stdout, stderr } = helm(['lint', '--strict', CHART, '-f', IMAGE_VALUES, ...args, ...givenSigningKey(args)]);
    expect({ status, output: stdout + stderr }).toEqual({ status: 0, output: expect.stringContaining('0 chart(s) failed') });
  });

  it('when rendered, then there is one Deployment and one Service per service', () => {
    expect(
      ofKind(manifests, 'Deployment')
        .map((d) => d.metadata.name)
        .sort(),
    ).toEqual(SERVICES.map((s) => `${PREFIX}-${s}`).sort());
    const services = ofKind(manifests, 'Service').map((d) => d.metadata.name);
    expect(services).toEqual(expect.arrayContaining(SERVICES.map((s) => `${PREFIX}-${s}`)));
  });

  it("when rendered, then each service runs node with the V8 options NODE_OPTIONS cannot carry, the launcher's", () => {
    for (const service of PROCESS_NAMES) {
      const [container] = deployment(manifests, service).spec.template.spec.containers;
      expect(container.command).toEqual(['node', ...SERVICE_NODE_ARGS[service], `/app/services/${service}/dist/main.js`]);
    }
  });

  it('when rendered, then every container (services, stores, the helm test pod) runs as non-root with a read-only root, no capabilities and no escalation', () => {
    const pods = podSpecs(manifests);
    expect(pods.length).toBeGreaterThanOrEqual(SERVICES.length + 1);
    for (const { pod } of pods) {
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
    for (const { pod } of podSpecs(manifests)) {
      for (const c of pod.containers) {
        expect({ name: c.name, resources: c.resources }).toMatchObject({
          resources: {
            requests: { cpu: expect.anything(), memory: expect.anything() },
            limits: { cpu: expect.anything(), memory: expect.anything() },
          },
        });
      }
    }
  });

  it('when rendered, then every gRPC service is probed over grpc.health.v1 on its plaintext health port (the gRPC port wants a client certificate)', () => {
    for (const [service, port] of Object.entries(GRPC_SERVICES)) {
      const c = containerOf(manifests, service);
      const healthPort = HEALTH_PORTS[service as keyof typeof HEALTH_PORTS];
      expect(c.ports.filter((p: Manifest) => p.name !== 'metrics')).toEqual([
        { name: 'grpc', containerPort: port, protocol: 'TCP' },
        { name: 'grpc-health', containerPort: healthPort, protocol: 'TCP' },
      ]);
      expect(envOf(c)[`${service.toUpperCase()}_HEALTH_PORT`]?.value).toBe(String(healthPort));
      for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
        // Every probe asks whether this replica answers and is not draining, whatever its store does (docs/deployment.md, Health).
        const healthName = 'liveness';
        expect({ service, probe, grpc: c[probe]?.grpc }).toEqual({ service, probe, grpc: { port: healthPort, service: healthName } });
      }
    }
  });

  it('when rendered, then no NetworkPolicy admits any pod to a health port (the kubelet probes from the node)', () => {
    const admitted = ofKind(manifests, 'NetworkPolicy').flatMap((p) =>
      (p.spec.ingress ?? []).flatMap((rule: Manifest) => (rule.ports ?? []).map((port: Manifest) => port.port)),
    );
    for (const port of Object.values(HEALTH_PORTS)) expect(admitted).not.toContain(port);
  });

  it('when rendered, then every process (the gateway too) talks mutual TLS with the certificate of its own Secret, mounted read-only at GRPC_TLS_DIR', () => {
    for (const service of SERVICES) {
      const pod = deployment(manifests, service).spec.template.spec;
      const env = envOf(pod.containers[0]);
      expect({ service, tls: env.GRPC_TLS?.value, dir: env.GRPC_TLS_DIR?.value }).toEqual({ service, tls: 'on', dir: GRPC_TLS_DIR });
      const volume = pod.volumes.find((v: Manifest) => v.name === 'grpc-tls');
      expect({ service, secret: volume?.secret?.secretName }).toEqual({ service, secret: expect.stringMatching(new RegExp(`-${service}-grpc-tls$`)) });
      expect(pod.containers[0].volumeMounts).toContainEqual({ name: 'grpc-tls', mountPath: GRPC_TLS_DIR, readOnly: true });
    }
  });

  it('when rendered, then the gateway is ready on /health/serving (not /health/ready: one backend down must not empty the Service) and alive on /health', () => {
    const c = containerOf(manifests, 'gateway');
    expect(c.readinessProbe.httpGet).toMatchObject({ path: '/health/serving', port: 'http' });
    expect(c.livenessProbe.httpGet).toMatchObject({ path: '/health', port: 'http' });
  });

  it('when rendered, then pods get longer to stop than the pre-stop pause plus their own drain', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      const pod = d.spec.template.spec;
      const pause = Number(pod.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      const drainSeconds = Number(envOf(pod.containers[0]).SHUTDOWN_GRACE_MS?.value) / 1000;
      expect(drainSeconds).toBeGreaterThanOrEqual(10);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(drainSeconds + pause);
    }
  });

  it('when a rollout stops the gateway or playground, then a 60 s request still finishes before the pod is killed', () => {
    for (const service of ['gateway', 'playground']) {
      const pod = deployment(manifests, service).spec.template.spec;
      const pause = Number(pod.containers[0].lifecycle?.preStop?.exec?.command?.[1] ?? 0);
      const drainSeconds = Number(envOf(pod.containers[0]).SHUTDOWN_GRACE_MS?.value) / 1000;
      expect({ service, drainSeconds }).toEqual({ service, drainSeconds: expect.any(Number) });
      expect(drainSeconds).toBeGreaterThan(LONGEST_REQUEST_SECONDS);
      expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(pause + drainSeconds);
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

  it('when rendered, then every caller carries its calls on streams, and grpcTransport=unary switches them all back', () => {
    const callers = ['gateway', 'oauth'];
    for (const service of ['gateway', ...Object.keys(GRPC_SERVICES)]) {
      expect({ service, transport: envOf(containerOf(manifests, service)).GRPC_TRANSPORT?.value }).toEqual({
        service,
        transport: callers.includes(service) ? 'stream' : undefined,
      });
    }
    const unary = render(['--set', 'grpcTransport=unary']);
    for (const service of callers) expect(envOf(containerOf(unary, service)).GRPC_TRANSPORT?.value).toBe('unary');
    expect(() => render(['--set', 'grpcTransport=http3'])).toThrow(/grpcTransport/);
  });

  it('when rendered, then secret values reach the pods only through secretKeyRef', () => {
    for (const d of ofKind(manifests, 'Deployment')) {
      for (const e of d.spec.template.spec.containers[0].env) {
        if (SECRET_KEYS.includes(e.name)) expect({ name: e.name, ref: e.valueFrom?.secretKeyRef?.key }).toEqual({ name: e.name, ref: e.name });
      }
    }
    const wanted = {
      identity: ['MONGO_URL', 'REDIS_URL', 'CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY'],
      oauth: ['REDIS_URL', 'JWT_SIGNING_KEY'],
      data: ['PAGE_TOKEN_KEY'],
      gateway: ['REDIS_URL'],
    };
    for (const [service, keys] of Object.entries(wanted)) {
      const env = envOf(containerOf(manifests, service));
      for (const key of keys)
        expect({ service, key, ref: env[key]?.valueFrom?.secretKeyRef }).toEqual({ service, key, ref: { name: expect.any(String), key } });
    }
    // The gateway reads only the store URL of its fair-share counts; no key.
    expect(
      containerOf(manifests, 'gateway')
        .env.filter((e: Manifest) => e.valueFrom)
        .map((e: Manifest) => e.name),
    ).toEqual(['REDIS_URL']);
    expect(containerOf(manifests, 'playground').env.filter((e: Manifest) => e.valueFrom)).toEqual([]);
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
    expect(policy.spec.ingress.filter((rule: Manifest) => rule.ports.some((p: Manifest) => p.port !== METRICS_PORT))).toEqual([
      {
        from: [{ podSelector: { matchLabels: componentSelector('gateway') } }, { podSelector: { matchLabels: componentSelector('oauth') } }],
        ports: [{ port: 50051, protocol: 'TCP' }],
      },
    ]);
  });

  it('when rendered, then oauth, data and playground admit only the gateway', () => {
    for (const service of ['oauth', 'data', 'playground'] as const) {
      const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`);
      expect(policy.spec.ingress.filter((rule: Manifest) => rule.ports.some((p: Manifest) => p.port !== METRICS_PORT))).toEqual([
        { from: [{ podSelector: { matchLabels: componentSelector('gateway') } }], ports: [{ port: GRPC_SERVICES[service], protocol: 'TCP' }] },
      ]);
    }
  });

  it('when rendered, then each service may reach only DNS, its named peers and its stores', () => {
    const peerTargets = (service: string) =>
      named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`)
        .spec.egress.flatMap((rule: Manifest) => (rule.to ?? []).map((peer: Manifest) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component']))
        .filter((c: string | undefined) => c !== undefined && (SERVICES as readonly string[]).includes(c))
        .sort();
    expect(peerTargets('gateway')).toEqual(['data', 'identity', 'oauth', 'playground']);
    expect(peerTargets('oauth')).toEqual(['identity']);
    for (const service of ['identity', 'data', 'playground']) expect(peerTargets(service)).toEqual([]);
    const egressPorts = (service: string) =>
      named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`)
        .spec.egress.flatMap((rule: Manifest) => rule.ports.map((p: Manifest) => `${p.protocol}/${p.port}`))
        .sort();
    expect(egressPorts('data')).toEqual(['TCP/53', 'UDP/53']);
    // gateway: its peers, and (stores not in memory) Redis for the fair-share counts.
    expect(egressPorts('gateway')).toEqual(expect.arrayContaining(['TCP/50051', 'TCP/50054', 'TCP/53', 'TCP/6379', 'UDP/53']));
    expect(egressPorts('oauth')).toEqual(['TCP/50051', 'TCP/53', 'TCP/6379', 'UDP/53']);
    // identity: MongoDB for its records, Redis for the sign-in throttle's shared counts.
    expect(egressPorts('identity')).toEqual(expect.arrayContaining(['TCP/27017', 'TCP/53', 'TCP/6379', 'UDP/53']));
  });

  it('when rendered, then every Deployment that is not autoscaled has a PDB allowing one pod down at a time', () => {
    for (const pdb of ofKind(manifests, 'PodDisruptionBudget')) expect(pdb.spec.maxUnavailable).toBe(1);
  });

  it('when rendered, then every service serves metrics on its own port, announced for scraping, and no traffic Service or Ingress routes to it', () => {
    for (const service of SERVICES) {
      const c = containerOf(manifests, service);
      expect(c.ports).toContainEqual({ name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' });
      const prefix = service === 'gateway' ? '' : `${service.toUpperCase()}_`;
      expect({ service, port: envOf(c)[`${prefix}METRICS_PORT`]?.value, host: envOf(c)[`${prefix}METRICS_HOST`]?.value }).toEqual({
        service,
        port: String(METRICS_PORT),
        host: '0.0.0.0',
      });
      expect(podAnnotations(manifests, service)).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(METRICS_PORT),
        'prometheus.io/path': '/metrics',
      });
      expect(named(manifests, 'Service', `${PREFIX}-${service}`).spec.ports.map((p: Manifest) => p.targetPort)).not.toContain('metrics');
    }
    const metrics = named(manifests, 'Service', `${PREFIX}-metrics`);
    expect(metrics.spec).toMatchObject({ clusterIP: 'None', ports: [{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }] });
    const selected = ofKind(manifests, 'Deployment')
      .concat(ofKind(manifests, 'StatefulSet'))
      .filter((d) => isSubset(metrics.spec.selector, d.spec.template.metadata.labels))
      .map((d) => d.metadata.name)
      .sort();
    expect(selected).toEqual(SERVICES.map((s) => `${PREFIX}-${s}`).sort());
    for (const ingress of ofKind(manifests, 'Ingress')) {
      for (const rule of ingress.spec.rules)
        for (const path of rule.http.paths) expect(path.backend.service).toEqual({ name: `${PREFIX}-gateway`, port: { name: 'http' } });
    }
  });

  it('when rendered, then each service admits the scraper on the metrics port only, and nobody else there', () => {
    for (const service of SERVICES) {
      const rules = named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.ingress as Manifest[];
      const onMetrics = rules.filter((rule) => rule.ports.some((p: Manifest) => p.port === METRICS_PORT));
      expect(onMetrics).toEqual([
        {
          ports: [{ port: METRICS_PORT, protocol: 'TCP' }],
          from: [
            {
              namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
              podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
            },
          ],
        },
      ]);
    }
  });

  it('when validated offline against the Kubernetes API schemas, then every manifest is valid (strict: no unknown field)', () => {
    const { status, errors, unknown, passed } = validateOffline(renderText(args), _label);
    expect({ status, errors }).toEqual({ status: 0, errors: [] });
    // Every kind the chart renders has a schema there, except the operator's ServiceMonitor (checked below).
    expect(unknown).toEqual([]);
    expect(passed).toBe(manifests.filter((m) => m.kind !== 'ServiceMonitor').length);
  });
});

describe('the chart with default values', () => {
  generatingTheSigningKey();
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render();
  });

  it('when rendered, then there is no HPA, no Ingress and no ServiceMonitor, every service has a PDB, and the gateway does not trust proxy headers', () => {
    expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
    expect(ofKind(manifests, 'Ingress')).toEqual([]);
    expect(ofKind(manifests, 'ServiceMonitor')).toEqual([]);
    expect(ofKind(manifests, 'PodDisruptionBudget')).toHaveLength(5);
    expect(envOf(containerOf(manifests, 'gateway')).TRUST_PROXY?.value).toBe('false');
  });

  it('when no key is given, then each is generated: 32 random bytes, and an RSA private key for JWT_SIGNING_KEY', () => {
    const keys = secretData(manifests, `${PREFIX}-secrets`);
    expect(Object.keys(keys).sort()).toEqual([...GENERATED_KEYS].sort());
    for (const key of ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'PAGE_TOKEN_KEY']) {
      // The services decode keys as hex or base64 (runtime's decodeKey); 32 bytes at least.
      expect({ key, bytes: Buffer.from(keys[key]!, 'base64url').length }).toEqual({ key, bytes: 32 });
    }
    const jwtKey = createPrivateKey(keys.JWT_SIGNING_KEY!);
    expect(jwtKey.asymmetricKeyType).toBe('rsa');
    expect(jwtKey.asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);
    const secret = named(manifests, 'Secret', `${PREFIX}-secrets`);
    expect(secret.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
  });

  it('when rendered twice with no cluster to look in, then the generated keys differ (they are random, not fixed in the chart)', () => {
    const again = secretData(render(), `${PREFIX}-secrets`);
    const first = secretData(manifests, `${PREFIX}-secrets`);
    for (const key of GENERATED_KEYS) expect({ key, same: again[key] === first[key] }).toEqual({ key, same: false });
  });
});

describe('generated keys across an upgrade (lookup simulated)', () => {
  generatingTheSigningKey();
  // helm template cannot reach a cluster, so `lookup` finds nothing. The chart
  // reads the cluster only in templates/_lookup.tpl; a copy of the chart gets
  // a version of that file that answers with the Secrets the first render
  // produced, as the cluster would hold them after the install.
  let copy: string;
  let installed: Manifest[];
  let upgraded: Manifest[];
  let upgradedAgain: Manifest[];
  beforeAll(() => {
    installed = render();
    const recorded = Object.fromEntries(ofKind(installed, 'Secret').map((s) => [s.metadata.name, s.data]));
    copy = mkdtempSync(join(tmpdir(), 'chart-lookup-'));
    cpSync(CHART, copy, { recursive: true });
    writeFileSync(join(copy, 'recorded-secrets.json'), JSON.stringify(recorded));
    writeFileSync(
      join(copy, 'templates', '_lookup.tpl'),
      '{{- define "ts.clusterSecretData" -}}\n{{- toYaml (index (.root.Files.Get "recorded-secrets.json" | fromJson) .name | default dict) -}}\n{{- end -}}\n',
    );
    upgraded = render([], copy);
    upgradedAgain = render([], copy);
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('when the chart is upgraded, then every generated key and store password is kept', () => {
    for (const name of [`${PREFIX}-secrets`, `${PREFIX}-stores`]) expect(secretData(upgraded, name)).toEqual(secretData(installed, name));
  });

  it('when the chart is upgraded twice with nothing changed, then no pod annotation changes, so nothing restarts', () => {
    const annotations = (manifests: Manifest[]) =>
      manifests.filter((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet').map((m) => [m.metadata.name, m.spec.template.metadata.annotations]);
    expect(annotations(upgradedAgain)).toEqual(annotations(upgraded));
    expect(annotations(upgraded)).toEqual(annotations(installed));
  });

  it("when the chart is upgraded, then the CA and every process's certificate are kept", () => {
    const tlsSecrets = ofKind(installed, 'Secret')
      .filter((secret) => secret.type === 'kubernetes.io/tls')
      .map((secret) => secret.metadata.name);
    // The CA, each process's and the operators' CLI's.
    expect(tlsSecrets).toHaveLength(SERVICES.length + 2);
    for (const name of tlsSecrets) expect({ name, data: named(upgraded, 'Secret', name).data }).toEqual({ name, data: named(installed, 'Secret', name).data });
  });

  it("when one process's certificate Secret is gone at the upgrade, then a new one is made from the kept CA and only that process's pods roll", () => {
    const recorded = JSON.parse(readFileSync(join(copy, 'recorded-secrets.json'), 'utf8')) as Record<string, unknown>;
    const lost = mkdtempSync(join(tmpdir(), 'chart-lookup-lost-'));
    try {
      cpSync(copy, lost, { recursive: true });
      delete recorded[`${PREFIX}-data-grpc-tls`];
      writeFileSync(join(lost, 'recorded-secrets.json'), JSON.stringify(recorded));
      const reissued = render([], lost);
      const data = secretData(reissued, `${PREFIX}-data-grpc-tls`);
      const before = secretData(installed, `${PREFIX}-data-grpc-tls`);
      expect(data['tls.crt']).not.toBe(before['tls.crt']);
      expect(data['ca.crt']).toBe(before['ca.crt']);
      expect(new X509Certificate(data['tls.crt']!).verify(new X509Certificate(data['ca.crt']!).publicKey)).toBe(true);
      expect(podAnnotations(reissued, 'data')['checksum/grpc-tls']).not.toBe(podAnnotations(upgraded, 'data')['checksum/grpc-tls']);
      for (const service of SERVICES.filter((s) => s !== 'data')) expect(podAnnotations(reissued, service)).toEqual(podAnnotations(upgraded, service));
    } finally {
      rmSync(lost, { recursive: true, force: true });
    }
  });

  it('when a key is then given in the values, then it replaces the kept one and only the pods reading it roll', () => {
    const given = render(['--set-string', `secrets.values.PAGE_TOKEN_KEY=${'cd'.repeat(32)}`], copy);
    expect(secretData(given, `${PREFIX}-secrets`).PAGE_TOKEN_KEY).toBe('cd'.repeat(32));
    expect(secretData(given, `${PREFIX}-secrets`).SESSION_SIGNING_KEY).toBe(secretData(installed, `${PREFIX}-secrets`).SESSION_SIGNING_KEY);
    expect(podAnnotations(given, 'data')['checksum/secrets']).not.toBe(podAnnotations(upgraded, 'data')['checksum/secrets']);
    for (const service of ['identity', 'oauth'])
      expect(podAnnotations(given, service)['checksum/secrets']).toBe(podAnnotations(upgraded, service)['checksum/secrets']);
  });
});

describe('the chart with its in-cluster stores (the default)', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render();
  });

  it('when rendered, then MongoDB and Redis run as single-replica StatefulSets on persistent volumes kept after uninstall', () => {
    expect(
      ofKind(manifests, 'StatefulSet')
        .map((s) => s.metadata.name)
        .sort(),
    ).toEqual([`${PREFIX}-mongodb`, `${PREFIX}-redis`]);
    for (const [store, port] of Object.entries(STORES)) {
      const set = named(manifests, 'StatefulSet', `${PREFIX}-${store}`);
      expect(set.spec).toMatchObject({ replicas: 1, serviceName: `${PREFIX}-${store}`, persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain' } });
      expect(set.spec.volumeClaimTemplates).toEqual([expect.objectContaining({ metadata: expect.objectContaining({ name: 'data' }) })]);
      expect(set.spec.volumeClaimTemplates[0].spec.resources.requests.storage).toMatch(/Gi$/);
      const c = set.spec.template.spec.containers[0];
      expect(c.ports).toEqual([{ name: store, containerPort: port, protocol: 'TCP' }]);
      expect(c.volumeMounts).toContainEqual(expect.objectContaining({ name: 'data' }));
      expect(c.readinessProbe.exec.command.join(' ')).toMatch(store === 'mongodb' ? /mongosh .*ping/ : /redis-cli .*ping/);
      expect(named(manifests, 'Service', `${PREFIX}-${store}`).spec).toMatchObject({ clusterIP: 'None', ports: [{ port, targetPort: store }] });
    }
  });

  it('when rendered, then the stores require a password kept in the stores Secret, never on a command line', () => {
    const stores = secretData(manifests, `${PREFIX}-stores`);
    const mongo = named(manifests, 'StatefulSet', `${PREFIX}-mongodb`).spec.template.spec.containers[0];
    expect(envOf(mongo).MONGO_INITDB_ROOT_PASSWORD?.valueFrom.secretKeyRef).toEqual({ name: `${PREFIX}-stores`, key: 'mongodb-password' });
    const redis = named(manifests, 'StatefulSet', `${PREFIX}-redis`).spec.template.spec.containers[0];
    expect(redis.command).toEqual(['redis-server', '/etc/redis/redis.conf']);
    expect(stores['redis.conf']).toContain(`requirepass ${stores['redis-password']}`);
    expect(stores['redis.conf']).toContain('maxmemory-policy noeviction');
    expect(stores['mongodb-password']).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(stores['redis-password']).toMatch(/^[A-Za-z0-9]{32}$/);
    const elsewhere = JSON.stringify(manifests.filter((m) => m.kind !== 'Secret'));
    for (const password of [stores['mongodb-password']!, stores['redis-password']!]) expect(elsewhere).not.toContain(password);
  });

  it("when rendered, then identity and oauth read URLs that reach the chart's stores with those passwords", () => {
    const stores = secretData(manifests, `${PREFIX}-stores`);
    expect(new URL(stores.MONGO_URL!)).toMatchObject({ protocol: 'mongodb:', hostname: `${PREFIX}-mongodb`, port: '27017', pathname: '/training-sandbox' });
    expect(decodeURIComponent(new URL(stores.MONGO_URL!).password)).toBe(stores['mongodb-password']);
    expect(new URL(stores.REDIS_URL!)).toMatchObject({ protocol: 'redis:', hostname: `${PREFIX}-redis`, port: '6379' });
    expect(decodeURIComponent(new URL(stores.REDIS_URL!).password)).toBe(stores['redis-password']);
    for (const [service, keys] of [
      ['identity', ['MONGO_URL', 'REDIS_URL']],
      ['oauth', ['REDIS_URL']],
      ['gateway', ['REDIS_URL']],
    ] as const) {
      for (const key of keys) expect(envOf(containerOf(manifests, service))[key]?.valueFrom.secretKeyRef).toEqual({ name: `${PREFIX}-stores`, key });
    }
  });

  it('when rendered, then MongoDB admits only identity and Redis only the gateway, identity and oauth, and neither reaches anything', () => {
    const callers = { mongodb: ['identity'], redis: ['gateway', 'identity', 'oauth'] };
    for (const [store, port] of Object.entries(STORES)) {
      const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-${store}`);
      expect(policy.spec.podSelector.matchLabels).toEqual(componentSelector(store));
      expect(policy.spec.policyTypes.sort()).toEqual(['Egress', 'Ingress']);
      expect(policy.spec.egress ?? []).toEqual([]);
      expect(policy.spec.ingress).toEqual([
        {
          from: callers[store as keyof typeof callers].map((c) => ({ podSelector: { matchLabels: componentSelector(c) } })),
          ports: [{ port, protocol: 'TCP' }],
        },
      ]);
    }
  });

  it('when rendered, then the gateway, identity and oauth may reach the store pods on the store ports only', () => {
    const storeEgress = (service: string) =>
      (named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.egress as Manifest[])
        .filter((rule) => (rule.to ?? []).some((peer: Manifest) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component'] in STORES))
        .map((rule) => ({ to: rule.to[0].podSelector.matchLabels['app.kubernetes.io/component'], ports: rule.ports }));
    expect(storeEgress('identity')).toEqual([
      { to: 'mongodb', ports: [{ port: 27017, protocol: 'TCP' }] },
      { to: 'redis', ports: [{ port: 6379, protocol: 'TCP' }] },
    ]);
    expect(storeEgress('oauth')).toEqual([{ to: 'redis', ports: [{ port: 6379, protocol: 'TCP' }] }]);
    expect(storeEgress('gateway')).toEqual([{ to: 'redis', ports: [{ port: 6379, protocol: 'TCP' }] }]);
    // No rule open to any address on a store port.
    for (const service of ['gateway', 'identity', 'oauth']) {
      for (const rule of named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.egress) expect(rule.to).toBeDefined();
    }
  });
});

describe('stores brought by the team (stores.mode external) or none (memory)', () => {
  it('when external, then no store is rendered and the services read MONGO_URL and REDIS_URL from the keys Secret', () => {
    const manifests = render(['-f', PRODUCTION_VALUES]);
    expect(ofKind(manifests, 'StatefulSet')).toEqual([]);
    expect(envOf(containerOf(manifests, 'identity')).MONGO_URL?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-secrets', key: 'MONGO_URL' });
    expect(envOf(containerOf(manifests, 'oauth')).REDIS_URL?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-secrets', key: 'REDIS_URL' });
  });

  it('when memory, then no store, no store URL and no store egress are rendered, and keys are still generated for every replica to share', () => {
    const manifests = render(['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1', '--set', 'services.data.replicas=3']);
    expect(ofKind(manifests, 'StatefulSet')).toEqual([]);
    // The keys, and the certificates of mutual TLS between the processes; nothing for stores.
    expect(
      ofKind(manifests, 'Secret')
        .filter((s) => s.type !== 'kubernetes.io/tls')
        .map((s) => s.metadata.name),
    ).toEqual([`${PREFIX}-secrets`]);
    for (const service of ['gateway', 'identity', 'oauth']) {
      const env = envOf(containerOf(manifests, service));
      expect({ service, mongo: env.MONGO_URL, redis: env.REDIS_URL }).toEqual({ service, mongo: undefined, redis: undefined });
      const ports = named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.egress.flatMap((r: Manifest) => r.ports.map((p: Manifest) => p.port));
      expect(ports).not.toContain(27017);
      expect(ports).not.toContain(6379);
    }
    expect(deployment(manifests, 'data').spec.replicas).toBe(3);
    expect(envOf(containerOf(manifests, 'data')).PAGE_TOKEN_KEY?.valueFrom.secretKeyRef.name).toBe(`${PREFIX}-secrets`);
  });
});

describe("the gateway's fair-share limits", () => {
  const plain = (manifests: Manifest[]) =>
    Object.fromEntries(Object.entries(envOf(containerOf(manifests, 'gateway'))).map(([name, e]) => [name, e.value ?? e.valueFrom]));

  it("when rendered with the chart's values, then each app gets 50 requests a second with bursts of 100, each address its own budget, slow requests are capped, and the counts are in Redis", () => {
    const env = plain(render());
    expect(env).toMatchObject({
      RATE_LIMIT_APP_PER_SECOND: '50',
      RATE_LIMIT_APP_BURST: '100',
      RATE_LIMIT_ADDRESS_PER_SECOND: '200',
      RATE_LIMIT_ADDRESS_BURST: '400',
      RATE_LIMIT_EXEMPT_APPS: '',
      RATE_LIMIT_APP_OVERRIDES: '',
      SLOW_REQUESTS_PER_APP: '10',
      SLOW_REQUESTS_PER_ADDRESS: '100',
      REDIS_URL: { secretKeyRef: { name: `${PREFIX}-stores`, key: 'REDIS_URL' } },
    });
  });

  it("when an operator exempts an app and raises another's limit, then the gateway reads both, rates as the processes parse them", () => {
    const dir = mkdtempSync(join(tmpdir(), 'rate-limits-'));
    const values = join(dir, 'values.yaml');
    writeFileSync(
      values,
      [
        'gateway:',
        '  rateLimits:',
        '    exemptApps: [app_loadtestloadtestloadte]',
        '    appOverrides:',
        '      app_AAAAAAAAAAAAAAAAAAAAAA: {perSecond: 0.5, burst: 3}',
        '      app_BBBBBBBBBBBBBBBBBBBBBB: {perSecond: 1000000, burst: 2000000}',
        '',
      ].join('\n'),
    );
    try {
      expect(plain(render(['-f', values]))).toMatchObject({
        RATE_LIMIT_EXEMPT_APPS: 'app_loadtestloadtestloadte',
        RATE_LIMIT_APP_OVERRIDES: 'app_AAAAAAAAAAAAAAAAAAAAAA=0.5:3,app_BBBBBBBBBBBBBBBBBBBBBB=1000000:2000000',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['an exempt app that is not an App ID', ['--set', 'gateway.rateLimits.exemptApps={load-test}'], '/gateway/rateLimits/exemptApps/0'],
    ['a negative burst', ['--set', 'gateway.rateLimits.app.burst=-1'], '/gateway/rateLimits/app/burst'],
    ['an unknown key', ['--set', 'gateway.rateLimits.perMinute=1'], "additional properties 'perMinute' not allowed"],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));
});

describe('single sign-on (sso.*)', () => {
  const sso = [
    '--set',
    'sso.clientId=training-sandbox',
    '--set',
    'sso.issuer=https://login.campus.example',
    '--set',
    'sso.jwksUrl=https://login.campus.example/jwks',
    '--set',
    'sso.providerName=Campus login',
  ];
  const plain = (manifests: Manifest[], service: string) =>
    Object.fromEntries(Object.entries(envOf(containerOf(manifests, service))).map(([name, e]) => [name, e.value ?? e.valueFrom]));

  it('when off (the default), then no process hears of it and no key is generated for it', () => {
    const manifests = render();
    for (const service of ['gateway', 'identity'])
      expect(Object.keys(plain(manifests, service)).filter((name) => /^(SSO_|EXTERNAL_IDP_)/.test(name))).toEqual([]);
    expect(Object.keys(secretData(manifests, `${PREFIX}-secrets`))).not.toContain('SSO_COOKIE_KEY');
  });

  it('when on, then the gateway signs in as the client with a generated cookie key, identity trusts the issuer with the client id as audience, and both may reach it on 443', () => {
    const manifests = render(sso);
    expect(plain(manifests, 'gateway')).toMatchObject({
      EXTERNAL_IDP_ISSUER: 'https://login.campus.example',
      SSO_CLIENT_ID: 'training-sandbox',
      SSO_PROVIDER_NAME: 'Campus login',
      SSO_SCOPES: 'openid email profile',
      SSO_COOKIE_KEY: { secretKeyRef: { name: `${PREFIX}-secrets`, key: 'SSO_COOKIE_KEY' } },
    });
    expect(plain(manifests, 'gateway').SSO_CLIENT_SECRET).toBeUndefined();
    expect(plain(manifests, 'identity')).toMatchObject({
      EXTERNAL_IDP_ISSUER: 'https://login.campus.example',
      EXTERNAL_IDP_JWKS_URL: 'https://login.campus.example/jwks',
      EXTERNAL_IDP_AUDIENCE: 'training-sandbox',
    });
    expect(Buffer.from(secretData(manifests, `${PREFIX}-secrets`).SSO_COOKIE_KEY!, 'base64')).toHaveLength(32);
    for (const service of ['gateway', 'identity']) {
      const egress = named(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.egress;
      expect(egress).toContainEqual({ ports: [{ port: 443, protocol: 'TCP' }] });
    }
    expect(named(manifests, 'NetworkPolicy', `${PREFIX}-data`).spec.egress).not.toContainEqual({ ports: [{ port: 443, protocol: 'TCP' }] });
  });

  it('when a client secret is given, then it is in the Secret and the gateway reads it (optional, so a Secret you manage may leave it out)', () => {
    const manifests = render([...sso, '--set', 'secrets.values.SSO_CLIENT_SECRET=a-client-secret']);
    expect(secretData(manifests, `${PREFIX}-secrets`).SSO_CLIENT_SECRET).toBe('a-client-secret');
    expect(plain(manifests, 'gateway').SSO_CLIENT_SECRET).toEqual({ secretKeyRef: { name: `${PREFIX}-secrets`, key: 'SSO_CLIENT_SECRET', optional: true } });
  });

  it.each([
    ['a client id without the issuer and key set', ['--set', 'sso.clientId=x'], '/sso/issuer'],
    ['an http issuer', [...sso, '--set', 'sso.issuer=http://login.campus.example'], '/sso/issuer'],
    ['scopes without openid', [...sso, '--set', 'sso.scopes=email profile'], '/sso/scopes'],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));
});

describe('the chart with production values (HPA, Ingress, existingSecret)', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(['-f', PRODUCTION_VALUES]);
  });

  it('when a service autoscales, then it has an HPA and its Deployment leaves replicas to it', () => {
    const scaled = ofKind(manifests, 'HorizontalPodAutoscaler')
      .map((h) => h.spec.scaleTargetRef.name)
      .sort();
    expect(scaled).toEqual(['data', 'gateway', 'identity', 'oauth'].map((s) => `${PREFIX}-${s}`));
    for (const name of scaled) expect(named(manifests, 'Deployment', name).spec.replicas).toBeUndefined();
    expect(deployment(manifests, 'playground').spec.replicas).toBe(3);
  });

  it('when a service turns its PDB off, then only that one has none', () => {
    expect(
      ofKind(manifests, 'PodDisruptionBudget')
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['data', 'gateway', 'identity', 'oauth'].map((s) => `${PREFIX}-${s}`));
  });

  it('when the Ingress is on, then it routes to the gateway, the gateway trusts proxy headers, and only the controller and the helm test pod reach it', () => {
    const [ingress] = ofKind(manifests, 'Ingress');
    expect(ingress!.spec.rules[0].http.paths[0].backend.service).toEqual({ name: `${PREFIX}-gateway`, port: { name: 'http' } });
    expect(envOf(containerOf(manifests, 'gateway')).TRUST_PROXY?.value).toBe('true');
    expect(named(manifests, 'NetworkPolicy', `${PREFIX}-gateway`).spec.ingress[0]).toEqual({
      ports: [{ port: 8080, protocol: 'TCP' }],
      from: [
        { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } },
        { podSelector: { matchLabels: componentSelector('smoke-test') } },
      ],
    });
  });

  it('when existingSecret is set, then no keys Secret is rendered (only the generated certificates) and the pods read the named one', () => {
    expect(ofKind(manifests, 'Secret').filter((s) => s.type !== 'kubernetes.io/tls')).toEqual([]);
    expect(envOf(containerOf(manifests, 'oauth')).REDIS_URL?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-secrets', key: 'REDIS_URL' });
    expect(envOf(containerOf(manifests, 'oauth')).JWT_SIGNING_KEY?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-secrets', key: 'JWT_SIGNING_KEY' });
  });

  it("when the ServiceMonitor is on, then it selects the metrics Service, scrapes its metrics port and names each process, and its labels are the operator's selector", () => {
    const [monitor] = ofKind(manifests, 'ServiceMonitor');
    const metrics = named(manifests, 'Service', `${PREFIX}-metrics`);
    expect(isSubset(monitor!.spec.selector.matchLabels, metrics.metadata.labels)).toBe(true);
    expect(monitor!.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(monitor!.spec.namespaceSelector).toEqual({ matchNames: ['sandbox'] });
    expect(monitor!.spec.endpoints).toEqual([
      expect.objectContaining({ port: 'metrics', path: '/metrics', relabelings: [expect.objectContaining({ targetLabel: 'component' })] }),
    ]);
  });

  it("when the ServiceMonitor is checked against the operator's schema, then it is valid, and a broken one is not", () => {
    const [monitor] = ofKind(manifests, 'ServiceMonitor');
    expect(serviceMonitorProblems(monitor!)).toBe('');
    const broken = structuredClone(monitor!);
    broken.spec.endpoints[0].interval = 'every minute';
    expect(serviceMonitorProblems(broken)).toContain('interval');
  });
});

describe('long requests and large bodies through an Ingress', () => {
  const ingressAnnotations = (args: string[]) =>
    ofKind(render(['--set', 'ingress.enabled=true', ...args]), 'Ingress')[0]!.metadata.annotations as Record<string, string>;

  it.each([
    [
      'ingress-nginx',
      {
        'nginx.ingress.kubernetes.io/proxy-read-timeout': '75',
        'nginx.ingress.kubernetes.io/proxy-send-timeout': '75',
        'nginx.ingress.kubernetes.io/proxy-body-size': '32m',
        'nginx.ingress.kubernetes.io/proxy-request-buffering': 'off',
      },
    ],
    ['nginx', { 'nginx.org/proxy-read-timeout': '75s', 'nginx.org/client-max-body-size': '32m' }],
    ['haproxy', { 'haproxy.org/timeout-server': '75s' }],
    ['alb', { 'alb.ingress.kubernetes.io/load-balancer-attributes': 'idle_timeout.timeout_seconds=75' }],
  ])('when the controller is %s, then the Ingress carries a read timeout above 60 s and a body limit above 25 MiB where it has one', (controller, expected) => {
    expect(ingressAnnotations(['--set', `ingress.controller=${controller}`])).toMatchObject(expected);
  });

  it('when the controller is traefik or none, then no controller annotation is added', () => {
    for (const controller of ['traefik', 'none']) expect(ingressAnnotations(['--set', `ingress.controller=${controller}`]) ?? {}).toEqual({});
  });

  it('when the team sets an annotation itself, then theirs wins', () => {
    const annotations = ingressAnnotations(['--set-string', 'ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/proxy-read-timeout=300']);
    expect(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']).toBe('300');
  });
});

describe('the helm test pod', () => {
  let manifests: Manifest[];
  beforeAll(() => {
    manifests = render(['-f', IN_CLUSTER_VALUES]);
  });

  it('when rendered, then it is a test hook that runs the smoke test against the gateway Service, from the same image', () => {
    const pod = named(manifests, 'Pod', `${PREFIX}-smoke-test`);
    expect(pod.metadata.annotations['helm.sh/hook']).toBe('test');
    expect(pod.spec.restartPolicy).toBe('Never');
    const c = pod.spec.containers[0];
    expect(c.image).toBe(containerOf(manifests, 'gateway').image);
    // The in-cluster fixture has the gateway serve TLS itself.
    expect(c.command).toEqual(['node', '/app/deploy/docker/smoke-test.cjs', `https://${PREFIX}-gateway:80`]);
    expect(existsSync(join(ROOT, 'deploy', 'docker', 'smoke-test.cjs'))).toBe(true);
  });

  it("when rendered, then its policy lets it reach only DNS and the gateway's port", () => {
    const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-smoke-test`);
    expect(policy.spec.podSelector.matchLabels).toEqual(componentSelector('smoke-test'));
    expect(policy.spec.ingress ?? []).toEqual([]);
    const targets = policy.spec.egress.map((rule: Manifest) => ({
      to: rule.to[0].podSelector.matchLabels,
      ports: rule.ports.map((p: Manifest) => `${p.protocol}/${p.port}`),
    }));
    expect(targets).toEqual([
      { to: { 'k8s-app': 'kube-dns' }, ports: ['UDP/53', 'TCP/53'] },
      { to: componentSelector('gateway'), ports: ['TCP/8080'] },
    ]);
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
  // Store URLs are the team's own only with stores.mode external.
  const setArgs = ['--set', 'stores.mode=external', ...Object.entries(secrets).flatMap(([k, v]) => ['--set-string', `secrets.values.${k}=${v}`])];

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

describe('the offline validation itself', () => {
  it('when a manifest has a field the Kubernetes API does not know, or a wrong type, then kubernetes-validate refuses it', () => {
    const manifests = render();
    const broken = structuredClone(deployment(manifests, 'data'));
    broken.spec.template.spec.containers[0].readinessProbe.grpcc = broken.spec.template.spec.containers[0].readinessProbe.grpc;
    broken.spec.replicas = 'two';
    const file = join(helmHome, 'broken.yaml');
    writeFileSync(file, JSON.stringify(broken));
    const result = spawnSync(KUBERNETES_VALIDATE, ['--strict', '--kubernetes-version', KUBERNETES_VERSION, file], { encoding: 'utf8' });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toMatch(/ERROR .*(grpcc|replicas)/);
  });
});

describe('the values schema', () => {
  it("when a service's nodeArgs are set, then its node gets them, and a value that is not a node option is refused", () => {
    const raised = render(['--set', 'services.data.nodeArgs={--initial-old-space-size=96}', '--set-json', 'defaults.nodeArgs=[]']);
    expect(deployment(raised, 'data').spec.template.spec.containers[0].command).toEqual([
      'node',
      '--initial-old-space-size=96',
      '/app/services/data/dist/main.js',
    ]);
    expect(deployment(raised, 'oauth').spec.template.spec.containers[0].command).toEqual(['node', '/app/services/oauth/dist/main.js']);
    expectRefused(['--set', 'services.data.nodeArgs={main.js; rm -rf /}'], 'nodeArgs');
  });

  it.each([
    ['an unknown key on a service', ['--set', 'services.gateway.bogus=1'], "additional properties 'bogus' not allowed"],
    ['an unknown top-level key', ['--set', 'bogus=1'], "additional properties 'bogus' not allowed"],
    ['an unknown key in the defaults', ['--set', 'defaults.hpa.bogus=1'], "additional properties 'bogus' not allowed"],
    ['a service the system does not have', ['--set', 'services.billing.port=1'], "additional properties 'billing' not allowed"],
    ['a key too short to be 32 bytes', ['--set', 'secrets.values.PAGE_TOKEN_KEY=short'], 'PAGE_TOKEN_KEY'],
    ['a MONGO_URL that is not a MongoDB URL', ['--set', 'stores.mode=external', '--set', 'secrets.values.MONGO_URL=http://x'], 'MONGO_URL'],
    ['a JWT_SIGNING_KEY that is not a PEM private key', ['--set', 'secrets.values.JWT_SIGNING_KEY=not-a-key'], 'JWT_SIGNING_KEY'],
    ['memory mode with two replicas by default', ['--set', 'stores.mode=memory'], '/defaults/replicas'],
    [
      'memory mode with two identity replicas',
      ['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1', '--set', 'services.identity.replicas=2'],
      '/services/identity/replicas',
    ],
    [
      'memory mode with an HPA on oauth',
      ['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1', '--set', 'services.oauth.hpa.enabled=true'],
      '/services/oauth/hpa/enabled',
    ],
    [
      'memory mode with HPAs by default',
      ['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1', '--set', 'defaults.hpa.enabled=true'],
      '/defaults/hpa/enabled',
    ],
    ['external stores without their URLs', ['--set', 'stores.mode=external'], '/secrets/values/MONGO_URL'],
    ['a store URL with the in-cluster stores', ['--set', 'secrets.values.REDIS_URL=redis://elsewhere:6379'], '/secrets/values/REDIS_URL'],
    ['a store mode the chart does not have', ['--set', 'stores.mode=cloud'], '/stores/mode'],
    ['an Ingress read timeout the 60 s timeout endpoint would outlast', ['--set', 'ingress.timeoutSeconds=60'], '/ingress/timeoutSeconds'],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));

  it('when existingSecret and secret values are both given, then the render fails', () => {
    const { status, stderr } = helmTemplate(['--set', 'secrets.existingSecret=s', '--set', `secrets.values.PAGE_TOKEN_KEY=${'ab'.repeat(32)}`]);
    expect(status).not.toBe(0);
    expect(stderr).toContain('not both');
  });

  it('when the grace period does not cover the drain, then the render fails', () => {
    const { status, stderr } = helmTemplate(['--set', 'services.data.terminationGracePeriodSeconds=12']);
    expect(status).not.toBe(0);
    expect(stderr).toContain('services.data: terminationGracePeriodSeconds');
  });

  it('when the Ingress body limit is below the 25 MiB uploads, then the render fails and says why', () => {
    const { status, stderr } = helmTemplate(['--set', 'ingress.maxBodySize=10m']);
    expect(status).not.toBe(0);
    expect(stderr).toContain('ingress.maxBodySize (10m) must be at least 26m');
  });

  it('when memory mode keeps identity and oauth to one replica, then the render succeeds', () => {
    expect(() => render(['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1'])).not.toThrow();
  });

  it('when every object in the schema is checked, then each closes its properties', () => {
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8'));
    const open: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Record<string, unknown>;
      if (n.properties && n.additionalProperties !== false) open.push(path);
      // if/then only add conditions to objects already closed where they are declared.
      for (const [key, child] of Object.entries(n)) if (key !== 'if' && key !== 'then') walk(child, `${path}/${key}`);
    };
    walk(schema, '#');
    expect(open).toEqual([]);
  });
});

/** Every secretKeyRef of the pods the chart runs, as "secret/key". */
const secretKeyRefs = (manifests: Manifest[]) =>
  [
    ...new Set(
      podSpecs(manifests).flatMap(({ pod }) =>
        pod.containers.flatMap((c: Container) =>
          (c.env ?? [])
            .map((e: Manifest) => e.valueFrom?.secretKeyRef)
            .filter(Boolean)
            .map((r: Manifest) => `${r.name}/${r.key}`),
        ),
      ),
    ),
  ].sort();

describe('GitOps: every secret from Secrets made beforehand (Argo CD renders with helm template, without lookup)', () => {
  // What docs/deployment.md tells the operator to create, key by key; SSO_CLIENT_SECRET is read if present (a confidential client).
  const REQUIRED_KEYS = [
    'sandbox-secrets/CREDENTIAL_ENCRYPTION_KEY',
    'sandbox-secrets/JWT_SIGNING_KEY',
    'sandbox-secrets/PAGE_TOKEN_KEY',
    'sandbox-secrets/SESSION_SIGNING_KEY',
    'sandbox-secrets/SSO_COOKIE_KEY',
    'sandbox-stores/mongodb-password',
    'sandbox-stores/redis-password',
  ];
  const OPTIONAL_KEY = 'sandbox-secrets/SSO_CLIENT_SECRET';
  /** Each process's certificate, from a TLS Secret you made (mounted, not read into variables). */
  const TLS_KEYS = [...SERVICES, 'cli'].flatMap((service) => ['ca.crt', 'tls.crt', 'tls.key'].map((key) => `sandbox-${service}-grpc-tls/${key}`)).sort();
  let text: string;
  let manifests: Manifest[];
  beforeAll(() => {
    text = renderText(['-f', GITOPS_VALUES]);
    manifests = render(['-f', GITOPS_VALUES]);
  });

  it('when every secret is supplied (in-cluster stores on) and the chart is rendered twice, then the two renders are byte-equal', () => {
    expect(ofKind(manifests, 'StatefulSet')).toHaveLength(2);
    // A third render, so a difference cannot hide behind the parse in beforeAll.
    expect(renderText(['-f', GITOPS_VALUES])).toBe(text);
  });

  it('when every secret is supplied, then the chart renders no Secret and its pods read exactly the documented keys of the two named Secrets', () => {
    expect(ofKind(manifests, 'Secret')).toEqual([]);
    // And mount each its own TLS Secret, whole, and no other.
    const mounted = podSpecs(manifests).flatMap(({ name, pod }) =>
      (pod.volumes ?? []).filter((v: Manifest) => v.secret).map((v: Manifest) => `${name} ${v.secret.secretName}`),
    );
    // (The gateway's pod holds the operators' CLI's too, for its admin container alone.)
    expect(mounted.sort()).toEqual(
      [...SERVICES.map((service) => `${PREFIX}-${service} sandbox-${service}-grpc-tls`), `${PREFIX}-gateway sandbox-cli-grpc-tls`].sort(),
    );
    expect(secretKeyRefs(manifests)).toEqual([...REQUIRED_KEYS, OPTIONAL_KEY].sort());
    const optional = podSpecs(manifests).flatMap(({ pod }) =>
      pod.containers.flatMap((c: Container) => (c.env ?? []).filter((e: Manifest) => e.valueFrom?.secretKeyRef?.optional)),
    );
    expect(optional.map((e: Manifest) => `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`)).toEqual([OPTIONAL_KEY]);
  });

  it('when docs/deployment.md says what to create for GitOps, then its kubectl commands create exactly the keys the pods read', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'deployment.md'), 'utf8');
    const section = docs.slice(docs.indexOf('### Argo CD / Flux (GitOps)'));
    const gitops = section.slice(0, section.indexOf('\n### ', 1));
    expect(gitops).toContain('### Argo CD / Flux (GitOps)');
    const created: string[] = [];
    for (const block of gitops.split(/\n\s*\n/).filter((b) => b.includes('create secret generic'))) {
      // A `for name in a b c; do … done` loop: its body once per name.
      const loop = /for (\w+) in ([^;]+); do([\s\S]*?)done/.exec(block);
      const commands = loop
        ? loop[2]!
            .trim()
            .split(/\s+/)
            .map((value) => loop[3]!.replaceAll(`$${loop[1]}`, value).replaceAll(`\${${loop[1]}}`, value))
        : [block];
      for (const command of commands) {
        const secret = /create secret generic "?([^\s"]+)"?/.exec(command)![1]!;
        for (const [, key] of command.matchAll(/--from-(?:literal|file)=([A-Za-z0-9_.-]+)=/g)) created.push(`${secret}/${key}`);
      }
    }
    expect(created.sort()).toEqual([...REQUIRED_KEYS, ...TLS_KEYS].sort());
  });

  it("when the stores' passwords come from your Secret, then each service builds its store URL in the pod from the password variable defined before it, the same URL the chart's own Secret would hold", () => {
    const own = secretData(render(), `${PREFIX}-stores`);
    for (const [service, urls] of [
      ['identity', ['MONGO_URL', 'REDIS_URL']],
      ['oauth', ['REDIS_URL']],
      ['gateway', ['REDIS_URL']],
    ] as const) {
      const env: Manifest[] = containerOf(manifests, service).env;
      const at = (name: string) => env.findIndex((e) => e.name === name);
      for (const url of urls) {
        const [variable, key] = url === 'MONGO_URL' ? ['MONGODB_PASSWORD', 'mongodb-password'] : ['REDIS_PASSWORD', 'redis-password'];
        expect(env[at(variable)]!.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-stores', key });
        // Kubernetes expands $(VAR) only from variables defined earlier in the list.
        expect({ service, url, before: at(variable) < at(url) }).toEqual({ service, url, before: true });
        const password = own[key]!;
        expect(env[at(url)]!.value).toBe(own[url]!.replace(password, `$(${variable})`));
      }
    }
  });

  it("when the stores' passwords come from your Secret, then Redis gets its password from the environment on stdin, never on a command line or in the manifest, with the chart's own configuration", () => {
    const redis = named(manifests, 'StatefulSet', `${PREFIX}-redis`).spec.template.spec;
    const c = redis.containers[0];
    expect(c.command.slice(0, 2)).toEqual(['sh', '-c']);
    const script: string = c.command[2];
    expect(script.split('\n')[0]).toBe('exec redis-server - <<EOF');
    expect(envOf(c).REDISCLI_AUTH?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-stores', key: 'redis-password' });
    const ownConf = secretData(render(), `${PREFIX}-stores`)['redis.conf']!.trim().split('\n');
    const fedConf = script.split('\n').slice(1, -2);
    expect(fedConf[0]).toBe('requirepass $REDISCLI_AUTH');
    expect(fedConf.slice(1)).toEqual(ownConf.slice(1));
    expect(fedConf).toContain('maxmemory-policy noeviction');
    expect(redis.volumes.map((v: Manifest) => v.name)).not.toContain('config');
    const mongo = named(manifests, 'StatefulSet', `${PREFIX}-mongodb`).spec.template.spec.containers[0];
    expect(envOf(mongo).MONGO_INITDB_ROOT_PASSWORD?.valueFrom.secretKeyRef).toEqual({ name: 'sandbox-stores', key: 'mongodb-password' });
  });

  it('when validated offline against the Kubernetes API schemas, then every manifest is valid (strict: no unknown field)', () => {
    const { status, errors, unknown, passed } = validateOffline(text, 'gitops');
    expect({ status, errors, unknown }).toEqual({ status: 0, errors: [], unknown: [] });
    expect(passed).toBe(manifests.length);
  });

  it('when nothing is supplied and the chart is rendered twice, then the renders differ only in the generated secrets and the checksums over them', () => {
    const withoutGenerated = (manifests: Manifest[]) =>
      manifests.map((m) => {
        const copy = structuredClone(m);
        if (copy.kind === 'Secret') delete copy.data;
        delete copy.spec?.template?.metadata?.annotations?.['checksum/secrets'];
        delete copy.spec?.template?.metadata?.annotations?.['checksum/grpc-tls'];
        return copy;
      });
    const [first, second] = [render(), render()];
    expect(withoutGenerated(second)).toEqual(withoutGenerated(first));
    expect(secretData(second, `${PREFIX}-stores`)['mongodb-password']).not.toBe(secretData(first, `${PREFIX}-stores`)['mongodb-password']);
  });

  it.each([
    ['external stores', ['--set', 'stores.mode=external', '--set', 'secrets.existingSecret=s']],
    ['no stores', ['--set', 'stores.mode=memory', '--set', 'defaults.replicas=1']],
  ])("when stores.existingSecret is set with %s, then the schema refuses it (it holds the in-cluster stores' passwords)", (_label, args) => {
    const { status, stderr } = helmTemplate([...args, '--set', 'stores.existingSecret=sandbox-stores']);
    expect(status).not.toBe(0);
    expect(stderr).toContain('/stores/existingSecret');
  });
});

/** The install notes as helm prints them after an install (helm template does not): NOTES.txt through tpl in a copy of the chart. */
function renderNotes(args: string[]): string {
  const copy = mkdtempSync(join(tmpdir(), 'chart-notes-'));
  try {
    cpSync(CHART, copy, { recursive: true });
    cpSync(join(CHART, 'templates', 'NOTES.txt'), join(copy, 'notes.txt'));
    writeFileSync(
      join(copy, 'templates', 'zz-notes.yaml'),
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes\ndata:\n  notes: {{ tpl (.Files.Get "notes.txt") . | quote }}\n',
    );
    return named(render(args, copy), 'ConfigMap', 'notes').data.notes as string;
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
}

/**
 * A TLS handshake as the processes make it (grpc-js runs on node:tls): the
 * server asks for a client certificate from its CA, the client checks the
 * server's identity (peerIdentity, the runtime's) instead of a host name.
 * Resolves to the identity each side saw, or rejects with the handshake's error.
 */
async function handshake(
  server: Record<string, string>,
  client: Record<string, string>,
  expectServer: string,
): Promise<{ serverSaw?: string; clientSaw?: string }> {
  const tlsServer = createServer({
    ca: server['ca.crt'],
    cert: server['tls.crt'],
    key: server['tls.key'],
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
  });
  let serverSaw: string | undefined;
  tlsServer.on('secureConnection', (socket: TLSSocket) => {
    serverSaw = peerIdentity(socket.getPeerCertificate());
    socket.end();
  });
  tlsServer.on('tlsClientError', () => undefined);
  await new Promise<void>((done) => tlsServer.listen(0, '127.0.0.1', done));
  const { port } = tlsServer.address() as { port: number };
  try {
    const clientSaw = await new Promise<string | undefined>((resolve, reject) => {
      const socket = connect({
        host: '127.0.0.1',
        port,
        ca: client['ca.crt'],
        cert: client['tls.crt'],
        key: client['tls.key'],
        servername: expectServer,
        checkServerIdentity: (_host, cert) =>
          peerIdentity(cert) === expectServer ? undefined : new Error(`the server is ${peerIdentity(cert)}, not ${expectServer}`),
      });
      socket.on('secureConnect', () => resolve(peerIdentity(socket.getPeerCertificate())));
      socket.on('error', reject);
      socket.on('data', () => undefined);
    });
    // TLS 1.3: the server sees the client's certificate once the client's first flight arrives.
    for (let i = 0; i < 50 && serverSaw === undefined; i++) await new Promise((r) => setTimeout(r, 10));
    return { serverSaw, clientSaw };
  } finally {
    tlsServer.close();
  }
}

describe('mutual TLS between the processes (grpcTls)', () => {
  const tlsSecretName = (service: string) => `${PREFIX}-${service}-grpc-tls`;
  /** Every identity with a certificate: the processes, and the operators' CLI (adminCli, on by default). */
  const IDENTITIES = [...SERVICES, 'cli'];

  describe('with certificates the chart generates (the default)', () => {
    let manifests: Manifest[];
    beforeAll(() => {
      manifests = render();
    });

    it('when rendered, then there is one CA Secret and one kubernetes.io/tls Secret per process, each with ca.crt, tls.crt and tls.key', () => {
      const tls = ofKind(manifests, 'Secret').filter((secret) => secret.type === 'kubernetes.io/tls');
      expect(tls.map((secret) => secret.metadata.name).sort()).toEqual([`${PREFIX}-grpc-ca`, ...IDENTITIES.map(tlsSecretName)].sort());
      for (const service of IDENTITIES)
        expect(Object.keys(named(manifests, 'Secret', tlsSecretName(service)).data).sort()).toEqual(['ca.crt', 'tls.crt', 'tls.key']);
      // The CA's key is in its own Secret, which no pod mounts.
      const mounted = podSpecs(manifests).flatMap(({ pod }) => (pod.volumes ?? []).map((v: Manifest) => v.secret?.secretName).filter(Boolean));
      expect(mounted).not.toContain(`${PREFIX}-grpc-ca`);
    });

    it("when the certificates are parsed, then one CA signed every process's certificate, whose common name is the process and whose key matches it", () => {
      const ca = new X509Certificate(secretData(manifests, `${PREFIX}-grpc-ca`)['tls.crt']!);
      expect(ca.ca).toBe(true);
      expect(ca.checkPrivateKey(createPrivateKey(secretData(manifests, `${PREFIX}-grpc-ca`)['tls.key']!))).toBe(true);
      for (const service of IDENTITIES) {
        const data = secretData(manifests, tlsSecretName(service));
        expect(data['ca.crt']).toBe(ca.toString());
        const leaf = new X509Certificate(data['tls.crt']!);
        expect({ service, subject: leaf.subject, isCa: leaf.ca, signedByCa: leaf.verify(ca.publicKey), issuer: leaf.issuer }).toEqual({
          service,
          subject: `CN=${service}`,
          isCa: false,
          signedByCa: true,
          issuer: ca.subject,
        });
        // No URI SAN (helm cannot write one), so the common name is the identity (docs/security.md).
        expect(leaf.subjectAltName ?? '').not.toContain('URI:');
        expect(leaf.keyUsage).toEqual(expect.arrayContaining(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2'])); // server and client auth
        expect(leaf.checkPrivateKey(createPrivateKey(data['tls.key']!))).toBe(true);
        expect(new Date(leaf.validTo).getTime()).toBeGreaterThan(Date.now() + 365 * 86_400_000);
      }
    });

    it("when the gateway calls identity with them, then each side proves the identity the services' tables name; a certificate from another render's CA is refused", async () => {
      const gateway = secretData(manifests, tlsSecretName('gateway'));
      const identity = secretData(manifests, tlsSecretName('identity'));
      expect(await handshake(identity, gateway, 'identity')).toEqual({ serverSaw: 'gateway', clientSaw: 'identity' });
      // The client checks who answers: oauth's certificate is not identity's.
      await expect(handshake(secretData(manifests, tlsSecretName('oauth')), gateway, 'identity')).rejects.toThrow(/the server is oauth, not identity/);
      // A certificate from another CA (another release's): the client does not trust that server, and the server never completes a handshake with that client.
      const stranger = secretData(render(), tlsSecretName('gateway'));
      await expect(handshake(identity, stranger, 'identity')).rejects.toThrow();
      const refused = await handshake(identity, { ...stranger, 'ca.crt': identity['ca.crt']! }, 'identity').catch(() => ({ serverSaw: undefined }));
      expect(refused.serverSaw).toBeUndefined();
    }, 60_000);

    it('when rendered, then each pod carries a checksum of its own certificate only, so a new one rolls just that process', () => {
      const sums = SERVICES.map((service) => podAnnotations(manifests, service)['checksum/grpc-tls']);
      for (const sum of sums) expect(sum).toMatch(/^[0-9a-f]{64}$/);
      expect(new Set(sums).size).toBe(SERVICES.length);
    });

    it('when the install notes are rendered, then they say mutual TLS is on and where the CA is', () => {
      const notes = renderNotes([]);
      expect(notes).toContain(`mutual TLS, with certificates the chart made from its own CA\n(${PREFIX}-grpc-ca)`);
      expect(notes).not.toContain('WARNING');
    });
  });

  describe('with Secrets you manage (grpcTls.existingSecrets)', () => {
    const existing = IDENTITIES.flatMap((service) => ['--set', `grpcTls.existingSecrets.${service}=team-${service}-tls`]);

    it('when every process is named, then no TLS Secret or CA is rendered and each pod mounts the one named for it', () => {
      const manifests = render(existing);
      expect(ofKind(manifests, 'Secret').filter((secret) => secret.type === 'kubernetes.io/tls')).toEqual([]);
      for (const service of SERVICES) {
        const pod = deployment(manifests, service).spec.template.spec;
        expect(pod.volumes.find((v: Manifest) => v.name === 'grpc-tls').secret.secretName).toBe(`team-${service}-tls`);
        expect(envOf(pod.containers[0]).GRPC_TLS_DIR?.value).toBe(GRPC_TLS_DIR);
      }
      expect(renderNotes(existing)).toContain('team-cli-tls, team-data-tls, team-gateway-tls, team-identity-tls, team-oauth-tls, team-playground-tls');
      const gateway = deployment(manifests, 'gateway').spec.template.spec;
      expect(gateway.volumes.find((v: Manifest) => v.name === 'cli-grpc-tls').secret.secretName).toBe('team-cli-tls');
    });

    it('when validated offline against the Kubernetes API schemas, then every manifest is valid', () => {
      const text = renderText(existing);
      const { status, errors, unknown } = validateOffline(text, 'grpc-tls-existing');
      expect({ status, errors, unknown }).toEqual({ status: 0, errors: [], unknown: [] });
    });

    it("when a process or the CLI is left out, then the render fails naming it; without the CLI's container its Secret is not needed", () => {
      const withoutCli = existing.slice(0, -2);
      const missing = (args: string[]) => helmTemplate(args).stderr;
      expect(missing(withoutCli.slice(0, -2))).toContain(
        'grpcTls.existingSecrets: name a TLS Secret for every process (gateway, identity, oauth, data, playground) and, with adminCli.enabled, for the CLI (cli); missing: playground, cli',
      );
      expect(missing(withoutCli)).toContain('missing: cli');
      expect(helmTemplate([...withoutCli, '--set', 'adminCli.enabled=false']).status).toBe(0);
    });

    it('when cert-manager is named too, then the render fails', () => {
      const { status, stderr } = helmTemplate([...existing, '--set', 'grpcTls.certManager.issuerRef.name=sandbox-ca']);
      expect(status).not.toBe(0);
      expect(stderr).toContain('grpcTls: set either existingSecrets or certManager.issuerRef, not both');
    });
  });

  describe('with cert-manager (grpcTls.certManager.issuerRef)', () => {
    const certManager = ['--set', 'grpcTls.certManager.issuerRef.name=sandbox-ca', '--set', 'grpcTls.certManager.issuerRef.kind=ClusterIssuer'];
    let manifests: Manifest[];
    let text: string;
    beforeAll(() => {
      text = renderText(certManager);
      manifests = render(certManager);
    });

    it('when rendered, then each process has a Certificate naming it by URI SAN and common name, for server and client auth, written to the Secret its pods mount', () => {
      const certificates = ofKind(manifests, 'Certificate');
      expect(certificates.map((c) => c.metadata.name).sort()).toEqual(IDENTITIES.map(tlsSecretName).sort());
      // The CLI only calls: it has no host name to answer by.
      expect(named(manifests, 'Certificate', tlsSecretName('cli')).spec).toMatchObject({ commonName: 'cli', uris: ['spiffe://training-sandbox/cli'] });
      expect(named(manifests, 'Certificate', tlsSecretName('cli')).spec.dnsNames).toBeUndefined();
      for (const service of SERVICES) {
        const certificate = named(manifests, 'Certificate', tlsSecretName(service));
        expect(certificate.apiVersion).toBe('cert-manager.io/v1');
        expect(certificate.spec).toEqual({
          secretName: tlsSecretName(service),
          secretTemplate: { labels: expect.objectContaining(componentSelector(service)) },
          commonName: service,
          uris: [`spiffe://training-sandbox/${service}`],
          dnsNames: [`${PREFIX}-${service}`, `${PREFIX}-${service}.sandbox.svc`],
          duration: '2160h',
          renewBefore: '720h',
          privateKey: { algorithm: 'ECDSA', size: 256, encoding: 'PKCS8', rotationPolicy: 'Always' },
          usages: ['digital signature', 'server auth', 'client auth'],
          issuerRef: { name: 'sandbox-ca', kind: 'ClusterIssuer', group: 'cert-manager.io' },
        });
        const pod = deployment(manifests, service).spec.template.spec;
        expect(pod.volumes.find((v: Manifest) => v.name === 'grpc-tls').secret.secretName).toBe(tlsSecretName(service));
        // cert-manager renews in place and the process re-reads the files: a renewal must not roll the pods.
        expect(podAnnotations(manifests, service)['checksum/grpc-tls']).toBeUndefined();
      }
      expect(ofKind(manifests, 'Secret').filter((secret) => secret.type === 'kubernetes.io/tls')).toEqual([]);
    });

    it("when the issuer kind and group are left out, then they are cert-manager's Issuer", () => {
      const certificate = named(render(['--set', 'grpcTls.certManager.issuerRef.name=sandbox-ca']), 'Certificate', tlsSecretName('data'));
      expect(certificate.spec.issuerRef).toEqual({ name: 'sandbox-ca', kind: 'Issuer', group: 'cert-manager.io' });
    });

    it('when validated offline against the Kubernetes API schemas, then every other manifest is valid (kubernetes-validate has no schema for the CRD; its fields are checked above)', () => {
      const { status, errors, unknown, passed } = validateOffline(text, 'grpc-tls-cert-manager', ['Certificate']);
      expect({ status, errors, unknown }).toEqual({ status: 0, errors: [], unknown: [] });
      expect(passed).toBe(manifests.filter((m) => m.kind !== 'Certificate').length);
    });
  });

  describe("the operators' CLI (adminCli): a container of its own beside each gateway, with the CLI's certificate", () => {
    let manifests: Manifest[];
    let pod: Manifest;
    let admin: Container;
    beforeAll(() => {
      manifests = render();
      pod = deployment(manifests, 'gateway').spec.template.spec;
      admin = pod.containers.find((c: Container) => c.name === 'admin');
    });

    it("when rendered, then the admin container alone mounts the cli certificate, at GRPC_TLS_DIR, with the gateway's service addresses and transport; the gateway's container does not", () => {
      expect(pod.containers.map((c: Container) => c.name)).toEqual(['gateway', 'admin']);
      expect(pod.volumes.find((v: Manifest) => v.name === 'cli-grpc-tls').secret).toEqual({ secretName: tlsSecretName('cli'), defaultMode: 440 });
      expect(admin.volumeMounts).toEqual([{ name: 'cli-grpc-tls', mountPath: GRPC_TLS_DIR, readOnly: true }]);
      expect(pod.containers[0].volumeMounts.map((m: Manifest) => m.name)).not.toContain('cli-grpc-tls');
      const env = envOf(admin);
      const gatewayEnv = envOf(pod.containers[0]);
      for (const name of ['GRPC_TLS', 'GRPC_TRANSPORT', 'IDENTITY_GRPC_ADDR', 'OAUTH_GRPC_ADDR', 'DATA_GRPC_ADDR', 'PLAYGROUND_GRPC_ADDR']) {
        expect({ name, value: env[name]?.value }).toEqual({ name, value: gatewayEnv[name]!.value });
      }
      expect(env.GRPC_TLS_DIR?.value).toBe(GRPC_TLS_DIR);
      // No key of any kind: the CLI needs only its certificate.
      expect(Object.keys(env).filter((name) => /KEY|SECRET|PASSWORD|TOKEN|_URL$/.test(name))).toEqual([]);
      expect(admin.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      expect(admin.resources.limits.memory).toBe('192Mi');
    });

    it("when its certificate is parsed, then identity's certificate accepts it as the CLI", async () => {
      expect(await handshake(secretData(manifests, tlsSecretName('identity')), secretData(manifests, tlsSecretName('cli')), 'identity')).toEqual({
        serverSaw: 'cli',
        clientSaw: 'identity',
      });
    });

    it('when the pod is stopped, then the idle container ends at SIGTERM by its own trap, with status 0 (a bare sleep as PID 1 ignores SIGTERM and holds the pod for its grace period)', async () => {
      const [shell, flag, script] = admin.command as [string, string, string];
      const child = spawn(shell, [flag, script], { stdio: 'ignore' });
      const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, signal) => resolve({ code, signal })),
      );
      // Its sleep has started, so the trap, set before the loop, is in place: no race with a busy machine.
      await eventually(
        async () => readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim(),
        (children) => children !== '',
        10_000,
      );
      child.kill('SIGTERM');
      expect(await ended).toEqual({ code: 0, signal: null });
    });

    it.each([
      ['adminCli.enabled=false', ['--set', 'adminCli.enabled=false']],
      ['grpcTls.mode=off (identity cannot tell the CLI apart without certificates)', ['--set', 'grpcTls.mode=off']],
    ])('when rendered with %s, then there is no admin container and no cli certificate', (_what, args) => {
      const off = render(args);
      expect(deployment(off, 'gateway').spec.template.spec.containers.map((c: Container) => c.name)).toEqual(['gateway']);
      expect(ofKind(off, 'Secret').map((secret) => secret.metadata.name)).not.toContain(tlsSecretName('cli'));
    });
  });

  describe('the steps from off to on (grpcTls.mode accept-tls, send-tls)', () => {
    it.each(['accept-tls', 'send-tls'])('when rendered with mode %s, then every process gets GRPC_TLS=%s and its certificate, as under on', (mode) => {
      const manifests = render(['--set', `grpcTls.mode=${mode}`]);
      for (const service of SERVICES) {
        const pod = deployment(manifests, service).spec.template.spec;
        const env = envOf(pod.containers[0]);
        expect({ service, tls: env.GRPC_TLS?.value, dir: env.GRPC_TLS_DIR?.value }).toEqual({ service, tls: mode, dir: GRPC_TLS_DIR });
        expect(pod.volumes.find((v: Manifest) => v.name === 'grpc-tls').secret.secretName).toBe(tlsSecretName(service));
        expect(podAnnotations(manifests, service)['checksum/grpc-tls']).toMatch(/^[0-9a-f]{64}$/);
      }
    });

    it('when the install notes are rendered, then they warn that the ports take plaintext too and say what comes next', () => {
      expect(renderNotes(['--set', 'grpcTls.mode=accept-tls'])).toMatch(
        /WARNING: grpcTls\.mode is accept-tls, a step between off and on\. Every gRPC\nport takes plaintext calls too[\s\S]*upgrade with grpcTls\.mode=send-tls\./,
      );
      expect(renderNotes(['--set', 'grpcTls.mode=send-tls'])).toMatch(
        /sandbox_grpc_server_plaintext_calls_total\ngrows no more on any pod, upgrade with grpcTls\.mode=on\./,
      );
    });

    it.each([
      ['on', 'on'],
      ['off', 'off'],
    ])('when a values file says mode: %s unquoted (YAML reads a boolean), then it means %s', (word, expected) => {
      const file = join(mkdtempSync(join(tmpdir(), 'grpc-tls-mode-')), 'values.yaml');
      writeFileSync(file, `grpcTls:\n  mode: ${word}\n`);
      const env = envOf(deployment(render(['-f', file]), 'data').spec.template.spec.containers[0]);
      expect(env.GRPC_TLS?.value).toBe(expected);
    });
  });

  describe('switched off (grpcTls.mode=off)', () => {
    const off = ['--set', 'grpcTls.mode=off'];

    it('when rendered, then every process gets GRPC_TLS=off and no certificate, and the services are still probed on their health ports', () => {
      const manifests = render(off);
      expect(ofKind(manifests, 'Secret').filter((secret) => secret.type === 'kubernetes.io/tls')).toEqual([]);
      for (const service of SERVICES) {
        const pod = deployment(manifests, service).spec.template.spec;
        const env = envOf(pod.containers[0]);
        expect({ service, tls: env.GRPC_TLS?.value, dir: env.GRPC_TLS_DIR }).toEqual({ service, tls: 'off', dir: undefined });
        expect(pod.volumes.map((v: Manifest) => v.name)).not.toContain('grpc-tls');
        expect(podAnnotations(manifests, service)['checksum/grpc-tls']).toBeUndefined();
      }
      for (const [service, port] of Object.entries(HEALTH_PORTS)) expect(containerOf(manifests, service).readinessProbe.grpc.port).toBe(port);
    });

    it('when the install notes are rendered, then they warn that every gRPC port answers anyone', () => {
      expect(renderNotes(off)).toMatch(
        /WARNING: grpcTls\.mode is off\. The processes call each other in plaintext and every\ngRPC port answers every RPC to anyone who can reach it/,
      );
    });
  });

  it.each([
    ['a mode it does not know', ['--set', 'grpcTls.mode=strict'], '/grpcTls/mode'],
    ['the switch it replaced (enabled)', ['--set', 'grpcTls.enabled=true'], "additional properties 'enabled' not allowed"],
    ['a Secret for a process the sandbox does not have', ['--set', 'grpcTls.existingSecrets.billing=x'], "additional properties 'billing' not allowed"],
    ['a Secret name Kubernetes refuses', ['--set', 'grpcTls.existingSecrets.data=Data_TLS'], '/grpcTls/existingSecrets/data'],
    [
      'an issuer without its name',
      ['--set', 'grpcTls.certManager.issuerRef.kind=ClusterIssuer'],
      "at '/grpcTls/certManager/issuerRef': missing property 'name'",
    ],
    ['a duration cert-manager cannot read', ['--set', 'grpcTls.certManager.duration=90d'], '/grpcTls/certManager/duration'],
    ['a validity of no days', ['--set', 'grpcTls.generated.validityDays=0'], '/grpcTls/generated/validityDays'],
    ['a health port out of range', ['--set', 'services.data.healthPort=70000'], '/services/data/healthPort'],
    [
      'a health port that is the gRPC port',
      ['--set', 'services.data.healthPort=50053'],
      'services.data.healthPort (50053) must differ from its gRPC port and the metrics port',
    ],
    ['a health port that is the metrics port', ['--set', 'services.oauth.healthPort=9090'], 'services.oauth.healthPort (9090) must differ'],
    ['a health port on the gateway', ['--set', 'services.gateway.healthPort=8086'], 'services.gateway.healthPort: the gateway speaks HTTP'],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));
});

describe('the image', () => {
  const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;

  it('when image.repository is not set, then the render fails saying the image must be built and pushed to your registry', () => {
    const { status, stderr } = helm(['template', RELEASE, CHART]);
    expect(status).not.toBe(0);
    expect(stderr).toContain('image.repository is required: build the image from this repository (npm run image), push it to your registry');
  });

  it("when only a repository is given, then the tag is the chart's appVersion", () => {
    expect(containerOf(render(), 'gateway').image).toBe('registry.example.org/training-sandbox:1.0.0');
  });

  it('when image.digest is set, then every sandbox container and the helm test pod run repository@digest, even with a tag given', () => {
    const manifests = render(['--set', 'image.tag=9.9.9', '--set', `image.digest=${DIGEST}`]);
    for (const service of SERVICES) expect(containerOf(manifests, service).image).toBe(`registry.example.org/training-sandbox@${DIGEST}`);
    expect(named(manifests, 'Pod', `${PREFIX}-smoke-test`).spec.containers[0].image).toBe(`registry.example.org/training-sandbox@${DIGEST}`);
  });

  it("when a store's image digest is set, then that store runs repository@digest and the other keeps its tag", () => {
    const manifests = render(['--set', `stores.redis.image.digest=${DIGEST}`]);
    expect(named(manifests, 'StatefulSet', `${PREFIX}-redis`).spec.template.spec.containers[0].image).toBe(`redis@${DIGEST}`);
    expect(named(manifests, 'StatefulSet', `${PREFIX}-mongodb`).spec.template.spec.containers[0].image).toBe('mongo:8.0');
  });

  it.each([
    ['a digest that is not sha256 and 64 hex digits', ['--set', 'image.digest=sha256:abc'], '/image/digest'],
    ['a tag in the digest', ['--set', 'image.digest=1.0.0'], '/image/digest'],
    ['a store digest that is not sha256', ['--set', 'stores.mongodb.image.digest=md5:0123'], '/stores/mongodb/image/digest'],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));
});

describe('escape hatches for platform teams (escape-hatches-values.yaml)', () => {
  let manifests: Manifest[];
  let text: string;
  beforeAll(() => {
    text = renderText(['-f', ESCAPE_HATCH_VALUES]);
    manifests = render(['-f', ESCAPE_HATCH_VALUES]);
  });
  const pod = (service: string) => deployment(manifests, service).spec.template.spec;
  const store = (name: string) => named(manifests, 'StatefulSet', `${PREFIX}-${name}`).spec.template.spec;

  it('when affinity is set in defaults and on one service, then every service and store gets the default and that service both (maps merge)', () => {
    const nodeAffinity = pod('identity').affinity.nodeAffinity;
    expect(nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]).toEqual({
      key: 'node-pool',
      operator: 'In',
      values: ['sandbox'],
    });
    for (const service of SERVICES) expect(pod(service).affinity.nodeAffinity).toEqual(nodeAffinity);
    for (const name of Object.keys(STORES)) expect(store(name).affinity).toEqual({ nodeAffinity });
    expect(Object.keys(pod('gateway').affinity).sort()).toEqual(['nodeAffinity', 'podAntiAffinity']);
    expect(pod('oauth').affinity.podAntiAffinity).toBeUndefined();
    expect(deployment(render(), 'gateway').spec.template.spec.affinity).toBeUndefined();
  });

  it("when several spread constraints are listed, then each pod gets all of them, those without a labelSelector select the service's own pods, and [] on a service gives it none", () => {
    const constraints = pod('oauth').topologySpreadConstraints;
    expect(constraints.map((c: Manifest) => c.topologyKey)).toEqual(['kubernetes.io/hostname', 'topology.kubernetes.io/zone']);
    for (const c of constraints) expect(c.labelSelector).toEqual({ matchLabels: componentSelector('oauth') });
    expect(constraints[1]).toMatchObject({ whenUnsatisfiable: 'DoNotSchedule', matchLabelKeys: ['pod-template-hash'] });
    expect(pod('data').topologySpreadConstraints).toBeUndefined();
    // The stores run one replica each: nothing to spread.
    for (const name of Object.keys(STORES)) expect(store(name).topologySpreadConstraints).toBeUndefined();
  });

  it("when the chart's own values are used, then each service spreads its replicas over nodes, preferably, by its own labels", () => {
    const defaults = render();
    for (const service of SERVICES) {
      expect(deployment(defaults, service).spec.template.spec.topologySpreadConstraints).toEqual([
        { topologyKey: 'kubernetes.io/hostname', maxSkew: 1, whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: componentSelector(service) } },
      ]);
    }
  });

  it("when extraEnv and extraEnvFrom are set, then the service container gets them after the chart's own variables, and a name the chart also sets is replaced, not duplicated", () => {
    const c = pod('gateway').containers[0];
    const names: string[] = c.env.map((e: Manifest) => e.name);
    expect(names.slice(-2)).toEqual(['NODE_EXTRA_CA_CERTS', 'LOG_LEVEL']);
    expect(names.filter((n) => n === 'LOG_LEVEL')).toHaveLength(1);
    expect(envOf(c).LOG_LEVEL!.valueFrom).toEqual({ configMapKeyRef: { name: 'sandbox-tuning', key: 'gateway-log-level' } });
    // A list: the gateway's own replaces the defaults'.
    expect(c.envFrom).toEqual([{ secretRef: { name: 'gateway-extra' } }]);
    expect(pod('data').containers[0].envFrom).toEqual([{ configMapRef: { name: 'sandbox-tuning' } }]);
    expect(envOf(pod('data').containers[0]).LOG_LEVEL!.value).toBe('info');
  });

  it('when extra volumes and mounts are set, then the pod has them beside /tmp and the service container mounts them', () => {
    for (const service of SERVICES) {
      // The gateway's pod also holds the CLI's certificate, for its admin container.
      expect(pod(service).volumes.map((v: Manifest) => v.name)).toEqual([
        'tmp',
        'grpc-tls',
        ...(service === 'gateway' ? ['cli-grpc-tls'] : []),
        'corporate-ca',
      ]);
      expect(pod(service).containers[0].volumeMounts).toEqual([
        { name: 'tmp', mountPath: '/tmp' },
        { name: 'grpc-tls', mountPath: GRPC_TLS_DIR, readOnly: true },
        { name: 'corporate-ca', mountPath: '/etc/ssl/corporate', readOnly: true },
      ]);
    }
  });

  it('when a sidecar is given, then it runs after the service container, as given', () => {
    expect(pod('gateway').containers.map((c: Container) => c.name)).toEqual(['gateway', 'admin', 'log-shipper']);
    expect(pod('gateway').containers[2]).toMatchObject({ image: 'registry.example.org/log-shipper:2.1', securityContext: { readOnlyRootFilesystem: true } });
    expect(pod('identity').containers).toHaveLength(1);
  });

  it("when rendered with the chart's values, then each service and each store runs as a ServiceAccount of its own whose token is not mounted, and the helm test pod as the namespace's default", () => {
    const manifests = render();
    const accounts = ofKind(manifests, 'ServiceAccount');
    const components = [...SERVICES, ...Object.keys(STORES)];
    expect(accounts.map((a) => a.metadata.name).sort()).toEqual(components.map((c) => `${PREFIX}-${c}`).sort());
    for (const account of accounts) expect(account.automountServiceAccountToken).toBe(false);
    for (const service of SERVICES) expect(deployment(manifests, service).spec.template.spec.serviceAccountName).toBe(`${PREFIX}-${service}`);
    for (const name of Object.keys(STORES))
      expect(named(manifests, 'StatefulSet', `${PREFIX}-${name}`).spec.template.spec.serviceAccountName).toBe(`${PREFIX}-${name}`);
    expect(named(manifests, 'Pod', `${PREFIX}-smoke-test`).spec.serviceAccountName).toBe('default');
    // External stores: no store, so no store account.
    expect(ofKind(render(['-f', PRODUCTION_VALUES]), 'ServiceAccount')).toHaveLength(SERVICES.length);
  });

  it('when accounts are annotated, renamed or existing ones (create: false), then the pods use those names and only the created ones are rendered', () => {
    const accounts = Object.fromEntries(ofKind(manifests, 'ServiceAccount').map((a) => [a.metadata.name, a.metadata.annotations ?? {}]));
    expect(accounts[`${PREFIX}-gateway`]).toEqual({ 'eks.amazonaws.com/role-arn': 'arn:aws:iam::123456789012:role/sandbox-gateway' });
    expect(Object.keys(accounts).sort()).toEqual(
      [`${PREFIX}-gateway`, `${PREFIX}-identity`, `${PREFIX}-mongodb`, `${PREFIX}-oauth`, 'sandbox-playground'].sort(),
    );
    expect(pod('playground').serviceAccountName).toBe('sandbox-playground');
    expect(pod('data').serviceAccountName).toBe('shared-workloads');
    expect(store('redis').serviceAccountName).toBe('default');
  });

  it('when two components would create the same ServiceAccount, then the render fails and says how to share one', () => {
    const { status, stderr } = helmTemplate(['--set', 'defaults.serviceAccount.name=sandbox']);
    expect(status).not.toBe(0);
    expect(stderr).toMatch(/serviceAccount: \w+ and \w+ would both create the ServiceAccount sandbox; .*create: false/);
  });

  it('when validated offline against the Kubernetes API schemas, then every manifest is valid (strict: no unknown field)', () => {
    const { status, errors, unknown, passed } = validateOffline(text, 'escape-hatches');
    expect({ status, errors, unknown }).toEqual({ status: 0, errors: [], unknown: [] });
    expect(passed).toBe(manifests.length);
  });

  it.each([
    ['an affinity kind Kubernetes does not have', ['--set', 'defaults.affinity.nodeAfinity.x=1'], "invalid propertyName 'nodeAfinity'"],
    [
      'a spread constraint without its topologyKey',
      ['--set', 'services.data.topologySpreadConstraints[0].maxSkew=1', '--set', 'services.data.topologySpreadConstraints[0].whenUnsatisfiable=ScheduleAnyway'],
      '/services/data/topologySpreadConstraints/0',
    ],
    ['a volume mount without its mountPath', ['--set', 'defaults.extraVolumeMounts[0].name=x'], '/defaults/extraVolumeMounts/0'],
    ['an extra variable without a name', ['--set', 'services.gateway.extraEnv[0].value=x'], '/services/gateway/extraEnv/0'],
    ['a sidecar without an image', ['--set', 'services.gateway.extraContainers[0].name=x'], '/services/gateway/extraContainers/0'],
    ['an unknown key on a ServiceAccount', ['--set', 'services.oauth.serviceAccount.automount=true'], "additional properties 'automount' not allowed"],
    [
      'the single topologySpread of chart 0.1.0 (now a list, UPGRADING.md)',
      ['--set', 'defaults.topologySpread.enabled=false'],
      "additional properties 'topologySpread' not allowed",
    ],
    [
      'the shared serviceAccount of chart 0.1.0 (now per service, UPGRADING.md)',
      ['--set', 'serviceAccount.create=false'],
      "additional properties 'serviceAccount' not allowed",
    ],
  ])('when given %s, then helm template fails and names it', (_label, args, message) => expectRefused(args, message));
});

/**
 * The chart's content as one sha256: every file of the chart directory but
 * UPGRADING.md (notes about versions, not part of one), by relative path, with
 * Chart.yaml's `version:` line left out, so bumping the version alone does not
 * change it and anything else (a template, values, the schema, appVersion,
 * .helmignore) does. chart-digests.json records it for each released version.
 */
function chartDigest(chart: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(relative(chart, path).split(sep).join('/'));
    }
  };
  walk(chart);
  const hash = createHash('sha256');
  for (const file of files.filter((f) => f !== 'UPGRADING.md').sort()) {
    let content = readFileSync(join(chart, file));
    if (file === 'Chart.yaml') content = Buffer.from(content.toString('utf8').replace(/^version:.*\n/m, ''));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return `sha256:${hash.digest('hex')}`;
}

describe('release discipline', () => {
  const chartYaml = () => readFileSync(join(CHART, 'Chart.yaml'), 'utf8');
  const field = (yaml: string, name: string) => new RegExp(`^${name}: "?([^"\\n]+)"?$`, 'm').exec(yaml)?.[1];

  it('when the chart is read, then its appVersion is the root package.json version (the image it runs by default)', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(field(chartYaml(), 'appVersion')).toBe(pkg.version);
  });

  it("when the chart's templates, values or schema change, then Chart.yaml's version changes too (chart-digests.json records each version's content)", () => {
    const version = field(chartYaml(), 'version')!;
    const recorded = (JSON.parse(readFileSync(CHART_DIGESTS, 'utf8')) as Record<string, string>)[version];
    const actual = chartDigest(CHART);
    if (recorded !== actual) {
      throw new Error(
        recorded === undefined
          ? `chart-digests.json has no entry for chart version ${version}. Record this version's content: add "${version}": "${actual}" to deploy/helm/chart-digests.json.`
          : `The chart changed but its version (${version}) did not: chart-digests.json records ${recorded} for ${version}, the chart is now ${actual}. ` +
              'Bump `version` in deploy/helm/training-sandbox/Chart.yaml (semver: minor while 0.x, for anything an operator may notice), ' +
              'add a section for it to UPGRADING.md saying what operators must do if the change breaks anything, ' +
              `and record "<new version>": "${actual}" in deploy/helm/chart-digests.json (keep the old entries).`,
      );
    }
  });

  it("when recorded versions are read, then each is a distinct semver version with distinct content, and the newest is the chart's", () => {
    const digests = JSON.parse(readFileSync(CHART_DIGESTS, 'utf8')) as Record<string, string>;
    const versions = Object.keys(digests);
    for (const v of versions) expect(v).toMatch(/^\d+\.\d+\.\d+$/);
    expect(new Set(Object.values(digests)).size).toBe(versions.length);
    const newest = [...versions].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).at(-1);
    expect(newest).toBe(field(chartYaml(), 'version'));
  });

  it("when a template changes, then the digest changes; when only Chart.yaml's version changes, then it does not", () => {
    const copy = mkdtempSync(join(tmpdir(), 'chart-digest-'));
    try {
      cpSync(CHART, copy, { recursive: true });
      const before = chartDigest(copy);
      writeFileSync(join(copy, 'Chart.yaml'), chartYaml().replace(/^version: .*$/m, 'version: 99.0.0'));
      writeFileSync(join(copy, 'UPGRADING.md'), 'notes');
      expect(chartDigest(copy)).toBe(before);
      writeFileSync(join(copy, 'templates', 'networkpolicy.yaml'), readFileSync(join(CHART, 'templates', 'networkpolicy.yaml'), 'utf8') + '\n');
      expect(chartDigest(copy)).not.toBe(before);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('when the chart has a version, then UPGRADING.md has a section headed with it', () => {
    const version = field(chartYaml(), 'version')!;
    const headings = readFileSync(UPGRADING, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('## '));
    expect(headings.some((h) => h.split(/[\s:(]+/).includes(version))).toBe(true);
  });
});
