import Redis from 'ioredis';
import { CHANGE_FEED_REDIS, createLogger, REDIS_FAIL_FAST, redisChangeFeed, type Change, type ChangeFeed } from '@sandbox/runtime';
import { ownRedis, type OwnedStore } from '../../../../test/support/owned-store';

jest.setTimeout(60_000);

/** Long enough for a message or a reconnect on a busy machine; each wait ends as soon as what it waits for happens. */
const BOUND_MS = 10_000;

/** Counts each change's drops, and resolves a wait on the next drop of one. */
function listen(feed: ChangeFeed, changes: readonly Change[]) {
  let count = 0;
  let waiting: (() => void)[] = [];
  feed.subscribe(changes, () => {
    count++;
    for (const wake of waiting) wake();
    waiting = [];
  });
  return {
    get count() {
      return count;
    },
    /** The next drop, or a failure naming what did not come. */
    next(what: string, withinMs = BOUND_MS) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no drop within ${withinMs} ms: ${what}`)), withinMs);
        waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

describe('the change feed through Redis (several processes)', () => {
  const logger = createLogger('test', 'silent');
  let redis: OwnedStore;
  const feeds: ChangeFeed[] = [];
  const open = async (publishes = true) => {
    const feed = await redisChangeFeed({ open: () => new Redis(redis.url, { ...REDIS_FAIL_FAST, ...CHANGE_FEED_REDIS }), publishes, logger });
    feeds.push(feed);
    return feed;
  };

  beforeAll(async () => {
    redis = await ownRedis();
  });
  afterAll(async () => {
    await Promise.all(feeds.map((feed) => feed.close()));
    await redis?.remove();
  });

  it("when one process publishes, then its own subscribers drop at once (once: not again by its own message), and every other process's subscribers of that change", async () => {
    const [one, two, gateway] = [await open(), await open(), await open(false)];
    const own = listen(one, ['apps']);
    const other = listen(two, ['apps']);
    const otherTokens = listen(two, ['tokens']);
    const gatewayAll = listen(gateway, ['apps', 'tokens']);

    const arrived = Promise.all([other.next('apps at the other process'), gatewayAll.next('apps at the listening process')]);
    const published = one.publish('apps');
    expect(own.count).toBe(1);
    await published;
    await arrived;
    expect({ other: other.count, otherTokens: otherTokens.count, gateway: gatewayAll.count }).toEqual({ other: 1, otherTokens: 0, gateway: 1 });

    // Messages arrive in order: once `two`'s next change has reached `one`, `one`'s own message would have too.
    const ownTokens = listen(one, ['tokens']);
    const later = ownTokens.next('tokens from the other process');
    await two.publish('tokens');
    await later;
    expect(own.count).toBe(1);
  });

  it('when Redis comes back after a break, then every subscriber drops everything once it has subscribed again, and changes flow again', async () => {
    const [one, two] = [await open(), await open()];
    const apps = listen(two, ['apps']);
    const tokens = listen(two, ['tokens']);

    const resubscribed = Promise.all([apps.next('apps after the break'), tokens.next('tokens after the break')]);
    await redis.kill();
    // Published during the break: the write it follows happened, so it is no error; what is lost here the drop on return covers.
    await expect(one.publish('apps')).resolves.toBeUndefined();
    await redis.start();
    await resubscribed;
    expect({ apps: apps.count, tokens: tokens.count }).toEqual({ apps: 1, tokens: 1 });

    // The publisher is back too, once it has reconnected on its own: a change reaches the other process again.
    let delivered = false;
    for (let attempt = 0; !delivered && attempt < 40; attempt++) {
      const arrived = apps.next('apps after the return', 250);
      await one.publish('apps');
      delivered = await arrived.then(
        () => true,
        () => false,
      );
    }
    expect(delivered).toBe(true);
  });
});
