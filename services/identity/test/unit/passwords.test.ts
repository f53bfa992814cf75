import { PasswordHasher } from '../../src/domain/passwords';

describe('PasswordHasher', () => {
  const hasher = new PasswordHasher(10); // cheap for tests; production uses 15

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
    await expect(new PasswordHasher(11).verify('kept password', old)).resolves.toBe(true);
  });

  it('refuses a stored value that is not an scrypt hash', async () => {
    await expect(hasher.verify('x', 'plain')).resolves.toBe(false);
  });

  it('verifyAgainstNothing always refuses', async () => {
    await expect(hasher.verifyAgainstNothing('anything')).resolves.toBe(false);
  });
});
