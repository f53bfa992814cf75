import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartRenderer, findManifest, HELM, PREFIX, RELEASE, ROOT, type Manifest } from './support/chart';

// The chart's store exporters (templates/store-exporters.yaml) and MongoDB
// backup CronJob (templates/backup.yaml), rendered by the real helm and
// validated against the Kubernetes API's schemas (kubernetes-validate), off by
// default and on; what they run is exercised for real by the restore drill
// (services/identity/test/integration/backup-restore.test.ts). Kept apart from
// helm-chart.test.ts, which is long already.

const KUBERNETES_VALIDATE = join(ROOT, '.tools', 'kubernetes-validate', 'bin', 'kubernetes-validate');
const KUBERNETES_VERSION = '1.37.0';
const METRICS_PORT = 9090;
const SCRAPER = [
  {
    namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } },
    podSelector: { matchLabels: { 'app.kubernetes.io/name': 'prometheus' } },
  },
];
/** Stores the operator brings (stores.mode external), with their URLs in the keys Secret. */
const EXTERNAL_STORES = [
  '--set',
  'stores.mode=external',
  '--set-string',
  'secrets.values.MONGO_URL=mongodb://db.example.org:27017/sandbox',
  '--set-string',
  'secrets.values.REDIS_URL=redis://cache.example.org:6379',
];
const ALL_ON = [
  '--set',
  'stores.mongodb.exporter.enabled=true',
  '--set',
  'stores.redis.exporter.enabled=true',
  '--set',
  'metrics.serviceMonitor.enabled=true',
  '--set',
  'backup.enabled=true',
];

const chart = chartRenderer('helm-store-ops');
const { render, renderText, expectRefused } = chart;

const named = (manifests: Manifest[], kind: string, name: string): Manifest => {
  try {
    return findManifest(manifests, kind, name);
  } catch {
    throw new Error(`no ${kind} ${name} in ${manifests.map((m) => `${m.kind}/${m.metadata.name}`).join(', ')}`);
  }
};
const selector = (component: string) => ({
  'app.kubernetes.io/name': 'training-sandbox',
  'app.kubernetes.io/instance': RELEASE,
  'app.kubernetes.io/component': component,
});
const admitted = (policy: Manifest): string[] =>
  policy.spec.ingress.flatMap((rule: Manifest) => (rule.from ?? []).map((peer: Manifest) => peer.podSelector?.matchLabels?.['app.kubernetes.io/component']));
const envOf = (container: Manifest): Record<string, Manifest> => Object.fromEntries(container.env.map((e: Manifest) => [e.name, e]));

