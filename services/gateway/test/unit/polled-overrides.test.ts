import type { identity } from '@sandbox/contracts';
import { createLogger } from '@sandbox/runtime';
import { ConfiguredOverrides, LayeredOverrides } from '../../src/fair-share/limit-overrides';
import { PolledOverrides, type Schedule } from '../../src/fair-share/polled-overrides';

const A = 'app_AAAAAAAAAAAAAAAAAAAAAA';
const B = 'app_BBBBBBBBBBBBBBBBBBBBBB';
const limit = (appId: string, fields: Partial<identity.AppLimit> = {}): identity.AppLimit => ({
  appId,
  exempt: false,
  perSecond: 0,
  burst: 0,
  setAt: '',
  setBy: undefined,
  ...fields,
});

/** A schedule the test fires itself: what was scheduled, and with what delay. */
function manualSchedule() {
  const pending: { run: () => void; ms: number; cancelled: boolean }[] = [];
  const schedule: Schedule = (run, ms) => {
    const entry = { run, ms, cancelled: false };
    pending.push(entry);
    return () => {
      entry.cancelled = true;
    };
  };
  /** Fires the next scheduled poll and waits for it to end. */
  const fire = async () => {
    const next = pending.shift();
    if (!next || next.cancelled) throw new Error('no poll is scheduled');
    next.run();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { schedule, pending, fire };
}

describe('PolledOverrides: the app limits operators set, polled from identity', () => {
  const logger = createLogger('test', 'silent');

  it('when identity answers, then the limits are answered from memory, and the next poll is a second later', async () => {
    const { schedule, pending } = manualSchedule();
    const overrides = new PolledOverrides(async () => [limit(A, { exempt: true }), limit(B, { perSecond: 5, burst: 10 })], logger, { schedule });
    expect(overrides.of(A)).toBeUndefined();
    await overrides.poll();
    expect([overrides.of(A), overrides.of(B)]).toEqual([{ kind: 'exempt' }, { kind: 'rate', perSecond: 5, burst: 10 }]);
    expect(overrides.of('app_CCCCCCCCCCCCCCCCCCCCCC')).toBeUndefined();
    expect(pending.map((p) => p.ms)).toEqual([1000]);
    overrides.stop();
  });

  it('when a limit is cleared in identity, then it is gone after the next poll', async () => {
    const { schedule, fire } = manualSchedule();
    let answer = [limit(A, { exempt: true })];
    const overrides = new PolledOverrides(async () => answer, logger, { schedule });
    await overrides.poll();
    answer = [];
    await fire();
    expect(overrides.of(A)).toBeUndefined();
    overrides.stop();
  });

  it('when identity stops answering, then the last limits fetched stay in force and polling goes on', async () => {
    const { schedule, fire, pending } = manualSchedule();
    let up = true;
    const overrides = new PolledOverrides(async () => (up ? [limit(A, { exempt: true })] : Promise.reject(new Error('unavailable'))), logger, { schedule });
    await overrides.poll();
    up = false;
    await fire();
    await fire();
    expect(overrides.of(A)).toEqual({ kind: 'exempt' });
    expect(pending).toHaveLength(1);
    overrides.stop();
  });

  it('when a limit has no rate or burst and is not exempt, then it is not enforced', async () => {
    const overrides = new PolledOverrides(async () => [limit(A, { perSecond: 0, burst: 10 })], logger, { schedule: manualSchedule().schedule });
    await overrides.poll();
    expect(overrides.of(A)).toBeUndefined();
    overrides.stop();
  });

  it('when stopped, then the scheduled poll is cancelled and none is scheduled after the one in flight', async () => {
    const { schedule, pending } = manualSchedule();
    let release!: () => void;
    const overrides = new PolledOverrides(() => new Promise<identity.AppLimit[]>((resolve) => (release = () => resolve([]))), logger, { schedule });
    const inFlight = overrides.poll();
    overrides.stop();
    release();
    await inFlight;
    expect(pending).toHaveLength(0);
  });

  it("when layered over the configuration, then an operator's setting wins and the configuration answers the rest", async () => {
    const polled = new PolledOverrides(async () => [limit(A, { perSecond: 1, burst: 2 })], logger, { schedule: manualSchedule().schedule });
    await polled.poll();
    const configured = new ConfiguredOverrides({ exemptApps: [A, B], appOverrides: new Map() });
    const layered = new LayeredOverrides([polled, configured]);
    expect([layered.of(A), layered.of(B), layered.of('app_CCCCCCCCCCCCCCCCCCCCCC')]).toEqual([
      { kind: 'rate', perSecond: 1, burst: 2 },
      { kind: 'exempt' },
      undefined,
    ]);
    polled.stop();
  });
});
