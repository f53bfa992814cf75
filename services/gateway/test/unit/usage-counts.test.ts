import { UsageCounts } from '../../src/observe/usage-counts';

const request = (app: string, at: number, fields: Partial<{ authStyle: string; routeFamily: string; appId: string }> = {}) => ({
  app,
  appId: '',
  at,
  authStyle: 'api_key_header',
  routeFamily: 'data',
  ...fields,
});

describe('UsageCounts: requests per app, UTC day, auth style and route family', () => {
  it('when requests cross midnight UTC, then each day has its own count, with its latest request', () => {
    const counts = new UsageCounts();
    const midnight = Date.UTC(2030, 5, 2);
    counts.count(request('a', midnight - 1));
    counts.count(request('a', midnight - 2));
    counts.count(request('a', midnight));
    expect(counts.take().usage).toEqual([
      { app: 'a', appId: '', day: '2030-06-01', authStyle: 'api_key_header', routeFamily: 'data', requests: 2, lastAt: '2030-06-01T23:59:59.999Z' },
      { app: 'a', appId: '', day: '2030-06-02', authStyle: 'api_key_header', routeFamily: 'data', requests: 1, lastAt: '2030-06-02T00:00:00.000Z' },
    ]);
    expect(counts.take()).toEqual({ usage: [], dropped: 0 });
  });

  it('when the bound of keys is reached, then known keys still count, new ones are dropped and said so', () => {
    const counts = new UsageCounts(2);
    counts.count(request('a', 1));
    counts.count(request('b', 1));
    counts.count(request('c', 1));
    counts.count(request('c', 2));
    counts.count(request('a', 3));
    const { usage, dropped } = counts.take();
    expect(usage.map((c) => [c.app, c.requests])).toEqual([
      ['a', 2],
      ['b', 1],
    ]);
    expect(dropped).toBe(2);
  });

  it('when counts are given back, then they add to what was counted since, and a later request keeps the latest time', () => {
    const counts = new UsageCounts();
    counts.count(request('a', 10));
    const taken = counts.take().usage;
    counts.count(request('a', 5));
    counts.giveBack(taken);
    expect(counts.take().usage).toEqual([expect.objectContaining({ app: 'a', requests: 2, lastAt: new Date(10).toISOString() })]);
  });

  it('when counts are given back beyond the bound, then what does not fit is counted as dropped', () => {
    const counts = new UsageCounts(1);
    counts.count(request('a', 1));
    const taken = counts.take().usage;
    counts.count(request('b', 1));
    counts.giveBack(taken);
    expect(counts.take()).toEqual({ usage: [expect.objectContaining({ app: 'b' })], dropped: 1 });
  });
});
