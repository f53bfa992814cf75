import type { identity } from '@sandbox/contracts';
import { createLogger } from '@sandbox/runtime';
import { RECORD_BATCH_MAX, RequestLogRecorder, type RecordedRequest } from '../../src/observe/request-log-recorder';

/** A sink that keeps the batches it is given. */
function collectingClients() {
  const batches: identity.RequestLogEntry[][] = [];
  const usage: identity.UsageCount[][] = [];
  const clients = async (entries: identity.RequestLogEntry[], counts: identity.UsageCount[]) => {
    batches.push(entries);
    usage.push(counts);
  };
  return { clients, batches, usage };
}
const entry = (app: string, n: number, fields: Partial<RecordedRequest> = {}): RecordedRequest => ({
  app,
  at: n,
  method: 'GET',
  path: `/p/${n}`,
  status: 200,
  authStyle: 'api_key_header',
  latencyMs: 1,
  requestId: `r${n}`,
  appId: '',
  failure: '',
  facts: {},
  routeFamily: 'data',
  ...fields,
});
const DAY = 86_400_000;
const total = (counts: identity.UsageCount[]) => counts.reduce((sum, c) => sum + c.requests, 0);

describe('RequestLogRecorder', () => {
  const logger = createLogger('test', 'silent');

  it('when an app makes more requests than its cap between flushes, then only its newest are sent', async () => {
    const { clients, batches } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, 3, 60_000, 2);
    for (let n = 1; n <= 6; n++) recorder.record(entry('a', n));
    recorder.record(entry('b', 100));
    await recorder.stop();
    const sent = batches.flat();
    expect(sent.filter((e) => e.app === 'a').map((e) => e.requestId)).toEqual(['r4', 'r5', 'r6']);
    expect(sent.filter((e) => e.app === 'b')).toHaveLength(1);
    expect(sent.find((e) => e.requestId === 'r4')?.time).toBe('1970-01-01T00:00:00.004Z');
    expect(Math.max(...batches.map((b) => b.length))).toBeLessThanOrEqual(2);
  });

  it('when an app makes more requests than its cap, then the log keeps its newest but usage counts every one, by day, style and family', async () => {
    const { clients, batches, usage } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, 3, 60_000);
    for (let n = 1; n <= 6; n++) recorder.record(entry('a', n));
    recorder.record(entry('a', 7, { authStyle: 'bearer' }));
    recorder.record(entry('a', 8, { routeFamily: 'auth' }));
    recorder.record(entry('a', DAY + 9));
    await recorder.stop();
    expect(batches.flat().filter((e) => e.app === 'a')).toHaveLength(3);
    const counts = usage.flat();
    expect(counts).toEqual(
      expect.arrayContaining([
        { app: 'a', appId: '', day: '1970-01-01', authStyle: 'api_key_header', routeFamily: 'data', requests: 6, lastAt: '1970-01-01T00:00:00.006Z' },
        { app: 'a', appId: '', day: '1970-01-01', authStyle: 'bearer', routeFamily: 'data', requests: 1, lastAt: '1970-01-01T00:00:00.007Z' },
        { app: 'a', appId: '', day: '1970-01-01', authStyle: 'api_key_header', routeFamily: 'auth', requests: 1, lastAt: '1970-01-01T00:00:00.008Z' },
        { app: 'a', appId: '', day: '1970-01-02', authStyle: 'api_key_header', routeFamily: 'data', requests: 1, lastAt: '1970-01-02T00:00:00.009Z' },
      ]),
    );
    expect(counts).toHaveLength(4);
  });

  it('when identity does not take a flush, then its entries are dropped but its counts are sent with the next one', async () => {
    let failing = true;
    const { clients, batches, usage } = collectingClients();
    const flaky = async (entries: identity.RequestLogEntry[], counts: identity.UsageCount[]) => {
      if (failing) throw Object.assign(new Error('unavailable'), { code: 'service_unavailable' });
      await clients(entries, counts);
    };
    const recorder = new RequestLogRecorder(flaky, logger, 10, 60_000);
    recorder.record(entry('a', 1));
    recorder.record(entry('a', 2));
    await recorder.flush();
    recorder.record(entry('a', 3));
    failing = false;
    await recorder.stop();
    expect(batches.flat().map((e) => e.requestId)).toEqual(['r3']);
    expect(usage.flat()).toEqual([expect.objectContaining({ app: 'a', requests: 3, lastAt: '1970-01-01T00:00:00.003Z' })]);
  });

  it("when a request named something that cannot be an App ID, then its log entry goes to identity but it is nobody's usage", async () => {
    const { clients, batches, usage } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, 10, 60_000);
    const appId = 'app_Xq3V0d5yH2kq8Jr1mT9bWg';
    recorder.record(entry('', 1, { appId, authStyle: 'basic' }));
    recorder.record(entry('', 2, { appId: 'not an app', authStyle: 'basic' }));
    await recorder.stop();
    expect(batches.flat()).toHaveLength(2);
    expect(usage.flat()).toEqual([expect.objectContaining({ app: '', appId, authStyle: 'basic', requests: 1 })]);
  });

  it('when there are more counts than a batch holds, then they go in batches of that size, beside the entries', async () => {
    const { clients, batches, usage } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, 10, 60_000, 2);
    for (let n = 0; n < 5; n++) recorder.record(entry(`app${n}`, n));
    await recorder.stop();
    expect(usage.map((counts) => counts.length)).toEqual([2, 2, 1]);
    expect(batches.map((entries) => entries.length)).toEqual([2, 2, 1]);
    expect(total(usage.flat())).toBe(5);
  });

  it('when one app fills its cap between flushes, then the flush is one call to identity, as many entries as identity takes in one', async () => {
    const { clients, batches, usage } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, RECORD_BATCH_MAX, 60_000);
    for (let n = 0; n < RECORD_BATCH_MAX + 5; n++) recorder.record(entry('busy', n));
    await recorder.stop();
    expect(batches.map((entries) => entries.length)).toEqual([RECORD_BATCH_MAX]);
    expect(total(usage.flat())).toBe(RECORD_BATCH_MAX + 5);
  });

  it('when a flush is still sending as the gateway stops, then the stop waits for it and then sends what came since', async () => {
    const sent: string[][] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let sending!: () => void;
    const firstSending = new Promise<void>((resolve) => (sending = resolve));
    let calls = 0;
    const send = async (entries: identity.RequestLogEntry[]) => {
      if (calls++ === 0) {
        sending();
        await held;
      }
      sent.push(entries.map((e) => e.requestId));
    };
    const recorder = new RequestLogRecorder(send, logger, 10, 60_000);
    recorder.record(entry('a', 1));
    const first = recorder.flush();
    await firstSending;
    recorder.record(entry('a', 2));
    let stopped = false;
    const stopping = recorder.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(stopped).toBe(false);
    release();
    await Promise.all([first, stopping]);
    expect(sent).toEqual([['r1'], ['r2']]);
  });

  it('when flushed, then the buffer starts empty again', async () => {
    const { clients, batches } = collectingClients();
    const recorder = new RequestLogRecorder(clients, logger, 10, 60_000);
    recorder.record(entry('a', 1));
    await recorder.flush();
    await recorder.flush();
    await recorder.stop();
    expect(batches.flat()).toHaveLength(1);
  });
});
