import { refusalOf } from '@sandbox/testing';
import { PasswordHasher } from '../../src/domain/passwords';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher({ log2N: 10 }); // cheap for tests; production uses 15

  it('when a password is hashed, then the stored form is scrypt with its parameters and no trace of the password', async () => {
    const stored = await hasher.hash('correct horse battery');
    expect(stored).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(stored).not.toContain('correct');
  });

  it('when the same password is hashed twice, then the salts (and hashes) differ', async () => {
    expect(await hasher.hash('same password')).not.toBe(await hasher.hash('same password'));
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hasher.hash('right password');
    await expect(hasher.verify('right password', stored)).resolves.toBe(true);
    await expect(hasher.verify('wrong password', stored)).resolves.toBe(false);
  });

  it('when the cost is raised later, then old hashes still verify (the parameters travel with them)', async () => {
    const old = await hasher.hash('kept password');
    await expect(new PasswordHasher({ log2N: 11 }).verify('kept password', old)).resolves.toBe(true);
  });

  it('refuses a stored value that is not an scrypt hash', async () => {
    await expect(hasher.verify('x', 'plain')).resolves.toBe(false);
  });

  it('verifyAgainstNothing always refuses', async () => {
    await expect(hasher.verifyAgainstNothing('anything')).resolves.toBe(false);
  });

  it('when more hashes are asked for than may run or wait, then the rest are refused at once with a retry hint', async () => {
    const bounded = new PasswordHasher({ log2N: 12, concurrency: 1, maxWaiting: 1 });
    const attempts = Array.from({ length: 4 }, (_, i) =>
      bounded.hash(`password ${i}`).then(
        () => 'hashed',
        (e) => e,
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.slice(0, 2)).toEqual(['hashed', 'hashed']);
    for (const refused of outcomes.slice(2))
      expect(await refusalOf(Promise.reject(refused))).toEqual({ status: 8, code: 'server_busy', message: expect.any(String), retryAfterSeconds: 1 });
  });

  it('when the first unknown-email check is refused while busy, then later ones still work', async () => {
    const bounded = new PasswordHasher({ log2N: 12, concurrency: 1, maxWaiting: 0 });
    const hashing = bounded.hash('keeps the only turn');
    await expect(bounded.verifyAgainstNothing('anything')).rejects.toMatchObject({ code: 'server_busy' });
    await hashing;
    await expect(bounded.verifyAgainstNothing('anything')).resolves.toBe(false);
  });
});
