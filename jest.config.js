// Two projects: `unit` (no I/O, no processes) and `integration` (real Redis, a
// real MongoDB-wire server, real services as real processes). scripts/test.sh
// provisions the stores and passes MONGO_URL / REDIS_URL.
const shared = {
  testEnvironment: 'node',
  // jest's module loader cannot require() ESM, so ESM-only dependencies (jose 6,
  // oauth4webapi, a client the interoperability tests drive, and openid-client,
  // the gateway's single sign-on relying party) are compiled to CommonJS for
  // tests; at run time Node loads them natively.
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
    '/node_modules/(jose|oauth4webapi|openid-client)/.+\\.js$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(jose|oauth4webapi|openid-client)/)'],
  moduleNameMapper: {
    '^@sandbox/(contracts|runtime)$': '<rootDir>/packages/$1/src',
    '^@sandbox/testing$': '<rootDir>/test/support',
  },
};

module.exports = {
  // The slowest suites start first on a fresh clone too (test/sequencer.js).
  testSequencer: '<rootDir>/test/sequencer.js',
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{packages,services}/*/test/unit/**/*.test.ts'],
    },
    {
      // Prettier and ESLint over the whole tree (test/lint): their findings are failures like any other.
      ...shared,
      displayName: 'lint',
      testMatch: ['<rootDir>/test/lint/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'deploy',
      testMatch: ['<rootDir>/deploy/test/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      // Every answer a test's gateways wrote is checked against the OpenAPI document (test/contract-setup.ts).
      setupFilesAfterEnv: ['<rootDir>/test/integration-timeout.ts', '<rootDir>/test/contract-setup.ts'],
      slowTestThreshold: 20,
    },
    {
      // The suites whose subject is the transport run again with every caller
      // on plain unary calls (GRPC_TRANSPORT=unary, the switch back from call
      // streams): each service's gRPC suite, mutual TLS and its certificate
      // rotation (*grpc*), the system's smoke test and a replica lost under
      // load. Suites about what a route answers run once: the transport
      // carries the same messages either way, and call-stream.test.ts pins that.
      ...shared,
      displayName: 'integration-unary',
      testMatch: ['<rootDir>/services/*/test/integration/*grpc*.test.ts', '<rootDir>/services/gateway/test/integration/{system,replica-loss}.test.ts'],
      setupFiles: ['<rootDir>/test/unary-transport.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      setupFilesAfterEnv: ['<rootDir>/test/integration-timeout.ts', '<rootDir>/test/contract-setup.ts'],
      slowTestThreshold: 20,
    },
  ],
};
