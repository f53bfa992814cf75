import { z } from 'zod';
import { ConfigError, decodeKey, env, loadConfig, peerAddress, peerVariables } from '@sandbox/runtime';

const schema = z.object({ PORT: env.port(8080), TRUST_PROXY: env.bool(false), REDIS_URL: env.optionalUrl(['redis']) });

describe('loadConfig', () => {
  it('when nothing is set, then every default applies', () => {
    expect(loadConfig(schema, {})).toEqual({ PORT: 8080, TRUST_PROXY: false, REDIS_URL: undefined });
  });

  it('when a port is not a number, then one line names the variable and the value', () => {
    expect(() => loadConfig(schema, { PORT: 'eighty' })).toThrow(ConfigError);
    try {
      loadConfig(schema, { PORT: 'eighty' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toMatch(/^invalid configuration: PORT: .+ \(got "eighty"\)$/);
      expect(message).not.toContain('\n');
    }
  });

  it('when a port is out of range, then it is refused', () => {
    expect(() => loadConfig(schema, { PORT: '70000' })).toThrow(/PORT/);
  });

  it('when a boolean is not one, then it is refused by name', () => {
    expect(() => loadConfig(schema, { TRUST_PROXY: 'maybe' })).toThrow(/TRUST_PROXY: must be true or false/);
    expect(loadConfig(schema, { TRUST_PROXY: 'yes' }).TRUST_PROXY).toBe(true);
  });

  it('when a URL has the wrong scheme, then it is refused; when empty, it is unset', () => {
    expect(() => loadConfig(schema, { REDIS_URL: 'http://x' })).toThrow(/REDIS_URL: must be a redis URL/);
    expect(loadConfig(schema, { REDIS_URL: '' }).REDIS_URL).toBeUndefined();
  });
});

describe('peer addresses', () => {
  const peers = z.object({ ...peerVariables('data') });

  it('when only the port is given, then the address is loopback on that port', () => {
    expect(peerAddress(loadConfig(peers, { DATA_GRPC_PORT: '6000' }), 'data')).toBe('127.0.0.1:6000');
  });

  it('when an address is given, then it wins', () => {
    expect(peerAddress(loadConfig(peers, { DATA_GRPC_ADDR: 'data.sandbox.svc:50053' }), 'data')).toBe('data.sandbox.svc:50053');
  });

  it('when the address is not host:port, then it is refused by name', () => {
    expect(() => loadConfig(peers, { DATA_GRPC_ADDR: 'not an address' })).toThrow(/DATA_GRPC_ADDR: must be host:port/);
  });
});

describe('decodeKey', () => {
  it('reads hex and base64url keys to the same bytes', () => {
    const bytes = Buffer.alloc(32, 7);
    expect(decodeKey(bytes.toString('hex'))).toEqual(bytes);
    expect(decodeKey(bytes.toString('base64url'))).toEqual(bytes);
  });
});
