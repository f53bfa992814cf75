import { runBenchScript } from '@sandbox/testing';

jest.setTimeout(240_000);

/*
 * CI's share of the soak (issue #21): bench/soak.mjs for 15 s at 50
 * connections instead of 60 s at 100 (`npm run soak`; CI runs it beside
 * other suites on two cores), same rules: two replicas of everything with the
 * real stores, every route family, not one answer that is not 2xx, no error,
 * no timeout, and no process growing beyond its caches.
 */
describe('a 15 s soak over two replicas of everything', () => {
  it('gives no unexpected status', async () => {
    const { code, report } = await runBenchScript('bench/soak.mjs', ['--duration', '15', '--connections', '50']);
    expect({ unexpected: report.unexpected, samples: report.samples, firstErrors: report.firstErrors }).toEqual({
      unexpected: 0,
      samples: {},
      firstErrors: [],
    });
    expect(report.checks.filter((c: { ok: boolean }) => !c.ok)).toEqual([]);
    expect(report.requests).toBeGreaterThan(0);
    expect(code).toBe(0);
  });
});
