import { apiRequest, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(120_000);

/*
 * Who may sign up (issue #22): SIGNUP=open|domain|closed and LOCAL_SIGN_IN,
 * through the gateway as a learner meets them: a 403 in the error shape that
 * says what is allowed instead, nothing created, and accounts that exist
 * still signing in unless local sign-in is off too.
 */
const PASSWORD = 'correct horse battery';
const register = (system: RunningSystem, email: string) => apiRequest(system.baseUrl, 'POST', '/api/auth/register', { body: { email, password: PASSWORD } });
const login = (system: RunningSystem, email: string) => apiRequest(system.baseUrl, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });

describe('SIGNUP=domain', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ SIGNUP: 'domain', SIGNUP_DOMAINS: 'example.edu' });
  });
  afterAll(async () => system?.stop());

  it('an address at an allowed domain signs up; another is refused with 403 naming the domains, and nothing is created', async () => {
    expect((await register(system, 'ada@example.edu')).status).toBe(201);
    const refused = await register(system, 'bob@example.org');
    expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 403, code: 'signup_domain_not_allowed' });
    expect(refused.json().error.message).toBe('Sign-up here is for email addresses at example.edu; example.org is not one of them.');
    expect((await login(system, 'bob@example.org')).status).toBe(401);
  });
});

describe('SIGNUP=closed with LOCAL_SIGN_IN=false', () => {
  let system: RunningSystem;
  beforeAll(async () => {
    system = await startSystem({ SIGNUP: 'closed', LOCAL_SIGN_IN: 'false' });
  });
  afterAll(async () => system?.stop());

  it('a sign-up is refused, and so is a sign-in with a password, each saying what to do instead', async () => {
    const refused = await register(system, 'ada@example.edu');
    expect({ status: refused.status, code: refused.json().error.code }).toEqual({ status: 403, code: 'signup_closed' });
    expect(refused.json().error.message).toMatch(/ask whoever runs it for access, or sign in through its identity provider/);
    const noPasswords = await login(system, 'ada@example.edu');
    expect({ status: noPasswords.status, code: noPasswords.json().error.code }).toEqual({ status: 403, code: 'local_sign_in_disabled' });
  });
});
