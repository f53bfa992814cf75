import { z } from 'zod';
import { ConfigError, createLogger, grpcTls, grpcTlsSetting, grpcTlsVariables, loadConfig, requireTlsDirectory, takesBothProtocols } from '@sandbox/runtime';
import { PLAINTEXT_WARNING_INTERVAL_MS, PlaintextCalls } from '../../src/plaintext-calls';

const schema = z
  .object(grpcTlsVariables())
  .superRefine(requireTlsDirectory)
  .transform((v) => grpcTls(v, 'data'));

describe('GRPC_TLS', () => {
  it('when unset, then mutual TLS only, from GRPC_TLS_DIR', () => {
    expect(loadConfig(schema, { GRPC_TLS_DIR: '/tls' })).toEqual({ mode: 'mtls', dir: '/tls', refreshMs: 10_000 });
  });

  it.each([
    ['off', { mode: 'off' }, 'off', false],
    ['accept-tls', { mode: 'off', acceptTls: { dir: '/tls', refreshMs: 10_000 } }, 'accept-tls', true],
    ['send-tls', { mode: 'mtls', dir: '/tls', refreshMs: 10_000, acceptPlaintext: true }, 'send-tls', true],
    ['on', { mode: 'mtls', dir: '/tls', refreshMs: 10_000 }, 'on', false],
  ])('when GRPC_TLS=%s, then the clients call as its mode says and the server takes what it says', (value, expected, named, both) => {
    const tls = loadConfig(schema, { GRPC_TLS: value, GRPC_TLS_DIR: '/tls' });
    expect(tls).toEqual(expected);
    expect(grpcTlsSetting(tls)).toBe(named);
    expect(takesBothProtocols(tls)).toBe(both);
  });

  it.each(['accept-tls', 'send-tls', 'on'])('when GRPC_TLS=%s has no directory, then the process stops naming GRPC_TLS_DIR', (value) => {
    expect(() => loadConfig(schema, { GRPC_TLS: value })).toThrow(new RegExp(`^invalid configuration: GRPC_TLS_DIR: .*GRPC_TLS=${value}`));
  });

  it('when GRPC_TLS is another word, then the process stops naming the four values', () => {
    expect(() => loadConfig(schema, { GRPC_TLS: 'true', GRPC_TLS_DIR: '/tls' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { GRPC_TLS: 'true', GRPC_TLS_DIR: '/tls' })).toThrow(/GRPC_TLS: must be off, accept-tls, send-tls, on/);
  });
});

describe('PlaintextCalls', () => {
  function recorder() {
    const lines: { msg: string; plaintextCalls: number }[] = [];
    let now = 1_000_000;
    const calls = new PlaintextCalls(createLogger('data', 'warn', { write: (line: string) => void lines.push(JSON.parse(line)) }), undefined, () => now);
    return { calls, lines, advance: (ms: number) => (now += ms) };
  }

  it('when plaintext calls come all the time, then the log warns at most once a minute, with how many came since', () => {
    const { calls, lines, advance } = recorder();
    calls.record('/sandbox.data.v1.DataService/GetPage');
    for (let i = 0; i < 9; i += 1) {
      advance(1000);
      calls.record('/sandbox.data.v1.DataService/GetPage');
    }
    expect(lines.map((l) => l.plaintextCalls)).toEqual([1]);
    advance(PLAINTEXT_WARNING_INTERVAL_MS);
    calls.record('/sandbox.data.v1.DataService/GetCatalog');
    expect(lines.map((l) => l.plaintextCalls)).toEqual([1, 10]);
  });
});
