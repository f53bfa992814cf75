import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  apiRequest,
  clientCredentialsToken,
  createApp,
  eventually,
  freePort,
  isolatedMongoUrl,
  rawRequest,
  registerUser,
  requireStoreUrls,
  type RunningSystem,
  startSystem,
} from '@sandbox/testing';

// A real Prometheus (Debian's prometheus package, scripts/lib/monitoring.sh)
// scrapes the running system with the chart's rules file loaded, after some
// traffic: every rule group loads and evaluates without error, and every
// query of the chart's Grafana dashboard returns data (docs/operations.md).
// promtool's unit tests of the alerts themselves are deploy/test/alerts.test.ts.

jest.setTimeout(180_000);

const ROOT = resolve(__dirname, '..', '..', '..', '..');
const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus';
const RULES = join(ROOT, 'deploy', 'helm', 'training-sandbox', 'files', 'alerts.yaml');
const DASHBOARD = join(ROOT, 'deploy', 'helm', 'training-sandbox', 'files', 'dashboard.json');
/** The namespace label a ServiceMonitor's scrape would add; the rules aggregate by it. */
const NAMESPACE = 'prometheus-test';

/**
 * Panels whose queries cannot have data here, and why. Each must come back
 * empty (an entry that starts returning data is stale and fails the test).
 */
const NO_DATA_HERE: Record<string, string> = {
  'Pod restarts': 'kube-state-metrics series (kube_pod_container_status_restarts_total): there is no Kubernetes here',
  'Ready replicas': 'kube-state-metrics series (kube_deployment_status_replicas_available): there is no Kubernetes here',
  'OAuth in-memory store fill': 'oauth runs with REDIS_URL here, as in the chart, so it has no memory store (its gauges: services/oauth/test/unit)',
};

interface Target {
  expr: string;
  refId: string;
}
interface Panel {
  type: string;
  title: string;
  targets?: Target[];
}

/** A query as Grafana sends it: the template variables replaced (the namespace variable at its All value, ".*"). */
const asGrafanaSends = (expr: string) => expr.replaceAll('$__rate_interval', '1m').replaceAll('$namespace', '.*');

interface QueryAnswer {
  status: string;
  error?: string;
  data: { resultType: string; result: { metric: Record<string, string>; value: [number, string] }[] };
}