/** The hardening every pod of the chart has: non-root, read-only root, no capability, no escalation, seccomp, no API token. */
function expectHardened(pod: Manifest): void {
  expect(pod.automountServiceAccountToken).toBe(false);
  expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
  for (const container of pod.containers) {
    expect(container.securityContext).toMatchObject({
      runAsNonRoot: true,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.limits).toBeDefined();
  }
}

/** kubernetes-validate --strict: every manifest (but the operator's ServiceMonitor, which it has no schema for) passes. */
function expectValidOffline(rendered: string, label: string, count: number): void {
  const file = join(chart.home, `${label}.yaml`);
  writeFileSync(file, rendered);
  const result = spawnSync(KUBERNETES_VALIDATE, ['--strict', '--kubernetes-version', KUBERNETES_VERSION, file], { encoding: 'utf8' });
  if (result.error) throw result.error;
  const lines = (result.stdout + result.stderr).split('\n');
  expect({ status: result.status, errors: lines.filter((line) => line.startsWith('ERROR')) }).toEqual({ status: 0, errors: [] });
  expect(lines.filter((line) => / passed for resource /.test(line))).toHaveLength(count);
}

beforeAll(() => {
  for (const [tool, script] of [
    [HELM, 'source scripts/lib/helm.sh && ensure_helm'],
    [KUBERNETES_VALIDATE, 'source scripts/lib/provision.sh && ensure_kubernetes_validate'],
  ]) {
    if (existsSync(tool)) continue;
    const built = spawnSync('bash', ['-c', script], { cwd: ROOT, encoding: 'utf8' });
    if (built.status !== 0) throw new Error(`could not provision ${tool}: ${built.stderr}`);
  }
}, 15 * 60_000);

describe('store exporters and backups, off by default', () => {
  it('render no exporter, CronJob or backup claim, and the stores admit only the services that use them', () => {
    const manifests = render([]);
    expect(manifests.filter((m) => /exporter|backup/.test(m.metadata.name)).map((m) => `${m.kind}/${m.metadata.name}`)).toEqual([]);
    expect(admitted(named(manifests, 'NetworkPolicy', `${PREFIX}-mongodb`))).toEqual(['identity']);
    expect(admitted(named(manifests, 'NetworkPolicy', `${PREFIX}-redis`))).toEqual(['gateway', 'identity', 'oauth']);
  });
});

describe('store exporters and backups, on (with the ServiceMonitor)', () => {
  let rendered: string;
  let manifests: Manifest[];
  beforeAll(() => {
    rendered = renderText(ALL_ON);
    manifests = render(ALL_ON);
  });

  it('every manifest is valid against the Kubernetes API schemas (strict)', () => {
    expectValidOffline(rendered, 'all-on', manifests.filter((m) => m.kind !== 'ServiceMonitor').length);
  });

  it.each([
    ['mongodb', 'percona/mongodb_exporter:0.53.0', 9216, 27017],
    ['redis', 'oliver006/redis_exporter:v1.88.0', 9121, 6379],
  ])('the %s exporter: a hardened Deployment of its own, on a pinned image, its password from the stores Secret', (store, image, port, storePort) => {
    const deployment = named(manifests, 'Deployment', `${PREFIX}-${store}-exporter`);
    const pod = deployment.spec.template.spec;
    expectHardened(pod);
    const [container] = pod.containers;
    expect(container.image).toBe(image);
    expect(container.ports).toEqual([{ name: 'metrics', containerPort: port, protocol: 'TCP' }]);
    const env = envOf(container);
    const password = store === 'mongodb' ? 'MONGODB_PASSWORD' : 'REDIS_PASSWORD';
    expect(env[password].valueFrom.secretKeyRef).toEqual({ name: `${PREFIX}-stores`, key: `${store}-password` });
    // The store by its Service name, with no password on the command line or in a plain value.
    const target = store === 'mongodb' ? container.args.find((a: string) => a.startsWith('--mongodb.uri=')) : env.REDIS_ADDR.value;
    expect(target).toMatch(new RegExp(`^(--mongodb\\.uri=mongodb|redis)://${PREFIX}-${store}:${storePort}(/admin)?$`));
  });

  it('the exporters are scraped through the chart metrics Service and ServiceMonitor, labelled by component', () => {
    const service = named(manifests, 'Service', `${PREFIX}-metrics`);
    expect(service.spec.ports).toEqual([{ name: 'metrics', port: METRICS_PORT, targetPort: 'metrics', protocol: 'TCP' }]);
    for (const store of ['mongodb', 'redis']) {
      const labels = named(manifests, 'Deployment', `${PREFIX}-${store}-exporter`).spec.template.metadata.labels;
      expect(labels).toMatchObject({ ...service.spec.selector, 'app.kubernetes.io/component': `${store}-exporter` });
    }
    const monitor = named(manifests, 'ServiceMonitor', PREFIX);
    expect(monitor.spec.endpoints[0]).toMatchObject({ port: 'metrics', path: '/metrics' });
  });

  it('NetworkPolicies: each exporter admits only the scraper and reaches only its store and DNS; each store admits its exporter, MongoDB the backup too', () => {
    for (const [store, port, storePort] of [
      ['mongodb', 9216, 27017],
      ['redis', 9121, 6379],
    ] as const) {
      const policy = named(manifests, 'NetworkPolicy', `${PREFIX}-${store}-exporter`);
      expect(policy.spec.podSelector.matchLabels).toEqual(selector(`${store}-exporter`));
      expect(policy.spec.ingress).toEqual([{ ports: [{ port, protocol: 'TCP' }], from: SCRAPER }]);
      expect(policy.spec.egress).toHaveLength(2);
      expect(policy.spec.egress[1]).toEqual({ to: [{ podSelector: { matchLabels: selector(store) } }], ports: [{ port: storePort, protocol: 'TCP' }] });
    }
    expect(admitted(named(manifests, 'NetworkPolicy', `${PREFIX}-mongodb`))).toEqual(['identity', 'mongodb-exporter', 'backup']);
    expect(admitted(named(manifests, 'NetworkPolicy', `${PREFIX}-redis`))).toEqual(['gateway', 'identity', 'oauth', 'redis-exporter']);
    const backup = named(manifests, 'NetworkPolicy', `${PREFIX}-backup`);
    expect(backup.spec.ingress).toBeUndefined();
    expect(backup.spec.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(backup.spec.egress[1]).toEqual({ to: [{ podSelector: { matchLabels: selector('mongodb') } }], ports: [{ port: 27017, protocol: 'TCP' }] });
  });

  it('the backup CronJob: one run at a time, hardened, MONGO_URL from the stores Secret and none of the keys, dumps on a claim kept past uninstall', () => {
    const cronJob = named(manifests, 'CronJob', `${PREFIX}-backup`);
    expect(cronJob.spec).toMatchObject({ schedule: '17 3 * * *', concurrencyPolicy: 'Forbid' });
    const pod = cronJob.spec.jobTemplate.spec.template.spec;
    expectHardened(pod);
    expect(pod.securityContext).toMatchObject({ runAsUser: 999, runAsGroup: 999, fsGroup: 999 });
    const [container] = pod.containers;
    expect(container.image).toBe('mongo:8.0');
    expect(container.command[2]).toMatch(/mongodump --config="\$TMPDIR\/mongodump\.yaml" --archive="\$name\.partial" --gzip/);
    const env = envOf(container);
    expect(env.MONGO_URL.valueFrom.secretKeyRef).toEqual({ name: `${PREFIX}-stores`, key: 'MONGO_URL' });
    expect(Object.keys(env).sort()).toEqual(['BACKUP_DIR', 'BACKUP_PREFIX', 'MONGO_URL', 'RETENTION_COUNT', 'RETENTION_DAYS', 'TMPDIR']);
    expect(env.RETENTION_COUNT.value).toBe('14');
    expect(env.RETENTION_DAYS.value).toBe('30');
    expect(pod.volumes).toEqual([
      { name: 'backup', persistentVolumeClaim: { claimName: `${PREFIX}-backup` } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } },
    ]);
    const claim = named(manifests, 'PersistentVolumeClaim', `${PREFIX}-backup`);
    expect(claim.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    expect(claim.spec.resources.requests.storage).toBe('20Gi');
  });
});

describe('backups with other stores settings', () => {
  it('an existing claim: no claim rendered, that one mounted', () => {
    const manifests = render(['--set', 'backup.enabled=true', '--set', 'backup.destination.pvc.existingClaim=sandbox-dumps']);
    expect(manifests.filter((m) => m.kind === 'PersistentVolumeClaim')).toEqual([]);
    const pod = named(manifests, 'CronJob', `${PREFIX}-backup`).spec.jobTemplate.spec.template.spec;
    expect(pod.volumes[0]).toEqual({ name: 'backup', persistentVolumeClaim: { claimName: 'sandbox-dumps' } });
  });

  it('stores.existingSecret: MONGO_URL composed from the password, which comes first', () => {
    const args = ['--set', 'backup.enabled=true', '--set', 'stores.existingSecret=my-stores', '--set', 'stores.mongodb.exporter.enabled=true'];
    const manifests = render(args);
    const env = named(manifests, 'CronJob', `${PREFIX}-backup`).spec.jobTemplate.spec.template.spec.containers[0].env as Manifest[];
    const names = env.map((e) => e.name);
    expect(names.indexOf('MONGODB_PASSWORD')).toBeLessThan(names.indexOf('MONGO_URL'));
    expect(env.find((e) => e.name === 'MONGODB_PASSWORD')!.valueFrom.secretKeyRef).toEqual({ name: 'my-stores', key: 'mongodb-password' });
    expect(env.find((e) => e.name === 'MONGO_URL')!.value).toBe(
      `mongodb://sandbox:$(MONGODB_PASSWORD)@${PREFIX}-mongodb:27017/training-sandbox?authSource=admin`,
    );
    const exporterEnv = envOf(named(manifests, 'Deployment', `${PREFIX}-mongodb-exporter`).spec.template.spec.containers[0]);
    expect(exporterEnv.MONGODB_PASSWORD.valueFrom.secretKeyRef).toEqual({ name: 'my-stores', key: 'mongodb-password' });
    expectValidOffline(renderText(args), 'existing-secret', manifests.length);
  });

  it('stores.mode external: MONGO_URL from the keys Secret, and egress where identity may reach MongoDB', () => {
    const args = ['--set', 'backup.enabled=true', ...EXTERNAL_STORES, '--set', 'backup.runAsUser=null'];
    const manifests = render(args);
    const pod = named(manifests, 'CronJob', `${PREFIX}-backup`).spec.jobTemplate.spec.template.spec;
    expect(envOf(pod.containers[0]).MONGO_URL.valueFrom.secretKeyRef).toEqual({ name: `${PREFIX}-secrets`, key: 'MONGO_URL' });
    expect(pod.serviceAccountName).toBe(`${PREFIX}-identity`);
    expect(pod.securityContext.runAsUser).toBeUndefined();
    expect(named(manifests, 'NetworkPolicy', `${PREFIX}-backup`).spec.egress[1]).toEqual({ ports: [{ port: 27017, protocol: 'TCP' }] });
    expectValidOffline(renderText(args), 'external', manifests.length);
  });

  it('runAsUser null (the platform assigns UIDs, as OpenShift does) is accepted for the backup and the stores, and leaves the UID out', () => {
    const manifests = render(['--set', 'backup.enabled=true', '--set', 'backup.runAsUser=null', '--set', 'stores.mongodb.runAsUser=null']);
    expect(named(manifests, 'CronJob', `${PREFIX}-backup`).spec.jobTemplate.spec.template.spec.securityContext).toEqual({
      runAsNonRoot: true,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(named(manifests, 'StatefulSet', `${PREFIX}-mongodb`).spec.template.spec.securityContext.runAsUser).toBeUndefined();
  });

  it.each([
    [
      'a backup with no MongoDB',
      ['--set', 'backup.enabled=true', '--set', 'stores.mode=memory', '--set', 'defaults.replicas=1'],
      'backup.enabled needs a MongoDB',
    ],
    [
      'an exporter without metrics',
      ['--set', 'stores.redis.exporter.enabled=true', '--set', 'metrics.enabled=false'],
      'stores.redis.exporter needs metrics.enabled',
    ],
    [
      'an exporter beside external stores',
      ['--set', 'stores.mongodb.exporter.enabled=true', ...EXTERNAL_STORES],
      'stores.mongodb.exporter needs stores.mode inCluster',
    ],
    ['an unknown backup key', ['--set', 'backup.destination.s3=bucket'], 'additional properties'],
    ['a negative retention', ['--set', 'backup.retention.days=-1'], 'minimum'],
  ])('%s is refused, saying why', (_label, args, message) => {
    expectRefused(args, message);
  });
});
