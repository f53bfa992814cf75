// The cluster test's own jest config (npm run test:cluster runs it through
// deploy/cluster/test/run.sh, inside the node's network namespace). The root
// jest.config.js matches no file here, so `npm test` never runs it: its first
// build of Kubernetes alone takes half an hour.
const { resolve } = require('node:path');

module.exports = {
  rootDir: resolve(__dirname, '..', '..', '..'),
  testEnvironment: 'node',
  testMatch: ['<rootDir>/deploy/cluster/test/**/*.cluster.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.test.json', diagnostics: { warnOnly: true } }] },
  // one cluster, one sequence of steps: nothing in parallel
  maxWorkers: 1,
  testTimeout: 15 * 60_000,
  slowTestThreshold: 600,
};
