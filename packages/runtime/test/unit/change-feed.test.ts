import { localChangeFeed } from '@sandbox/runtime';

describe('the change feed within one process (the embedded default)', () => {
  it('when a change is published, then the subscribers of that change drop before publish returns, and the others do not', async () => {
    const feed = localChangeFeed();
    const count = { apps: 0, tokens: 0, both: 0 };
    feed.subscribe(['apps'], () => count.apps++);
    feed.subscribe(['tokens'], () => count.tokens++);
    feed.subscribe(['apps', 'tokens'], () => count.both++);
    const published = feed.publish('apps');
    expect(count).toEqual({ apps: 1, tokens: 0, both: 1 });
    await published;
    expect(count).toEqual({ apps: 1, tokens: 0, both: 1 });
  });
});
