import { transport } from '@sandbox/contracts';
import { ConfigError, tracingSettings } from '@sandbox/runtime';

describe('tracing settings (the OTEL_* variables)', () => {
  it('when no endpoint is set, or OTEL_SDK_DISABLED=true, then tracing is off, whatever else is set', () => {
    expect(tracingSettings('gateway', {})).toBeUndefined();
    expect(tracingSettings('gateway', { OTEL_TRACES_SAMPLER: 'nonsense', OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
    expect(tracingSettings('gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('when the base endpoint is set, then spans go to its /v1/traces, sampled parent-based always-on, under the process’s own name', () => {
    expect(tracingSettings('oauth', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toEqual({
      tracesUrl: 'http://collector:4318/v1/traces',
      headers: {},
      sampler: 'parentbased_always_on',
      ratio: 1,
      serviceName: 'oauth',
      namespace: undefined,
    });
  });

  it('when the traces endpoint is set, then it is used as given and wins over the base one', () => {
    const settings = tracingSettings('data', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://b/otlp/spans' });
    expect(settings?.tracesUrl).toBe('https://b/otlp/spans');
  });

  it('when OTEL_SERVICE_NAME is set, then it names the deployment: the namespace and the prefix of each process’s name', () => {
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SERVICE_NAME: 'class-a' };
    expect(tracingSettings('gateway', env)).toMatchObject({ serviceName: 'class-a-gateway', namespace: 'class-a' });
    expect(tracingSettings('identity', env)).toMatchObject({ serviceName: 'class-a-identity', namespace: 'class-a' });
  });

  it('reads the sampler, its ratio and the export headers', () => {
    const settings = tracingSettings('gateway', {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%20b,other=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'other=2',
    });
    expect(settings).toMatchObject({ sampler: 'parentbased_traceidratio', ratio: 0.25, headers: { 'x-key': 'a b', other: '2' } });
  });

  it.each([
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, /OTEL_TRACES_SAMPLER: must be one of always_on/],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, /OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1/],
    [{ OTEL_TRACES_SAMPLER_ARG: 'half' }, /OTEL_TRACES_SAMPLER_ARG: must be a ratio from 0 to 1/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL/],
  ])('when tracing is on and %j is malformed, then the process stops with a line naming it', (bad, message) => {
    const run = () => tracingSettings('gateway', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', ...bad });
    expect(run).toThrow(ConfigError);
    expect(run).toThrow(message);
  });
});

describe('trace context in the Call message (the stream transport)', () => {
  const call = { id: 7, method: '/sandbox.data.v1.DataService/GetPage', request: Buffer.from('x'), timeoutMs: 100, requestId: 'r' };
  const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

  it('travels with the call, and costs nothing on the wire when tracing is off', () => {
    const traced = transport.Call.decode(transport.Call.encode({ ...call, traceparent, tracestate: 'vendor=1' }).finish());
    expect(traced).toMatchObject({ traceparent, tracestate: 'vendor=1', requestId: 'r' });
    const plain = transport.Call.encode({ ...call, traceparent: '', tracestate: '' }).finish();
    const before = Buffer.concat([Buffer.from([0x08, 7, 0x12, call.method.length]), Buffer.from(call.method)]);
    expect(Buffer.from(plain).subarray(0, before.length)).toEqual(before);
    expect(Buffer.from(plain).includes(Buffer.from(traceparent))).toBe(false);
    expect(transport.Call.decode(plain)).toMatchObject({ traceparent: '', tracestate: '' });
  });

  it('when a peer that predates the fields reads a traced call, then it skips them (proto3 unknown fields)', () => {
    const traced = transport.Call.encode({ ...call, traceparent, tracestate: '' }).finish();
    // An older Call: the same message less fields 6 and 7. Its decoder's default branch skips unknown tags by wire type, as ts-proto's does here.
    const withoutTrace = transport.Call.encode({ ...call, traceparent: '', tracestate: '' }).finish();
    expect(Buffer.from(traced).subarray(0, withoutTrace.length)).toEqual(Buffer.from(withoutTrace));
    expect(transport.Call.decode(traced)).toMatchObject({ id: 7, method: call.method, timeoutMs: 100, requestId: 'r' });
  });
});
