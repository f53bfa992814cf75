import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

// The chart on a real one-node Kubernetes (deploy/cluster/up.sh): admitted by
// a real API server under PodSecurity `restricted`, started by a real kubelet,
// rolled by a real `helm upgrade`. Run by `npm run test:cluster`
// (deploy/cluster/test/run.sh), which brings the cluster up, imports the
// image, starts the stores the pods reach at the node's address, and runs
// this inside the node's network namespace: Service and pod IPs are reachable
// from here and from nowhere else. Every load is bounded in count and time
// and aimed only at those addresses.

const ROOT = resolve(__dirname, '..', '..', '..');
// run.sh copies the chart at the start of a run, so one run tests one chart
const CHART = process.env.CLUSTER_CHART || join(ROOT, 'deploy', 'helm', 'training-sandbox');
const need = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run this through npm run test:cluster`);
  return value;
};
const KUBECTL = need('CLUSTER_KUBECTL');
const HELM = need('CLUSTER_HELM');
const DNS_SVC_IP = need('CLUSTER_DNS_IP');
const STORE_HOST = need('CLUSTER_STORE_HOST');
const FIGURES = need('CLUSTER_FIGURES');
const VALUES = join(__dirname, 'values-cluster.yaml');
const MEMORY_VALUES = join(__dirname, 'values-memory.yaml');
const COMPONENTS = ['gateway', 'identity', 'oauth', 'data', 'playground'] as const;
type Component = (typeof COMPONENTS)[number];

const exec = promisify(execFile);
async function run(cmd: string, args: string[], timeout = 600_000): Promise<string> {
  try {
    const { stdout } = await exec(cmd, args, { timeout, maxBuffer: 64 * 1024 * 1024, env: process.env });
    return stdout;
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd.split('/').pop()} ${args.join(' ')}\n${failed.stderr || failed.stdout || failed.message}`);
  }
}
const kubectl = (...args: string[]) => run(KUBECTL, args);
const kjson = async <T>(...args: string[]): Promise<T> => JSON.parse(await kubectl(...args, '-o', 'json')) as T;
const helm = (...args: string[]) => run(HELM, args, 15 * 60_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const figures: Record<string, unknown> = {};
const figure = (key: string, value: unknown) => {
  figures[key] = value;
  mkdirSync(dirname(FIGURES), { recursive: true });
  writeFileSync(FIGURES, `${JSON.stringify(figures, null, 2)}\n`);
  console.log(`figure ${key}: ${JSON.stringify(value)}`);
};

// --- HTTP, plain node:http so every failure is counted, not retried ---------
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
/**
 * A connection per request: for loads across a roll of the gateway itself,
 * where a kept-alive connection that the draining gateway closes while a
 * request is being sent on it ends in ECONNRESET (the HTTP keep-alive race,
 * seen once in a run of the migration step): not what those steps judge.
 */
const freshAgent = new http.Agent({ keepAlive: false, maxSockets: 64 });
/** The few fields of an answer's JSON body this test reads. */
type AnswerBody = { token?: string; apiKey?: string; down?: string[]; message?: string; error?: { code?: string; message?: string } };
type Answer = { status: number; json: AnswerBody | undefined };
function request(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; apiKey?: string; body?: unknown; timeoutMs?: number; agent?: http.Agent } = {},
): Promise<Answer> {
  const url = new URL(path, base);
  const body = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.apiKey) headers['x-api-key'] = opts.apiKey;
  if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(body.length) });
  return new Promise((resolveAnswer, reject) => {
    const req = http.request(url, { method, headers, agent: opts.agent ?? agent, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: AnswerBody | undefined;
        try {
          json = JSON.parse(text) as AnswerBody;
        } catch {
          json = undefined;
        }
        resolveAnswer({ status: res.statusCode ?? 0, json });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

type LoadResult = {
  sent: number;
  ok: number;
  failed: number;
  failures: Record<string, number>;
  messages: Record<string, string>;
  durationMs: number;
  rps: number;
};
type Probe = { name: string; method: string; path: string; apiKey?: string; token?: string; expect: number };
/**
 * A bounded load: `concurrency` workers, each paced to `rps / concurrency`,
 * until stop() or maxMs (and never more than maxRequests). A failure is no
 * answer or an answer other than the probe's expected status.
 */
function startLoad(base: string, probes: Probe[], { rps = 40, concurrency = 8, maxMs = 10 * 60_000, maxRequests = 100_000, keepAlive = true } = {}) {
  let stopped = false;
  const result: LoadResult = { sent: 0, ok: 0, failed: 0, failures: {}, messages: {}, durationMs: 0, rps: 0 };
  const started = Date.now();
  const interval = (1000 * concurrency) / rps;
  const worker = async (w: number) => {
    let i = w;
    while (!stopped && Date.now() - started < maxMs && result.sent < maxRequests) {
      const t = Date.now();
      const probe = probes[i++ % probes.length];
      result.sent += 1;
      try {
        const answer = await request(base, probe.method, probe.path, { apiKey: probe.apiKey, token: probe.token, agent: keepAlive ? agent : freshAgent });
        if (answer.status === probe.expect) result.ok += 1;
        else {
          result.failed += 1;
          const down = Array.isArray(answer.json?.down) ? ` down=${answer.json.down.join(',')}` : '';
          const key = `${probe.name}: ${answer.status} ${answer.json?.error?.code ?? ''}${down}`.trim();
          result.failures[key] = (result.failures[key] ?? 0) + 1;
          // the gateway's own words for the first of each kind: what a figure needs to be explained
          result.messages[key] ??= String(answer.json?.error?.message ?? answer.json?.message ?? '').slice(0, 200);
        }
      } catch (error) {
        result.failed += 1;
        const key = `${probe.name}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
        result.failures[key] = (result.failures[key] ?? 0) + 1;
      }
      await sleep(Math.max(0, interval - (Date.now() - t)));
    }
  };
  const done = Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w))).then(() => {
    result.durationMs = Date.now() - started;
    result.rps = Math.round((result.sent * 1000) / result.durationMs);
    return result;
  });
  const handle = {
    stop: async () => {
      stopped = true;
      return done;
    },
    result,
    done,
  };
  running.add(handle);
  void done.then(() => running.delete(handle));
  return handle;
}
/** The failures of every probe but /health/ready. */
const apiFailures = (r: LoadResult) => Object.fromEntries(Object.entries(r.failures).filter(([k]) => !k.startsWith('ready:')));
/** Loads still going when a step failed half-way: stopped before the next step. */
const running = new Set<{ stop: () => Promise<LoadResult> }>();
afterEach(async () => {
  await Promise.all([...running].map((l) => l.stop()));
});

// --- the cluster --------------------------------------------------------------
const fullname = (release: string) => (release.includes('training-sandbox') ? release : `${release}-training-sandbox`);
async function restrictedNamespace(ns: string) {
  // a run kept up (KEEP_CLUSTER=1) leaves its namespaces: start from none
  await kubectl('delete', 'namespace', ns, '--ignore-not-found', '--wait=true', '--timeout=180s');
  await kubectl('create', 'namespace', ns);
  await kubectl('label', 'namespace', ns, 'pod-security.kubernetes.io/enforce=restricted', 'pod-security.kubernetes.io/enforce-version=latest');
}
type Container = {
  name: string;
  env: { name: string; value?: string }[];
  resources: { limits: { memory: string } };
  securityContext: { capabilities: { drop: string[] } };
};
type Pod = {
  metadata: { name: string; uid: string; labels: Record<string, string>; deletionTimestamp?: string };
  status: {
    phase: string;
    podIP: string;
    conditions?: { type: string; status: string }[];
    containerStatuses: { state: unknown; lastState?: { terminated?: { reason?: string } }; containerID: string; restartCount: number }[];
  };
  spec: { securityContext: { runAsNonRoot?: boolean }; containers: Container[] };
};
type Deployment = {
  metadata: { generation: number };
  spec: { replicas: number };
  status: { observedGeneration: number; updatedReplicas?: number; readyReplicas?: number; replicas?: number };
};
async function pods(ns: string, component?: Component): Promise<Pod[]> {
  const selector = component ? `app.kubernetes.io/component=${component}` : 'app.kubernetes.io/component';
  const list = await kjson<{ items: Pod[] }>('-n', ns, 'get', 'pods', '-l', selector);
  return list.items.filter((p) => !p.metadata.labels['app.kubernetes.io/component']?.startsWith('smoke'));
}
const ready = (p: Pod) => (p.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
/** Every Deployment of the release rolled out and every pod of it Ready. */
async function waitReady(ns: string, timeoutMs = 600_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const deployments = await kjson<{ items: Deployment[] }>('-n', ns, 'get', 'deployments');
    const all = await pods(ns);
    const settled =
      deployments.items.length === COMPONENTS.length &&
      deployments.items.every(
        (d) =>
          d.status.observedGeneration >= d.metadata.generation &&
          d.status.updatedReplicas === d.spec.replicas &&
          d.status.readyReplicas === d.spec.replicas &&
          (d.status.replicas ?? 0) === d.spec.replicas,
      );
    const livePods = all.filter((p) => !Object.hasOwn(p.metadata, 'deletionTimestamp') && !p.metadata.deletionTimestamp);
    if (settled && livePods.every(ready) && livePods.length === all.length) return all;
    if (Date.now() > end) {
      const states = all.map((p) => `${p.metadata.name}: ${p.status.phase} ${JSON.stringify(p.status.containerStatuses.map((c) => c.state))}`);
      throw new Error(`not Ready after ${timeoutMs} ms:\n${states.join('\n')}`);
    }
    await sleep(1000);
  }
}
async function clusterIP(ns: string, service: string) {
  return (await kubectl('-n', ns, 'get', 'service', service, '-o', 'jsonpath={.spec.clusterIP}')).trim();
}
async function helmTest(ns: string, release: string) {
  // no --logs: the chart's smoke-test hook is deleted on success
  // (hook-delete-policy hook-succeeded), so helm could not fetch its logs
  const out = await helm('test', release, '-n', ns, '--timeout', '5m');
  expect(out).toMatch(/Phase:\s+Succeeded/);
  expect(out).not.toMatch(/not ok/);
  return out;
}
/** A restricted-compliant pod from the sandbox's image that fetches URL by its DNS name; its exit code and output. */
async function fetchFromPod(ns: string, name: string, url: string) {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: {
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: { runAsNonRoot: true, runAsUser: 10001, runAsGroup: 10001, seccompProfile: { type: 'RuntimeDefault' } },
      containers: [
        {
          name: 'fetch',
          image: 'localhost/training-sandbox:1.0.0',
          imagePullPolicy: 'Never',
          command: [
            'node',
            '-e',
            `fetch(${JSON.stringify(url)}).then(async (r) => { console.log(r.status, (await r.text()).slice(0, 200)); process.exit(r.status === 200 ? 0 : 1); }, (e) => { console.log('error', e.cause?.code ?? e.message); process.exit(1); })`,
          ],
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { cpu: '500m', memory: '128Mi' } },
        },
      ],
    },
  };
  const file = join(dirname(FIGURES), `${name}.json`);
  writeFileSync(file, JSON.stringify(pod));
  await kubectl('-n', ns, 'apply', '-f', file);
  const end = Date.now() + 120_000;
  let phase = '';
  while (Date.now() < end) {
    phase = (await kubectl('-n', ns, 'get', 'pod', name, '-o', 'jsonpath={.status.phase}')).trim();
    if (phase === 'Succeeded' || phase === 'Failed') break;
    await sleep(1000);
  }
  const logs = await kubectl('-n', ns, 'logs', name);
  await kubectl('-n', ns, 'delete', 'pod', name, '--wait=false');
  return { phase, logs };
}
/** Signs up and makes an app, as a learner would, through the Service; its session and API key. */
async function learner(base: string) {
  const email = `cluster-${Date.now()}-${randomBytes(3).toString('hex')}@example.org`;
  const password = randomBytes(18).toString('base64url');
  const reg = await request(base, 'POST', '/api/auth/register', { body: { email, password } });
  expect(reg.status).toBe(201);
  const app = await request(base, 'POST', '/api/apps', {
    token: reg.json?.token,
    body: { name: 'cluster load', description: 'deploy/cluster test', scopes: ['hr:read'] },
  });
  expect(app.status).toBe(201);
  return { token: reg.json!.token!, apiKey: app.json!.apiKey! };
}
async function mixedProbes(base: string, apps = 3): Promise<Probe[]> {
  const probes: Probe[] = [];
  for (let i = 0; i < apps; i += 1) {
    const { token, apiKey } = await learner(base);
    probes.push(
      { name: 'data page', method: 'GET', path: '/playground/data/hr/departments?page_size=5', apiKey, expect: 200 },
      { name: 'me', method: 'GET', path: '/api/me', token, expect: 200 },
      { name: 'echo', method: 'GET', path: '/playground/echo?cluster=1', apiKey, expect: 200 },
    );
  }
  probes.push({ name: 'ready', method: 'GET', path: '/health/ready', expect: 200 });
  // each probe answers as expected before any load counts on it
  for (const p of probes) {
    const answer = await request(base, p.method, p.path, { apiKey: p.apiKey, token: p.token });
    if (answer.status !== p.expect) throw new Error(`${p.name} ${p.path}: ${answer.status} ${JSON.stringify(answer.json)?.slice(0, 300)}`);
  }
  return probes;
}
async function secretData(ns: string, name: string): Promise<Record<string, string>> {
  const s = await kjson<{ data: Record<string, string> }>('-n', ns, 'get', 'secret', name);
  return Object.fromEntries(Object.entries(s.data).map(([k, v]) => [k, Buffer.from(v, 'base64').toString('utf8')]));
}
const uidsOf = async (ns: string, c: Component) => new Set((await pods(ns, c)).map((p) => p.metadata.uid));
/**
 * The warnings and errors every sandbox pod logs from now until stop(), the
 * pods that end meanwhile included (their logs go with them): what explains
 * a failure during a roll.
 */
function followWarnings(ns: string) {
  const lines: string[] = [];
  const follow = (selector: string) => {
    const child = spawn(KUBECTL, ['-n', ns, 'logs', '-f', '-l', selector, '--prefix', '--since=2s', '--max-log-requests', '40'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      const text = rest + chunk.toString('utf8');
      const all = text.split('\n');
      rest = all.pop() ?? '';
      for (const line of all) if (/"level":"(warn|error|fatal)"/.test(line) && lines.length < 200) lines.push(line.slice(0, 600));
    });
    return child;
  };
  const children = COMPONENTS.map((c) => follow(`app.kubernetes.io/component=${c}`));
  return {
    /** Pods started after the follow began are not followed: read them once at the end. */
    async stop(since: Date) {
      for (const child of children) child.kill();
      const fresh = await kubectl(
        '-n',
        ns,
        'logs',
        '-l',
        'app.kubernetes.io/component',
        '--prefix',
        `--since-time=${since.toISOString()}`,
        '--max-log-requests',
        '40',
        '--tail',
        '-1',
      ).catch((e: Error) => e.message);
      for (const line of fresh.split('\n'))
        if (/"level":"(warn|error|fatal)"/.test(line) && !lines.includes(line.slice(0, 600)) && lines.length < 200) lines.push(line.slice(0, 600));
      return lines;
    },
  };
}

/** The sum of one metric's series on a pod's metrics port (9090); 0 when it has none. */
async function metricSum(podIP: string, name: string): Promise<number> {
  const text = await new Promise<string>((res, rej) =>
    http
      .get(`http://${podIP}:9090/metrics`, { agent: false }, (r) => {
        let b = '';
        r.on('data', (c) => {
          b += c;
        });
        r.on('end', () => res(b));
      })
      .on('error', rej),
  );
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
}

// --- the steps ----------------------------------------------------------------
const MEM_NS = 'ts-memory';
const EXT_NS = 'ts-external';
const RELEASE = 'sandbox';
const GATEWAY = `${fullname(RELEASE)}-gateway`;
let base = '';
let probes: Probe[] = [];

afterAll(() => {
  agent.destroy();
  freshAgent.destroy();
});

describe('the chart on a real one-node Kubernetes', () => {
  test('memory mode: admitted under PodSecurity restricted, every pod Ready, helm test passes, the API answers through the Service', async () => {
    await restrictedNamespace(MEM_NS);
    const t0 = Date.now();
    await helm('install', RELEASE, CHART, '-n', MEM_NS, '-f', VALUES, '-f', MEMORY_VALUES);
    const all = await waitReady(MEM_NS);
    figure('memory.timeToReadySeconds', Math.round((Date.now() - t0) / 1000));
    expect(all).toHaveLength(COMPONENTS.length);
    await helmTest(MEM_NS, RELEASE);
    const ip = await clusterIP(MEM_NS, GATEWAY);
    const health = await request(`http://${ip}/`, 'GET', '/health/ready');
    expect(health.status).toBe(200);
    await learner(`http://${ip}/`);
    // free the node for the rest
    await helm('uninstall', RELEASE, '-n', MEM_NS, '--wait', '--timeout', '3m');
    await kubectl('delete', 'namespace', MEM_NS, '--wait=false');
  });

  test('external stores, without mutual TLS (grpcTls.mode=off: plaintext, as a 0.1.x release talks): admitted under restricted, every pod Ready, helm test passes, the API answers through the Service and by DNS name in the cluster', async () => {
    await restrictedNamespace(EXT_NS);
    const db = `cluster${Date.now()}`;
    const t0 = Date.now();
    // mutual TLS comes with the next step, the three upgrades of a release that had none
    await helm(
      'install',
      RELEASE,
      CHART,
      '-n',
      EXT_NS,
      '-f',
      VALUES,
      '--set',
      'grpcTls.mode=off',
      '--set',
      'stores.mode=external',
      '--set',
      `secrets.values.MONGO_URL=mongodb://${STORE_HOST}:27017/${db}`,
      '--set',
      `secrets.values.REDIS_URL=redis://${STORE_HOST}:6379`,
    );
    const all = await waitReady(EXT_NS);
    figure('external.timeToReadySeconds', Math.round((Date.now() - t0) / 1000));
    expect(all).toHaveLength(COMPONENTS.length * 2);
    for (const p of all) {
      // what PodSecurity restricted demands, as the API server admitted it
      expect(p.spec.securityContext.runAsNonRoot).toBe(true);
      for (const c of p.spec.containers) expect(c.securityContext.capabilities.drop).toEqual(['ALL']);
    }
    await helmTest(EXT_NS, RELEASE);
    const ip = await clusterIP(EXT_NS, GATEWAY);
    base = `http://${ip}/`;
    expect((await request(base, 'GET', '/health/ready')).status).toBe(200);

    // DNS from the node: CoreDNS answers the Service's ClusterIP, and each
    // headless gRPC Service with exactly its Ready pods' IPs
    const resolver = new Resolver();
    resolver.setServers([DNS_SVC_IP]);
    expect(await resolver.resolve4(`${GATEWAY}.${EXT_NS}.svc.cluster.local`)).toEqual([ip]);
    for (const c of COMPONENTS.filter((x) => x !== 'gateway')) {
      const ips = (await resolver.resolve4(`${fullname(RELEASE)}-${c}.${EXT_NS}.svc.cluster.local`)).sort();
      const podIPs = (await pods(EXT_NS, c))
        .filter(ready)
        .map((p) => p.status.podIP)
        .sort();
      expect(ips).toEqual(podIPs);
    }
    // and from inside the cluster, by the Service's short name
    const fetched = await fetchFromPod(EXT_NS, 'dns-fetch', `http://${GATEWAY}/health/ready`);
    expect(fetched.logs).toMatch(/^200 /);
    expect(fetched.phase).toBe('Succeeded');

    probes = await mixedProbes(base);
  });

  test('from no mutual TLS to mutual TLS under load, one helm upgrade per step (grpcTls.mode off -> accept-tls -> send-tls -> on): every pod rolls each time, zero failed requests, and the plaintext calls stop being counted before the last step', async () => {
    const outcome: Record<string, unknown> = {};
    for (const mode of ['accept-tls', 'send-tls', 'on']) {
      const before = new Set((await pods(EXT_NS)).map((p) => p.metadata.uid));
      const stepStarted = new Date();
      const warnings = followWarnings(EXT_NS);
      const load = startLoad(base, probes, { rps: 40, concurrency: 8, maxMs: 8 * 60_000, keepAlive: false });
      await sleep(3000);
      const t0 = Date.now();
      await helm('upgrade', RELEASE, CHART, '-n', EXT_NS, '--reset-then-reuse-values', '--set', `grpcTls.mode=${mode}`, '--wait', '--timeout', '8m');
      const all = await waitReady(EXT_NS);
      const rolloutSeconds = Math.round((Date.now() - t0) / 1000);
      // what an operator reads before the next step (UPGRADING.md): each service pod's count of plaintext calls
      const plaintext = async () =>
        Object.fromEntries(
          await Promise.all(
            all
              .filter((p) => p.metadata.labels['app.kubernetes.io/component'] !== 'gateway')
              .map(async (p) => [p.metadata.name, await metricSum(p.status.podIP, 'sandbox_grpc_server_plaintext_calls_total')] as const),
          ),
        );
      const countedAfterRoll = await plaintext();
      await sleep(8000);
      const countedLater = await plaintext();
      const result = await load.stop();
      // the processes' own start-up warning of a migration setting is expected: the rest explains a failure
      const warned = (await warnings.stop(stepStarted)).filter(
        (l) => !l.includes('this port takes calls in plaintext too') && !l.includes('calls taken in plaintext'),
      );
      outcome[mode] = {
        rolloutSeconds,
        sent: result.sent,
        ok: result.ok,
        failed: result.failed,
        failures: result.failures,
        messages: result.messages,
        plaintextCalls: countedLater,
        warnings: warned,
      };
      figure('upgrade.grpcTlsMigration', outcome);

      expect(all.filter((p) => before.has(p.metadata.uid)).map((p) => p.metadata.name)).toEqual([]);
      for (const p of all)
        expect({ pod: p.metadata.name, GRPC_TLS: p.spec.containers[0].env.find((e: { name: string }) => e.name === 'GRPC_TLS')?.value }).toEqual({
          pod: p.metadata.name,
          GRPC_TLS: mode,
        });
      // Every learner-facing call answered, as in the upgrade below; /health/ready
      // is held apart for the same reason (a draining replica's NOT_SERVING can
      // still make it say "down" while the other serves; docs/cluster.md,
      // "Findings"), but only as such a verdict: never an unanswered request.
      expect(apiFailures(result)).toEqual({});
      expect(Object.keys(result.failures).filter((k) => !/^ready: 503 \S* ?down=/.test(k))).toEqual([]);
      expect(result.ok).toBeGreaterThan(100);
      if (mode === 'accept-tls') {
        // every caller still calls in plaintext: counted
        expect(Object.values(countedLater).reduce((n, c) => n + c, 0)).toBeGreaterThan(0);
      } else if (mode === 'send-tls') {
        // every caller now calls with mutual TLS: the count grows no more on any pod, so `on` refuses no one
        expect(countedLater).toEqual(countedAfterRoll);
      } else {
        // under `on` there is no plaintext to count
        expect(Object.values(countedLater).every((c) => c === 0)).toBe(true);
      }
    }
  });

  test("the operators' CLI in each gateway pod's admin container: its own certificate lets it act, audited as cli; from the gateway's container, with the gateway's certificate, identity refuses it", async () => {
    const gateway = (await pods(EXT_NS, 'gateway')).filter(ready)[0]!;
    expect(gateway.spec.containers.map((c: { name: string }) => c.name)).toEqual(['gateway', 'admin']);
    const admin = (...args: string[]) => kubectl('-n', EXT_NS, 'exec', gateway.metadata.name, '-c', 'admin', '--', 'sandbox-admin', ...args);
    expect(JSON.parse(await admin('users', '--json'))).toMatchObject({ users: expect.any(Array), total: expect.any(Number) });
    // The usage export is an audited read: the audit log names whom identity verified.
    await admin('usage', '--json');
    const [latest] = JSON.parse(await admin('audit', '--json', '--page-size', '1')).entries;
    expect(latest).toMatchObject({ action: 'usage.export', actor: { kind: 'cli', id: 'cli', statedUser: expect.stringContaining('@') } });
    const refused = await kubectl('-n', EXT_NS, 'exec', gateway.metadata.name, '-c', 'gateway', '--', 'sandbox-admin', 'users').then(
      () => 'answered',
      (error: Error) => error.message,
    );
    expect(refused).toMatch(/\(operator_required\)/);
  });

  test('helm upgrade rotating PAGE_TOKEN_KEY under load: zero failed requests, only data rolls, every other generated key kept (lookup on a real API server)', async () => {
    const secretName = `${fullname(RELEASE)}-secrets`;
    const before = await secretData(EXT_NS, secretName);
    const uidsBefore = Object.fromEntries(await Promise.all(COMPONENTS.map(async (c) => [c, await uidsOf(EXT_NS, c)] as const)));
    const newKey = randomBytes(32).toString('base64');
    expect(before.PAGE_TOKEN_KEY).not.toBe(newKey);

    const load = startLoad(base, probes, { rps: 40, concurrency: 8, maxMs: 8 * 60_000 });
    await sleep(5000);
    const t0 = Date.now();
    await helm(
      'upgrade',
      RELEASE,
      CHART,
      '-n',
      EXT_NS,
      '--reset-then-reuse-values',
      '--set',
      `secrets.values.PAGE_TOKEN_KEY=${newKey}`,
      '--wait',
      '--timeout',
      '8m',
    );
    await waitReady(EXT_NS);
    const rolloutSeconds = Math.round((Date.now() - t0) / 1000);
    await sleep(10_000);
    const result = await load.stop();
    figure('upgrade.rotatePageTokenKey', { rolloutSeconds, ...result });

    // --reset-then-reuse-values, not --reuse-values: helm 3's --reuse-values
    // also reuses the previous release's chart defaults, so a default the new
    // chart adds is missing (docs/cluster.md, "Findings")
    const after = await secretData(EXT_NS, secretName);
    expect(after.PAGE_TOKEN_KEY).toBe(newKey);
    for (const k of ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'JWT_SIGNING_KEY', 'MONGO_URL', 'REDIS_URL']) expect(after[k]).toBe(before[k]);
    for (const c of COMPONENTS) {
      const now = await uidsOf(EXT_NS, c);
      const kept = [...now].filter((u) => uidsBefore[c].has(u)).length;
      if (c === 'data') expect(kept).toBe(0);
      else expect(kept).toBe(uidsBefore[c].size);
    }
    // Every learner-facing call answered. /health/ready is held apart: before
    // the gateway asked again on a NOT_SERVING answer (readiness.ts), a data
    // pod draining after SIGTERM made it answer 503 "down: data" while the
    // other replica served every call (docs/cluster.md, "Findings"). Counted
    // in the figure, not failed here.
    expect(apiFailures(result)).toEqual({});
    expect(result.ok).toBeGreaterThan(100);
  });

  /**
   * After a pod or its process went under load: the load runs on a little,
   * then at most the calls in flight can have failed (the load has 8 at once),
   * and a fresh round of requests all answer. Returns the load's figures.
   */
  async function afterFault(load: ReturnType<typeof startLoad>) {
    await sleep(5000);
    const result = await load.stop();
    expect(result.failed).toBeLessThanOrEqual(8);
    const clean = await startLoad(base, probes, { rps: 40, concurrency: 8, maxRequests: 120 }).done;
    expect(apiFailures(clean)).toEqual({});
    return { sent: result.sent, failed: result.failed, failures: result.failures };
  }

  test('a pod of each service deleted under load: the Deployment replaces it, readiness and the gateway routing follow', async () => {
    const outcome: Record<string, unknown> = {};
    for (const c of COMPONENTS) {
      const load = startLoad(base, probes, { rps: 40, concurrency: 8, maxMs: 3 * 60_000 });
      await sleep(3000);
      const [victim] = await pods(EXT_NS, c);
      const t0 = Date.now();
      await kubectl('-n', EXT_NS, 'delete', 'pod', victim.metadata.name, '--wait=false');
      const all = await waitReady(EXT_NS, 180_000);
      const replacedSeconds = Math.round((Date.now() - t0) / 1000);
      expect(all.map((p) => p.metadata.uid)).not.toContain(victim.metadata.uid);
      outcome[c] = { replacedSeconds, ...(await afterFault(load)) };
    }
    figure('podLoss', outcome);
  });

  test('the process of a pod of each service SIGKILLed under load (no drain at all): only its calls in flight fail, the kubelet restarts it, then every answer comes', async () => {
    // `kubectl delete --force` still drains (the kubelet keeps the pod's
    // grace period), so the crash is made on the node itself: containerd
    // kills the container's task with SIGKILL.
    const outcome: Record<string, unknown> = {};
    for (const c of COMPONENTS) {
      const load = startLoad(base, probes, { rps: 40, concurrency: 8, maxMs: 3 * 60_000 });
      await sleep(3000);
      const [victim] = await pods(EXT_NS, c);
      const id = String(victim.status.containerStatuses[0].containerID).replace(/^containerd:\/\//, '');
      const restarts = victim.status.containerStatuses[0].restartCount;
      const t0 = Date.now();
      await run(need('CLUSTER_CTR'), ['task', 'kill', '--signal', 'SIGKILL', id]);
      const end = Date.now() + 180_000;
      for (;;) {
        const now = (await pods(EXT_NS, c)).find((p) => p.metadata.uid === victim.metadata.uid);
        if (now && now.status.containerStatuses[0].restartCount > restarts && ready(now)) break;
        if (Date.now() > end) throw new Error(`${victim.metadata.name} not restarted and Ready in 180 s`);
        await sleep(500);
      }
      const restartedSeconds = Math.round((Date.now() - t0) / 1000);
      outcome[c] = { restartedSeconds, ...(await afterFault(load)) };
    }
    figure('processKilled', outcome);
  });

  test('data scaled from 2 to 3 under load: the new pod is Ready and receives calls; an HPA is admitted', async () => {
    const load = startLoad(base, probes, { rps: 40, concurrency: 8, maxMs: 7 * 60_000 });
    const before = await uidsOf(EXT_NS, 'data');
    const t0 = Date.now();
    await kubectl('-n', EXT_NS, 'scale', `deployment/${fullname(RELEASE)}-data`, '--replicas=3');
    const end = Date.now() + 180_000;
    let added: Pod | undefined;
    while (!added && Date.now() < end) {
      added = (await pods(EXT_NS, 'data')).find((p) => !before.has(p.metadata.uid) && ready(p));
      if (!added) await sleep(1000);
    }
    expect(added).toBeDefined();
    const readySeconds = Math.round((Date.now() - t0) / 1000);
    // the new pod's own count of served calls (its /metrics on the pod IP)
    const served = () => metricSum(added!.status.podIP, 'sandbox_grpc_server_calls_total');
    let firstCallSeconds: number | undefined;
    // grpc-js re-resolves on a closed connection; servers close theirs after
    // max_connection_age (5 min + 30 s grace), which bounds the wait
    const callEnd = Date.now() + 6 * 60_000;
    while (firstCallSeconds === undefined && Date.now() < callEnd) {
      if ((await served()) > 0) firstCallSeconds = Math.round((Date.now() - t0) / 1000);
      else await sleep(2000);
    }
    const result = await load.stop();
    figure('scale.data2to3', { readySeconds, firstCallSeconds, failed: result.failed, sent: result.sent });
    expect(firstCallSeconds).toBeDefined();
    expect(result.failed).toBe(0);

    await kubectl('-n', EXT_NS, 'scale', `deployment/${fullname(RELEASE)}-data`, '--replicas=2');
    await helm(
      'upgrade',
      RELEASE,
      CHART,
      '-n',
      EXT_NS,
      '--reset-then-reuse-values',
      '--set',
      'services.playground.hpa.enabled=true',
      '--wait',
      '--timeout',
      '5m',
    );
    const hpa = await kjson<{ spec: { scaleTargetRef: { name: string }; minReplicas: number } }>('-n', EXT_NS, 'get', 'hpa', `${fullname(RELEASE)}-playground`);
    expect(hpa.spec.scaleTargetRef.name).toBe(`${fullname(RELEASE)}-playground`);
    expect(hpa.spec.minReplicas).toBe(2);
    await waitReady(EXT_NS);
  });

  test('five minutes of mixed load with the default limits: no container OOM-killed or restarted, every working set below 80% of its limit', async () => {
    const soakMs = Number(process.env.CLUSTER_SOAK_MS || 5 * 60_000);
    const restartsBefore = Object.fromEntries((await pods(EXT_NS)).map((p) => [p.metadata.name, p.status.containerStatuses[0].restartCount]));
    const load = startLoad(base, probes, { rps: 60, concurrency: 12, maxMs: soakMs });
    const peak: Record<string, { workingSetMiB: number; limitMiB: number }> = {};
    const limits = Object.fromEntries((await pods(EXT_NS)).map((p) => [p.metadata.name, p.spec.containers[0].resources.limits.memory]));
    const mib = (q: string) => (q.endsWith('Mi') ? Number(q.slice(0, -2)) : q.endsWith('Gi') ? Number(q.slice(0, -2)) * 1024 : Number(q) / 1048576);
    const sample = async () => {
      const summary = JSON.parse(await kubectl('get', '--raw', '/api/v1/nodes/sandbox-node/proxy/stats/summary'));
      for (const p of summary.pods) {
        if (p.podRef.namespace !== EXT_NS || !limits[p.podRef.name]) continue;
        const ws = Math.round((p.containers?.[0]?.memory?.workingSetBytes ?? 0) / 1048576);
        const prev = peak[p.podRef.name];
        if (!prev || ws > prev.workingSetMiB) peak[p.podRef.name] = { workingSetMiB: ws, limitMiB: mib(limits[p.podRef.name]) };
      }
    };
    while (!(await Promise.race([load.done.then(() => true), sleep(10_000).then(() => false)]))) await sample();
    await sample();
    const result = await load.stop();
    const after = await pods(EXT_NS);
    // (the SIGKILL step before left restarts and a lastState: count from here)
    const restarts = after.map((p) => ({
      pod: p.metadata.name,
      restarts: p.status.containerStatuses[0].restartCount - (restartsBefore[p.metadata.name] ?? 0),
      lastState: p.status.containerStatuses[0].lastState,
    }));
    figure('soak', { ...result, peak });
    expect(restarts.filter((r) => r.restarts !== 0)).toEqual([]);
    expect(after.filter((p) => p.status.containerStatuses[0].lastState?.terminated?.reason === 'OOMKilled').map((p) => p.metadata.name)).toEqual([]);
    for (const [pod, { workingSetMiB, limitMiB }] of Object.entries(peak))
      expect({ pod, over80: workingSetMiB >= 0.8 * limitMiB }).toEqual({ pod, over80: false });
    expect(result.failed).toBe(0);
  });
});
