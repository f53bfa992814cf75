// The order suites start in. Jest starts the slowest first when its cache
// knows how long each took, and otherwise the largest files first; but the
// slowest suites here are short files that start many processes (the chaos
// scenarios, the soak, the image build), so on a fresh clone they started
// last and the run ended with one worker busy and the other idle. Without
// timings, these start first, in this order; with timings, jest's own order.
const Sequencer = require('@jest/test-sequencer').default;

const HEAVIEST = [
  'deploy/test/image.test.ts',
  'services/gateway/test/integration/chaos.test.ts',
  'deploy/test/helm-chart.test.ts',
  'services/gateway/test/integration/schemathesis.test.ts',
  'services/gateway/test/integration/soak.test.ts',
  'services/gateway/test/integration/portal.test.ts',
  'services/gateway/test/integration/data-pages.test.ts',
  'services/gateway/test/integration/health-honest.test.ts',
  'services/gateway/test/integration/admin.test.ts',
];

class HeaviestFirst extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.every((test) => test.duration != null)) return sorted;
    const rank = (test) => {
      const at = HEAVIEST.findIndex((path) => test.path.endsWith(path));
      return at === -1 ? HEAVIEST.length : at;
    };
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = HeaviestFirst;