describe('a real Prometheus scraping the running system, with the chart rules and dashboard', () => {
  let system: RunningSystem;
  let prometheus: ChildProcess | undefined;
  let prometheusLog = '';
  let dataDir: string;
  let base: string;

  const query = async (expr: string): Promise<QueryAnswer> => {
    const res = await rawRequest(`${base}/api/v1/query?${new URLSearchParams({ query: expr })}`);
    return res.json() as QueryAnswer;
  };

  beforeAll(async () => {
    if (!existsSync(PROMETHEUS)) throw new Error(`no prometheus at ${PROMETHEUS}: run scripts/test.sh (ensure_prometheus in scripts/lib/monitoring.sh)`);
    // One slow request per address at once, so that a second is refused by fair share (429 too_many_slow_requests).
    system = await startSystem(
      { MONGO_URL: isolatedMongoUrl('prometheus'), REDIS_URL: requireStoreUrls().redisUrl, SLOW_REQUESTS_PER_ADDRESS: '1' },
      { metrics: true },
    );

    dataDir = mkdtempSync(join(tmpdir(), 'prometheus-test-'));
    const targets = Object.entries(system.metricsUrls!).map(([component, url]) => ({
      targets: [new URL(url).host],
      // As the chart's ServiceMonitor labels them: which process, and the namespace.
      labels: { component, namespace: NAMESPACE },
    }));
    const config = join(dataDir, 'prometheus.yml');
    // JSON is YAML: scraped every second, rules evaluated every second.
    writeFileSync(
      config,
      JSON.stringify({
        global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
        rule_files: [RULES],
        scrape_configs: [{ job_name: 'training-sandbox', metrics_path: '/metrics', static_configs: targets }],
      }),
    );
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      PROMETHEUS,
      [`--config.file=${config}`, `--storage.tsdb.path=${join(dataDir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout!.on('data', (chunk) => (prometheusLog += chunk));
    prometheus.stderr!.on('data', (chunk) => (prometheusLog += chunk));
    await eventually(
      () =>
        rawRequest(`${base}/-/ready`).then(
          (res) => res.status,
          () => 0,
        ),
      (status) => status === 200 || prometheus!.exitCode !== null,
      30_000,
      200,
    );
    if (prometheus.exitCode !== null) throw new Error(`prometheus exited (${prometheus.exitCode}): ${prometheusLog}`);

    // Traffic: the portal and identity's store, data pages (a miss, then hits), learners' mistakes,
    // the playground's routes, an OAuth token (oauth's Redis), and a fair-share refusal. Twice: a
    // series Prometheus first sees already counting shows no increase (its first sample is its
    // start), so the second round is what every rate, ratio and quantile is computed from.
    const traffic = async () => {
      const session = await registerUser(system.baseUrl);
      const app = await createApp(system.baseUrl, session, { scopes: ['hr:read', 'stocks:read'] });
      const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${system.baseUrl}${path}`, { headers });
      for (const path of [
        '/playground/data/stocks/candles?page_size=5',
        '/playground/data/stocks/candles?page_size=5',
        '/playground/data/hr/employees?page_size=3',
      ])
        expect((await get(path, { 'x-api-key': app.apiKey })).status).toBe(200);
      expect((await get('/playground/data/hr/employees')).status).toBe(401);
      expect((await get('/playground/data/no-such-pack/rows', { 'x-api-key': app.apiKey })).status).toBe(404);
      expect((await get('/no/such/thing')).status).toBe(404);
      expect((await get('/playground/echo?x=1')).status).toBe(200);
      expect((await get('/playground/headers')).status).toBe(200);
      expect((await get('/playground/response?status=503')).status).toBe(503);
      expect((await get('/playground/redirect?n=1')).status).toBe(302);
      expect((await apiRequest(system.baseUrl, 'GET', '/api/apps', { token: session })).status).toBe(200);
      const token = await clientCredentialsToken(system.baseUrl, app);
      expect(token.status).toBe(200);
      // Hold this address's one slow slot, then ask again until the gateway has taken it and refuses.
      const held = get('/playground/timeout?delay=3000');
      const refused = await eventually(
        () => get('/playground/timeout?delay=1'),
        (res) => res.status === 429,
        20_000,
        100,
      );
      expect(refused.value.json().error.code).toBe('too_many_slow_requests');
      expect((await held).status).toBe(200);
    };
    /** The gateway's count of fair-share refusals as Prometheus last scraped it: the last thing each round does. */
    const refusalsScraped = async () =>
      Number((await query('sum(sandbox_http_requests_total{status="429", route="/playground/timeout"})')).data.result[0]?.value[1] ?? 0);
    await traffic();
    await eventually(refusalsScraped, (count) => count >= 1, 30_000, 500);
    // Every target scraped at least once more, so that the next round's counts are increases.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    await traffic();
    await eventually(refusalsScraped, (count) => count >= 2, 30_000, 500);
  });

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((done) => prometheus!.once('exit', done));
      prometheus.kill('SIGTERM');
      await exited;
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await system?.stop();
  });

  it('when the rules are read back, then every group of the rules file is loaded, and every rule evaluated with health ok and no error', async () => {
    const fileGroups = (readFileSync(RULES, 'utf8').match(/^ {2}- name: (.+)$/gm) ?? []).map((line) => line.replace(/^ {2}- name: /, ''));
    expect(fileGroups.length).toBeGreaterThan(0);
    interface RuleState {
      name: string;
      health: string;
      lastError?: string;
      type: string;
    }
    const { value: groups } = await eventually(
      async () => (await rawRequest(`${base}/api/v1/rules`)).json().data.groups as { name: string; file: string; rules: RuleState[] }[],
      (loaded) => loaded.length === fileGroups.length && loaded.every((group) => group.rules.every((rule) => rule.health !== 'unknown')),
      30_000,
      500,
    );
    expect(groups.map((group) => group.name).sort()).toEqual([...fileGroups].sort());
    const unhealthy = groups.flatMap((group) => group.rules.filter((rule) => rule.health !== 'ok' || rule.lastError));
    expect(unhealthy).toEqual([]);
    expect(groups.flatMap((group) => group.rules).length).toBe((readFileSync(RULES, 'utf8').match(/^ {6}- (record|alert): /gm) ?? []).length);
  });

  it("when the objectives' recording rules are queried, then they hold the real series: the objectives, and a latency share from real buckets", async () => {
    const { value: objective } = await eventually(
      () => query('sandbox:slo_availability:objective'),
      (answer) => answer.data.result.length === 1,
      30_000,
      500,
    );
    expect(Number(objective.data.result[0]!.value[1])).toBe(0.995);
    // Only a real bucket label (le="0.5") and the real route patterns give this a value.
    const { value: slow } = await eventually(
      () => query('sandbox:http_latency_slow:ratio_rate5m'),
      // Evaluated every second: once after the second round's scrape, a number.
      (answer) => answer.data.result.length === 1 && Number.isFinite(Number(answer.data.result[0]!.value[1])),
      30_000,
      500,
    );
    expect(slow.data.result[0]!.metric).toEqual({ __name__: 'sandbox:http_latency_slow:ratio_rate5m', namespace: NAMESPACE });
    const share = Number(slow.data.result[0]!.value[1]);
    expect(share).toBeGreaterThanOrEqual(0);
    expect(share).toBeLessThanOrEqual(1);
  });

  it("when every dashboard panel's every query is run as Grafana would, then each returns a number (but the few that cannot here, which return nothing)", async () => {
    const panels = (JSON.parse(readFileSync(DASHBOARD, 'utf8')).panels as Panel[]).filter((panel) => panel.type !== 'row');
    const titles = new Set(panels.map((panel) => panel.title));
    for (const title of Object.keys(NO_DATA_HERE))
      expect({ allowListed: title, onTheDashboard: titles.has(title) }).toEqual({ allowListed: title, onTheDashboard: true });

    // Data: at least one series with a number (a quantile or a ratio over no traffic is NaN).
    const outcomes: { panel: string; refId: string; status: string; error?: string; series: number }[] = [];
    for (const panel of panels)
      for (const target of panel.targets ?? []) {
        const answer = await query(asGrafanaSends(target.expr));
        const series = (answer.data?.result ?? []).filter((one) => Number.isFinite(Number(one.value[1]))).length;
        outcomes.push({ panel: panel.title, refId: target.refId, status: answer.status, error: answer.error, series });
      }
    expect(outcomes.length).toBeGreaterThan(20);
    expect(outcomes.filter((outcome) => outcome.status !== 'success')).toEqual([]);
    expect(outcomes.filter((outcome) => !(outcome.panel in NO_DATA_HERE) && outcome.series === 0)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.panel in NO_DATA_HERE && outcome.series > 0)).toEqual([]);
  });
});
