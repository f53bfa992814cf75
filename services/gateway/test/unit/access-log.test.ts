import { Writable } from 'node:stream';
import { createLogger } from '@sandbox/runtime';
import { AccessLog } from '../../src/observe/access-log';

/** A logger writing straight into an array of parsed lines. */
function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger('gateway', 'info', destination), lines };
}

const line = (n: number, status = 200) => ({ requestId: `r${n}`, method: 'GET', path: '/playground/data/hr/employees', status, ms: 0.5 });

describe('AccessLog', () => {
  it('when fewer requests than the limit finish in a second, then each gets its own line and no summary follows', () => {
    const { logger, lines } = capturingLogger();
    const log = new AccessLog(logger, 10);
    for (let n = 1; n <= 3; n++) log.write(line(n));
    log.stop();
    expect(lines.map((l) => [l.msg, l.requestId])).toEqual([
      ['request', 'r1'],
      ['request', 'r2'],
      ['request', 'r3'],
    ]);
    expect(lines[0]).toMatchObject({ level: 'info', service: 'gateway', path: '/playground/data/hr/employees', status: 200, ms: 0.5 });
  });

  it('when more finish than the limit, then the rest are counted by status in one summary line, and the next second starts afresh', () => {
    const { logger, lines } = capturingLogger();
    const log = new AccessLog(logger, 2);
    log.write(line(1));
    log.write(line(2));
    log.write(line(3));
    log.write(line(4, 401));
    log.write(line(5));
    log.nextSecond();
    log.write(line(6));
    log.stop();
    expect(lines.map((l) => l.msg)).toEqual(['request', 'request', 'requests not logged individually', 'request']);
    expect(lines[2]).toMatchObject({ count: 3, byStatus: { 200: 2, 401: 1 }, limitPerSecond: 2 });
    expect(lines[3].requestId).toBe('r6');
  });

  it('when the limit is zero, then only summaries are written', () => {
    const { logger, lines } = capturingLogger();
    const log = new AccessLog(logger, 0);
    log.write(line(1));
    log.stop();
    expect(lines).toEqual([expect.objectContaining({ msg: 'requests not logged individually', count: 1 })]);
  });
});
