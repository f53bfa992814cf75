import { randomBytes } from 'node:crypto';
import { apiRequest, isolatedMongoUrl, requireStoreUrls, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(60_000);

/*
 * Password hashing is bounded (identity's PASSWORD_HASH_CONCURRENCY and
 * PASSWORD_HASH_QUEUE): a burst larger than that is refused at once with 429,
 * Retry-After and nothing stored, instead of queueing everyone's sign-in.
 * Here the bound is one hash and no queue, so a burst of registrations must
 * see both outcomes.
 */
describe('sign-ins and registrations beyond what identity hashes at once', () => {
  let system: RunningSystem;
  const register = (email: string) => apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: 'correct horse battery' } });

  beforeAll(async () => {
    system = await startSystem({
      MONGO_URL: isolatedMongoUrl('busy'),
      REDIS_URL: requireStoreUrls().redisUrl,
      PASSWORD_HASH_CONCURRENCY: '1',
      PASSWORD_HASH_QUEUE: '0',
    });
  });
  afterAll(async () => system?.stop());

  it('are refused with 429 server_busy and Retry-After, and nothing of them is stored', async () => {
    const emails = Array.from({ length: 6 }, () => `burst-${randomBytes(4).toString('hex')}@example.com`);
    const answers = await Promise.all(emails.map(register));
    const refused = emails.filter((_, i) => answers[i].status === 429);
    expect(answers.map((a) => a.status).sort()).toEqual(expect.arrayContaining([201, 429]));
    expect(answers.every((a) => a.status === 201 || a.status === 429)).toBe(true);
    for (const answer of answers.filter((a) => a.status === 429)) {
      expect(answer.headers['retry-after']).toBe('1');
      expect(answer.json().error).toMatchObject({ code: 'server_busy', message: expect.stringContaining('try again') });
    }
    // Refused means not half-done: each refused email registers afresh (201, not 409).
    for (const email of refused) expect((await register(email)).status).toBe(201);
  });
});
