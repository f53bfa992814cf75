// Two projects: `unit` (no I/O, no processes) and `integration` (real Redis, a
// real MongoDB-wire server, real services as real processes). scripts/test.sh
// provisions the stores and passes MONGO_URL / REDIS_URL.
const shared = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json' }] },
  moduleNameMapper: {
    '^@sandbox/(contracts|runtime)$': '<rootDir>/packages/$1/src',
    '^@sandbox/testing$': '<rootDir>/test/support',
  },
};

module.exports = {
  projects: [
    {
      ...shared,
      displayName: 'unit',
      testMatch: ['<rootDir>/{packages,services}/*/test/unit/**/*.test.ts'],
    },
    {
      ...shared,
      displayName: 'integration',
      testMatch: ['<rootDir>/{packages,services}/*/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/global-setup.ts',
      globalTeardown: '<rootDir>/test/global-teardown.ts',
      slowTestThreshold: 20,
    },
  ],
};
