import { loadGatewayConfig } from '../../src/config';

// Mutual TLS between services is on by default and needs a directory; what is checked here is elsewhere.
const TLS = { GRPC_TLS_DIR: '/run/sandbox-tls' };

const APP = 'app_AAAAAAAAAAAAAAAAAAAAAA';
const OTHER = 'app_BBBBBBBBBBBBBBBBBBBBBB';

describe('the fair-share configuration', () => {
  it('when nothing is set (the embedded default), then every limiter is off and the counts would stay in memory', () => {
    expect(loadGatewayConfig({ ...TLS }).fairShare).toEqual({
      app: undefined,
      address: undefined,
      exemptApps: [],
      appOverrides: new Map(),
      slowPerApp: 0,
      slowPerAddress: 0,
      redisUrl: undefined,
    });
  });

  it('when the chart values are set, then each limiter is a policy, exemptions and overrides are by App ID', () => {
    const { fairShare } = loadGatewayConfig({
      ...TLS,
      RATE_LIMIT_APP_PER_SECOND: '50',
      RATE_LIMIT_APP_BURST: '100',
      RATE_LIMIT_ADDRESS_PER_SECOND: '0.5',
      RATE_LIMIT_ADDRESS_BURST: '3',
      RATE_LIMIT_EXEMPT_APPS: ` ${APP} `,
      RATE_LIMIT_APP_OVERRIDES: `${OTHER}=500:1000`,
      SLOW_REQUESTS_PER_APP: '10',
      SLOW_REQUESTS_PER_ADDRESS: '100',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(fairShare).toEqual({
      app: { name: 'app', perSecond: 50, burst: 100 },
      address: { name: 'address', perSecond: 0.5, burst: 3 },
      exemptApps: [APP],
      appOverrides: new Map([[OTHER, { perSecond: 500, burst: 1000 }]]),
      slowPerApp: 10,
      slowPerAddress: 100,
      redisUrl: 'redis://127.0.0.1:6379',
    });
  });

  it.each([
    ['a rate without its burst', { RATE_LIMIT_APP_PER_SECOND: '50' }, /RATE_LIMIT_APP_BURST: .*set both above 0, or neither/],
    ['a burst without its rate', { RATE_LIMIT_ADDRESS_BURST: '10' }, /RATE_LIMIT_ADDRESS_PER_SECOND: /],
    ['an exempt app that is not an App ID', { RATE_LIMIT_EXEMPT_APPS: 'load-test' }, /RATE_LIMIT_EXEMPT_APPS: must be App IDs/],
    ['an override without a burst', { RATE_LIMIT_APP_OVERRIDES: `${APP}=500` }, /RATE_LIMIT_APP_OVERRIDES: must be APP_ID=PER_SECOND:BURST/],
    ['an app both exempt and overridden', { RATE_LIMIT_EXEMPT_APPS: APP, RATE_LIMIT_APP_OVERRIDES: `${APP}=5:10` }, /is also in RATE_LIMIT_EXEMPT_APPS/],
    [
      'limits with two gateway replicas and no Redis',
      { RATE_LIMIT_APP_PER_SECOND: '50', RATE_LIMIT_APP_BURST: '100', REPLICAS: '2' },
      /REDIS_URL: is required with 2 gateway replicas \(REPLICAS=2\) when a rate limit or slow-request cap is set/,
    ],
  ])('when given %s, then the gateway refuses to start, naming the variable', (_label, env, message) => {
    expect(() => loadGatewayConfig({ ...TLS, ...env })).toThrow(message);
  });

  it('when several gateways run without Redis and no limit is set, then they start (nothing to share)', () => {
    expect(() => loadGatewayConfig({ ...TLS, GATEWAY_REPLICAS: '3' })).not.toThrow();
  });
});
