import { runBenchScript } from '@sandbox/testing';

jest.setTimeout(300_000);

/*
 * Every chaos scenario of issue #21 (bench/chaos/), as `npm run chaos` runs
 * them, at 30 connections (CI runs beside other suites on two cores): each
 * starts two replicas of every process with real stores, does its damage
 * under load and checks its rules. One test per scenario, so a failure names
 * it and prints its figures.
 */
const SCENARIOS = ['kill-replicas', 'rolling-restart', 'store-outage', 'slow-service'];

describe('the chaos suite', () => {
  it.each(SCENARIOS)('%s holds its rules', async (scenario) => {
    const { code, report } = await runBenchScript('bench/chaos.mjs', ['--only', scenario, '--connections', '30']);
    const result = report.scenarios[scenario];
    expect({ error: result.error, failed: result.checks.filter((c: { ok: boolean }) => !c.ok) }).toEqual({ error: undefined, failed: [] });
    expect(result.checks.length).toBeGreaterThan(0);
    expect(code).toBe(0);
  });
});
