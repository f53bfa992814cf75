import { randomBytes } from 'node:crypto';
import { AppError } from '@sandbox/runtime';
import { refusalOf, requireStoreUrls } from '@sandbox/testing';
import { SIGN_IN_POLICY, SignInThrottle } from '../../src/domain/sign-in-throttle';
import { RedisConnection } from '../../src/stores/redis-connection';
import { SIGN_IN_KEY_PREFIX, signInLimiters } from '../../src/stores/sign-in-limiters';

type Sleep = (ms: number) => Promise<unknown>;

/** Two replicas' throttles over one store (memory: one process, so one set of counters). */
interface ThrottleHarness {
  replicas(sleep?: Sleep): [SignInThrottle, SignInThrottle];
  redis?: RedisConnection;
  close(): Promise<void>;
}

const noWait: Sleep = async () => undefined;
// Fresh names per test and per run: the Redis is shared and its counters outlive a run (for up to an hour).
const anEmail = () => `u${randomBytes(6).toString('hex')}@example.com`;
const anAddress = () => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

function describeSignInThrottleContract(name: string, open: () => Promise<ThrottleHarness>) {
  describe(`sign-in throttle contract: ${name}`, () => {
    let harness: ThrottleHarness;
    beforeAll(async () => {
      harness = await open();
    });
    afterAll(() => harness.close());

    const failOn = async (replica: SignInThrottle, email: string, address: string) => (await replica.admit(email, address)).failed();

    it('when 20 attempts from one address on one email arrive at once on two replicas, then exactly 5 get through', async () => {
      const [a, b] = harness.replicas();
      const email = anEmail();
      const address = anAddress();
      const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => failOn(i % 2 ? a : b, email, address)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(SIGN_IN_POLICY.addressAndAccount.failures);
      for (const o of outcomes) {
        if (o.status === 'rejected') {
          expect(o.reason).toBeInstanceOf(AppError);
          expect(o.reason).toMatchObject({ code: 'too_many_attempts' });
          expect((o.reason as AppError).retryAfterSeconds).toBeGreaterThan(SIGN_IN_POLICY.addressAndAccount.windowSeconds - 60);
          expect((o.reason as AppError).retryAfterSeconds).toBeLessThanOrEqual(SIGN_IN_POLICY.addressAndAccount.windowSeconds);
        }
      }
    });

    it('when one address fails on 110 emails at once on two replicas, then exactly 100 get through and the rest wait up to an hour', async () => {
      const [a, b] = harness.replicas();
      const address = anAddress();
      const outcomes = await Promise.allSettled(Array.from({ length: 110 }, (_, i) => failOn(i % 2 ? a : b, anEmail(), address)));
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(SIGN_IN_POLICY.address.failures);
      const refused = await refusalOf(a.admit(anEmail(), address));
      expect(refused).toMatchObject({ code: 'too_many_attempts', message: expect.stringMatching(/from your address/) });
      expect(refused.retryAfterSeconds).toBeLessThanOrEqual(SIGN_IN_POLICY.address.windowSeconds);
      await expect(b.admit(anEmail(), anAddress())).resolves.toBeDefined();
    });

    it('when the owner signs in on one replica, then the failing address stays refused on the other', async () => {
      const [a, b] = harness.replicas();
      const email = anEmail();
      const attacker = anAddress();
      for (let i = 0; i < SIGN_IN_POLICY.addressAndAccount.failures; i++) await failOn(a, email, attacker);
      const owner = await b.admit(email, anAddress());
      await owner.succeeded();
      expect((await refusalOf(b.admit(email, attacker))).code).toBe('too_many_attempts');
    });

    it('when many addresses fail on one email on two replicas, then each later attempt is slowed down, by at most 2 s', async () => {
      const waits: number[] = [];
      const [a, b] = harness.replicas(async (ms) => void waits.push(ms));
      const email = anEmail();
      await Promise.all(Array.from({ length: 12 }, (_, i) => failOn(i % 2 ? a : b, email, anAddress())));
      expect(waits.sort((x, y) => x - y)).toEqual([250, 500, 1000, 2000, 2000, 2000, 2000]);
      expect((await a.admit(email, anAddress())).delayedMs).toBe(SIGN_IN_POLICY.account.maxDelayMs);
    });

    if (name === 'redis') {
      it('when counted in Redis, then keys hold no email or address, and each expires with its window', async () => {
        const { client } = harness.redis!;
        const email = anEmail();
        await failOn(harness.replicas()[0], email, '198.51.100.77');
        const keys: string[] = [];
        for await (const batch of client.scanStream({ match: `${SIGN_IN_KEY_PREFIX}:*`, count: 1000 })) keys.push(...(batch as string[]));
        expect(keys.length).toBeGreaterThanOrEqual(3);
        expect(keys.join('\n')).not.toContain(email.split('@')[0]);
        expect(keys.join('\n')).not.toContain('198.51.100.77');
        const mine = keys.filter((key) => key.startsWith(`${SIGN_IN_KEY_PREFIX}:account:`));
        for (const key of mine) {
          const ttl = await client.pttl(key);
          expect(ttl).toBeGreaterThan(0);
          expect(ttl).toBeLessThanOrEqual(SIGN_IN_POLICY.account.windowSeconds * 1000);
        }
      });
    }
  });
}

describeSignInThrottleContract('memory', async () => {
  const limiters = signInLimiters();
  return { replicas: (sleep = noWait) => [new SignInThrottle(limiters, sleep), new SignInThrottle(limiters, sleep)], close: async () => undefined };
});

describeSignInThrottleContract('redis', async () => {
  // Two connections, as two identity replicas would have.
  const first = await RedisConnection.connect(requireStoreUrls().redisUrl);
  const second = await RedisConnection.connect(requireStoreUrls().redisUrl);
  return {
    replicas: (sleep = noWait) => [new SignInThrottle(signInLimiters(first.client), sleep), new SignInThrottle(signInLimiters(second.client), sleep)],
    redis: first,
    async close() {
      await first.close();
      await second.close();
    },
  };
});
