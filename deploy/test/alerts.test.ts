import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chartRenderer, CHART, HELM, ROOT } from './support/chart';

// The chart's alert rules and dashboard (docs/operations.md): the rules file
// checked and unit-tested by Prometheus's own promtool (Debian's prometheus
// package, scripts/lib/monitoring.sh), and the PrometheusRule and dashboard
// ConfigMap the chart renders from the same files with the real helm.
// The dashboard's queries are run against a real Prometheus scraping the
// system in services/gateway/test/integration/prometheus.test.ts.

const RULES = join(CHART, 'files', 'alerts.yaml');
const DASHBOARD = join(CHART, 'files', 'dashboard.json');
const UNIT_TESTS = join(ROOT, 'deploy', 'monitoring-tests');
const OPERATIONS = join(ROOT, 'docs', 'operations.md');
const PROMTOOL = process.env.PROMTOOL_BIN ?? '/usr/bin/promtool';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rules files and manifests are untyped YAML
type Untyped = Record<string, any>;
interface Rule {
  record?: string;
  alert?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Group {
  name: string;
  rules: Rule[];
}

const rulesFile = (): { groups: Group[] } => parse(readFileSync(RULES, 'utf8'));
const alerts = () => rulesFile().groups.flatMap((group) => group.rules.filter((rule) => rule.alert));
const unitTestFiles = () =>
  readdirSync(UNIT_TESTS)
    .filter((name) => name.endsWith('.test.yaml'))
    .map((name) => join(UNIT_TESTS, name));

function promtool(args: string[]) {
  const result = spawnSync(PROMTOOL, args, { cwd: ROOT, encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status, output: result.stdout + result.stderr };
}

const chart = chartRenderer('alerts-test');
/** The chart's manifests for a release of that name (the rules' selectors carry the release's full name). */
const helmTemplate = (release: string, args: string[]): Untyped[] => chart.render(args, { release });

/** A values file setting metrics.prometheusRule's given fields. */
function valuesFile(label: string, prometheusRule: Record<string, unknown>): string {
  const file = join(chart.home, `${label}-values.yaml`);
  writeFileSync(file, JSON.stringify({ metrics: { prometheusRule } }));
  return file;
}

const ON = ['--set', 'metrics.prometheusRule.enabled=true', '--set', 'metrics.grafanaDashboard.enabled=true'];
const ofKind = (manifests: Untyped[], kind: string) => manifests.filter((manifest) => manifest.kind === kind);

/** Validates a manifest against the prometheus-operator CRD's schema (@kubernetes-models/prometheus-operator, ESM-only: in a child node). */
function operatorSchemaProblems(kind: string, manifest: Untyped): string {
  const script = `
    import { ${kind} } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1';
    let input = '';
    for await (const chunk of process.stdin) input += chunk;
    try { new ${kind}(JSON.parse(input)).validate(); } catch (error) { console.log(error.message); }`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, input: JSON.stringify(manifest), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`could not run the ${kind} validation: ${result.stderr}`);
  return result.stdout.trim();
}

beforeAll(() => {
  for (const [present, ensure] of [
    [existsSync(PROMTOOL), 'source scripts/lib/monitoring.sh && ensure_prometheus'],
    [existsSync(HELM), 'source scripts/lib/helm.sh && ensure_helm'],
  ] as const) {
    if (present) continue;
    // First run on a fresh machine: provision (minutes); afterwards a no-op.
    const provisioned = spawnSync('bash', ['-c', ensure], { cwd: ROOT, encoding: 'utf8' });
    if (provisioned.status !== 0) throw new Error(`could not provision (${ensure}): ${provisioned.stderr}`);
  }
}, 15 * 60_000);

describe('the alert rules, by promtool', () => {
  it('when the rules file is checked, then promtool finds nothing (syntax, templates, duplicates)', () => {
    const { status, output } = promtool(['check', 'rules', RULES]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
    expect(output).not.toMatch(/FAILED|WARNING|lint/i);
  });

  it('when the unit tests are run, then every case passes', () => {
    const files = unitTestFiles();
    expect(files.length).toBeGreaterThan(0);
    const { status, output } = promtool(['test', 'rules', ...files]);
    expect({ status, output }).toEqual({ status: 0, output: expect.not.stringContaining('FAILED') });
    expect(output.match(/SUCCESS/g)).toHaveLength(files.length);
  });

  it('when the unit tests are read, then every alert has a case where it fires and one where it does not', () => {
    const cases = unitTestFiles().flatMap((file) =>
      (parse(readFileSync(file, 'utf8')) as Untyped).tests.flatMap((test: Untyped) => (test.alert_rule_test ?? []) as Untyped[]),
    );
    const names = alerts().map((rule) => rule.alert!);
    expect(names.length).toBeGreaterThanOrEqual(9);
    for (const name of names) {
      const mine = cases.filter((one) => one.alertname === name);
      expect({ name, fires: mine.some((one) => one.exp_alerts?.length > 0), quiet: mine.some((one) => (one.exp_alerts ?? []).length === 0) }).toEqual({
        name,
        fires: true,
        quiet: true,
      });
    }
  });

  it('when the alerts are read, then each has a severity and a runbook_url to its own paragraph of docs/operations.md', () => {
    // GitHub's anchor of a heading `### SandboxStoreUnavailable` is its lower-cased text.
    const anchors = new Set(
      [...readFileSync(OPERATIONS, 'utf8').matchAll(/^#{2,4} (.+)$/gm)].map((m) =>
        m[1]!
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const rule of alerts()) {
      expect({ alert: rule.alert, severity: rule.labels?.severity }).toEqual({ alert: rule.alert, severity: expect.stringMatching(/^(critical|warning)$/) });
      expect({ alert: rule.alert, runbook: rule.annotations?.runbook_url }).toEqual({
        alert: rule.alert,
        runbook: `docs/operations.md#${rule.alert!.toLowerCase()}`,
      });
      expect({ alert: rule.alert, documented: anchors.has(rule.alert!.toLowerCase()) }).toEqual({ alert: rule.alert, documented: true });
      expect({ alert: rule.alert, summary: typeof rule.annotations?.summary }).toEqual({ alert: rule.alert, summary: 'string' });
    }
  });
});

describe('the PrometheusRule and the dashboard ConfigMap, rendered by helm', () => {
  it('when the chart is rendered with its defaults, then neither is there', () => {
    const manifests = helmTemplate('training-sandbox', []);
    expect(ofKind(manifests, 'PrometheusRule')).toEqual([]);
    expect(manifests.filter((m) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-dashboard'))).toEqual([]);
  });

  it('when both are on but metrics are off, then neither is there (nothing would be scraped)', () => {
    const manifests = helmTemplate('training-sandbox', [...ON, '--set', 'metrics.enabled=false']);
    expect(ofKind(manifests, 'PrometheusRule')).toEqual([]);
    expect(manifests.filter((m) => m.kind === 'ConfigMap' && m.metadata.name.endsWith('-dashboard'))).toEqual([]);
  });

  it("when the rule is on with the default objectives, then its groups are the rules file's exactly, and valid for the operator and promtool", () => {
    // A release called training-sandbox: its full name is the one the file is written for.
    const [rule, ...more] = ofKind(
      helmTemplate('training-sandbox', [...ON, '--set', 'metrics.prometheusRule.labels.release=kube-prometheus-stack']),
      'PrometheusRule',
    );
    expect(more).toEqual([]);
    expect(rule!.metadata.name).toBe('training-sandbox');
    expect(rule!.metadata.labels.release).toBe('kube-prometheus-stack');
    expect(rule!.spec.groups).toEqual(rulesFile().groups);
    expect(operatorSchemaProblems('PrometheusRule', rule!)).toBe('');
    const rendered = join(chart.home, 'rendered-rules.yaml');
    writeFileSync(rendered, JSON.stringify({ groups: rule!.spec.groups }));
    const { status, output } = promtool(['check', 'rules', rendered]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('SUCCESS') });
  });

  it('when the objectives, the threshold, the runbook base and the release change, then exactly those parts of the rules change', () => {
    // A values file, as an operator writes them: `--set` would pass 0.999 as a string.
    const values = valuesFile('objectives', {
      availabilityObjective: 0.999,
      latencyObjective: 0.95,
      latencyThresholdSeconds: 0.25,
      runbookBaseUrl: 'https://git.example.org/sandbox/blob/v1/',
    });
    const [rule] = ofKind(helmTemplate('ts', [...ON, '-f', values]), 'PrometheusRule');
    const groups = rule!.spec.groups as Group[];
    const rules = groups.flatMap((group) => group.rules);
    const record = (name: string) => rules.find((one) => one.record === name)!.expr;
    expect(record('sandbox:slo_availability:objective')).toBe('vector(0.999)');
    expect(record('sandbox:slo_latency:objective')).toBe('vector(0.95)');
    const text = JSON.stringify(groups);
    expect(text).not.toContain('le=\\"0.5\\"');
    expect(text.match(/le=\\"0\.25\\"/g)).toHaveLength(7); // one bucket in each latency window
    expect(text).not.toMatch(/[^-]training-sandbox-\(/);
    expect(text).toContain('ts-training-sandbox-(gateway|identity|oauth|data|playground)');
    for (const alert of rules.filter((one) => one.alert))
      expect(alert.annotations!.runbook_url).toMatch(/^https:\/\/git\.example\.org\/sandbox\/blob\/v1\/docs\/operations\.md#sandbox/);
    // Undo the four substitutions: what is left is the file, so nothing else was touched.
    const undone = JSON.parse(
      text
        .replace('vector(0.999)', 'vector(0.995)')
        .replace('vector(0.95)', 'vector(0.99)')
        .replace(/le=\\"0\.25\\"/g, 'le=\\"0.5\\"')
        .replace(/ts-training-sandbox-\(/g, 'training-sandbox-(')
        .replace(/https:\/\/git\.example\.org\/sandbox\/blob\/v1\//g, ''),
    );
    expect(undone).toEqual(rulesFile().groups);
  });

  it('when a latency threshold is not a bucket bound, then the chart refuses it (the objective would count nothing)', () => {
    expect(() => helmTemplate('training-sandbox', [...ON, '-f', valuesFile('threshold', { latencyThresholdSeconds: 0.3 })])).toThrow(
      /latencyThresholdSeconds': value must be one of/,
    );
  });

  it("when the dashboard is on, then a ConfigMap for Grafana's sidecar holds the dashboard file, with the given labels, annotations and namespace", () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    const defaults = helmTemplate('training-sandbox', ON).filter((m) => m.kind === 'ConfigMap' && m.metadata.name === 'training-sandbox-dashboard');
    expect(defaults).toHaveLength(1);
    expect(defaults[0]!.metadata.labels.grafana_dashboard).toBe('1');
    expect(defaults[0]!.metadata.namespace).toBe('sandbox');
    expect(JSON.parse(defaults[0]!.data['training-sandbox.json'])).toEqual(dashboard);

    const [moved] = helmTemplate('training-sandbox', [
      ...ON,
      '--set',
      'metrics.grafanaDashboard.namespace=monitoring',
      '--set',
      'metrics.grafanaDashboard.annotations.grafana_folder=Training Sandbox',
    ]).filter((m) => m.kind === 'ConfigMap' && m.metadata.name === 'training-sandbox-dashboard');
    expect(moved!.metadata.namespace).toBe('monitoring');
    expect(moved!.metadata.annotations).toEqual({ grafana_folder: 'Training Sandbox' });
  });

  it('when the dashboard is read, then every panel queries the chosen data source, and the only variables are the data source and the namespace', () => {
    const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'));
    expect(dashboard.templating.list.map((variable: Untyped) => [variable.name, variable.type])).toEqual([
      ['datasource', 'datasource'],
      ['namespace', 'query'],
    ]);
    const panels = (dashboard.panels as Untyped[]).filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(15);
    for (const panel of panels) {
      expect({ panel: panel.title, datasource: panel.datasource.uid }).toEqual({ panel: panel.title, datasource: '${datasource}' });
      expect(panel.targets.length).toBeGreaterThan(0);
      for (const target of panel.targets)
        expect({ panel: panel.title, target: target.datasource.uid }).toEqual({ panel: panel.title, target: '${datasource}' });
    }
  });
});
