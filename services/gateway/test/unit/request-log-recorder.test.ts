import type { identity } from '@sandbox/contracts';
import { createLogger } from '@sandbox/runtime';
import { RequestLogRecorder, type RecordedRequest } from '../../src/observe/request-log-recorder';

/** A sink that keeps the batches it is given. */
function collectingClients() {
  const batches: identity.RequestLogEntry[][] = [];
  const clients = async (entries: identity.RequestLogEntry[]) => void batches.push(entries);
  return { clients, batches };
}
const entry = (app: string, n: number): RecordedRequest => ({ app, at: n, method: 'GET', path: `/p/${n}`, status: 200, authStyle: 'api_key_header', latencyMs: 1, requestId: `r${n}`, appId: '', failure: '' });

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
