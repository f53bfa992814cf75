import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { FULL_GC_FLOOR, SERVICE_NODE_OPTIONS, serviceNodeOptions } from '../../src/node-options';

/*
 * The V8 options every service runs with (node-options.ts): node takes them
 * from NODE_OPTIONS (it refuses, exit 9, an option it does not allow there),
 * and options given by the person running `npm start` come after ours, so
 * theirs win (V8 takes the last of a repeated option).
 */
// Each test starts node (twice, 140 MB of Buffers, in the last): room for a busy machine.
jest.setTimeout(30_000);

describe('the V8 options of a service process', () => {
  /** Starts node with `nodeOptions` as NODE_OPTIONS, running nothing. */
  const startNode = (nodeOptions: string) => {
    const run = spawnSync(process.execPath, ['-e', ''], { env: { PATH: process.env.PATH, NODE_OPTIONS: nodeOptions }, encoding: 'utf8' });
    return { status: run.status, stderr: run.stderr };
  };

  it('when node starts with them in NODE_OPTIONS, then it accepts them', () => {
    expect(startNode(SERVICE_NODE_OPTIONS)).toEqual({ status: 0, stderr: '' });
    // The check can fail: an option node does not take from NODE_OPTIONS stops it.
    expect(startNode('--no-such-v8-option-here').status).not.toBe(0);
  });

  it('when nobody gave options, then a service gets ours alone', () => {
    expect(serviceNodeOptions(undefined)).toBe(SERVICE_NODE_OPTIONS);
    expect(serviceNodeOptions('')).toBe(SERVICE_NODE_OPTIONS);
  });

  it('when the person running npm start gave options, then theirs come after ours, so theirs win', () => {
    expect(serviceNodeOptions('--max-semi-space-size=32 --cpu-prof')).toBe(`${SERVICE_NODE_OPTIONS} --max-semi-space-size=32 --cpu-prof`);
  });

  it('when the options node refuses in NODE_OPTIONS are given on its command line, then it takes them there', () => {
    expect(startNode(FULL_GC_FLOOR).status).not.toBe(0);
    const run = spawnSync(process.execPath, [FULL_GC_FLOOR, '-e', ''], {
      env: { PATH: process.env.PATH, NODE_OPTIONS: SERVICE_NODE_OPTIONS },
      encoding: 'utf8',
    });
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' });
  });

  it('when Buffers above 4 KiB outlive the young generation, then with the command-line options V8 runs no full collection for them', () => {
    // Allocation, not time, decides when V8 collects: the counts hold on a busy machine.
    const majors = (args: readonly string[]) => {
      const run = spawnSync(process.execPath, [...args, join(__dirname, '..', 'fixtures', 'large-buffers.cjs')], {
        env: { PATH: process.env.PATH, NODE_OPTIONS: SERVICE_NODE_OPTIONS },
        encoding: 'utf8',
      });
      return (JSON.parse(run.stdout) as { majors: number }).majors;
    };
    // Measured: 12 without (a full collection every 12 MB or so), 1 with.
    expect(majors([])).toBeGreaterThanOrEqual(5);
    expect(majors([FULL_GC_FLOOR])).toBeLessThanOrEqual(2);
  });
});
