import { spawnSync } from 'node:child_process';
import { SERVICE_NODE_OPTIONS, serviceNodeOptions } from '../../src/node-options';

/*
 * The V8 options every service runs with (node-options.ts): node takes them
 * from NODE_OPTIONS (it refuses, exit 9, an option it does not allow there),
 * and options given by the person running `npm start` come after ours, so
 * theirs win (V8 takes the last of a repeated option).
 */
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
});
