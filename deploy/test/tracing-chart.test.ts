import { chartRenderer, findManifest as find, PREFIX, SERVICES, type Manifest } from './support/chart';

// The chart's `tracing:` block, rendered by the real helm (built into .tools by
// scripts/lib/helm.sh): the OTEL_* variables of every service's container and
// the NetworkPolicies' way out to the collector. helm-chart.test.ts covers the
// rest of the chart; this file only what tracing adds, so it stays quick.

const { render, expectRefused } = chartRenderer('tracing-chart');

/** A service container's plain env, by name (values only; secret refs are not tracing's). */
const envOf = (manifests: Manifest[], service: string): Record<string, string> => {
  const container = find(manifests, 'Deployment', `${PREFIX}-${service}`).spec.template.spec.containers.find((c: Manifest) => c.name === service);
  return Object.fromEntries((container.env as Manifest[]).filter((e) => 'value' in e).map((e) => [e.name, e.value]));
};
const egressOf = (manifests: Manifest[], service: string): Manifest[] => find(manifests, 'NetworkPolicy', `${PREFIX}-${service}`).spec.egress;

describe('the chart’s tracing block', () => {
  it('when tracing.endpoint is empty (the default), then no service gets an OTEL_* variable and no policy opens a way to a collector', () => {
    const manifests = render();
    for (const service of SERVICES) {
      expect(Object.keys(envOf(manifests, service)).filter((name) => name.startsWith('OTEL_'))).toEqual([]);
      expect(egressOf(manifests, service).some((rule) => rule.ports?.some((p: Manifest) => p.port === 4318))).toBe(false);
    }
  });

  it('when an endpoint is set, then every service gets the same OTEL_* settings, and its policy lets it reach the collector', () => {
    const to = [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'observability' } } }];
    const manifests = render([
      '--set',
      'tracing.endpoint=http://otel-collector.observability:4318',
      '--set',
      'tracing.sampler=parentbased_traceidratio',
      // --set-json: --set would pass 0.1 as a string.
      '--set-json',
      'tracing.ratio=0.1',
      '--set',
      'tracing.serviceNamespace=class-a',
      '--set',
      'tracing.resourceAttributes.deployment\\.environment\\.name=production',
      '--set-json',
      `tracing.egress.to=${JSON.stringify(to)}`,
    ]);
    for (const service of SERVICES) {
      const env = envOf(manifests, service);
      expect({ service, ...Object.fromEntries(Object.entries(env).filter(([name]) => name.startsWith('OTEL_'))) }).toEqual({
        service,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
        OTEL_SERVICE_NAME: 'class-a',
        OTEL_RESOURCE_ATTRIBUTES: 'k8s.namespace.name=sandbox,deployment.environment.name=production',
      });
      expect(egressOf(manifests, service)).toContainEqual({ ports: [{ port: 4318, protocol: 'TCP' }], to });
    }
  });

  it('when no namespace is named, then OTEL_SERVICE_NAME is left out (each process names itself), and a whole ratio renders as an integer', () => {
    const manifests = render(['--set', 'tracing.endpoint=https://collector.example:4318']);
    const env = envOf(manifests, 'oauth');
    expect(env.OTEL_SERVICE_NAME).toBeUndefined();
    expect(env).toMatchObject({
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: '1',
      OTEL_RESOURCE_ATTRIBUTES: 'k8s.namespace.name=sandbox',
    });
    // Empty `to`: any address, on the collector's ports only.
    expect(egressOf(manifests, 'oauth')).toContainEqual({ ports: [{ port: 4318, protocol: 'TCP' }] });
  });

  it.each([
    ['a sampler the SDK does not know', ['--set', 'tracing.endpoint=http://c:4318', '--set', 'tracing.sampler=sometimes'], '/tracing/sampler'],
    ['a ratio above 1', ['--set', 'tracing.endpoint=http://c:4318', '--set', 'tracing.ratio=2'], '/tracing/ratio'],
    ['an endpoint that is not a URL', ['--set', 'tracing.endpoint=collector:4318'], '/tracing/endpoint'],
    // OTEL_RESOURCE_ATTRIBUTES is a comma-separated list of key=value: a comma in a value would split it.
    ['an attribute value with a comma', ['--set', 'tracing.resourceAttributes.team=a\\,b'], '/tracing/resourceAttributes/team'],
  ])('when given %s, then helm template fails and names the value', (_label, args, path) => {
    expectRefused(args, path);
  });
});
