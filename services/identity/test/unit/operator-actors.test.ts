import { refusalOf } from '@sandbox/testing';
import type { SessionUser } from '../../src/domain/accounts';
import { OperatorActors } from '../../src/domain/operator-actors';

const PERMISSION_DENIED = 7;
const UNAUTHENTICATED = 16;
const OPS: SessionUser = {
  user: { id: 'u-ops', key: 'ops@example.org', email: 'ops@example.org', provider: 'password', createdAt: new Date(0), lastSeenAt: new Date(0) },
  operator: true,
};
const LEARNER: SessionUser = { user: { ...OPS.user, id: 'u-learner', email: 'learner@example.org' }, operator: false };

/**
 * The rule alone, over the narrow port it needs (AccountService.verifySession
 * answers for two tokens here); operator-admin.test.ts runs it on a real
 * identity with real sessions, certificates and both transports.
 */
describe('OperatorActors', () => {
  const sessions = {
    async verifySession(token: string): Promise<SessionUser> {
      if (token === 'ops-token') return OPS;
      if (token === 'learner-token') return LEARNER;
      throw Object.assign(new Error('The session token is not valid; sign in again.'), { status: UNAUTHENTICATED, code: 'invalid_session' });
    },
  };
  const actors = new OperatorActors(sessions);

  it("when an operator's session comes, then the actor is that operator, from any caller the table lets in, and a stated user is ignored", async () => {
    for (const caller of ['gateway', 'cli', undefined]) {
      await expect(actors.verify({ sessionToken: 'ops-token', statedUser: 'root@pod' }, caller)).resolves.toEqual({
        kind: 'session',
        id: 'u-ops',
        email: 'ops@example.org',
      });
    }
  });

  it("when a learner's session comes, then operator_required; a session that does not verify passes its own refusal on", async () => {
    expect(await refusalOf(actors.verify({ sessionToken: 'learner-token', statedUser: '' }, 'gateway'))).toMatchObject({
      status: PERMISSION_DENIED,
      code: 'operator_required',
    });
    await expect(actors.verify({ sessionToken: 'forged', statedUser: '' }, 'gateway')).rejects.toMatchObject({ code: 'invalid_session' });
  });

  it("when no session comes, then only the CLI's certificate acts, as itself, with its stated user kept beside", async () => {
    await expect(actors.verify({ sessionToken: '', statedUser: 'kim@laptop' }, 'cli')).resolves.toEqual({
      kind: 'cli',
      id: 'cli',
      email: '',
      statedUser: 'kim@laptop',
    });
    await expect(actors.verify(undefined, 'cli')).resolves.toEqual({ kind: 'cli', id: 'cli', email: '', statedUser: '' });
    for (const caller of ['gateway', 'oauth']) {
      expect(await refusalOf(actors.verify({ sessionToken: '', statedUser: 'root@pod' }, caller))).toMatchObject({
        status: PERMISSION_DENIED,
        code: 'operator_required',
        message: expect.stringMatching(/own certificate/),
      });
    }
  });

  it('when there is no certificate at all (GRPC_TLS=off, or a plaintext call in a migration), then a call without a session is refused, saying why', async () => {
    expect(await refusalOf(actors.verify({ sessionToken: '', statedUser: 'root@pod' }, undefined))).toMatchObject({
      code: 'operator_required',
      message: expect.stringMatching(/Without mutual TLS/),
    });
  });

  it('when the stated user is too long or holds control characters, then invalid_stated_user', async () => {
    for (const statedUser of ['a'.repeat(321), 'root@pod\n']) {
      expect(await refusalOf(actors.verify({ sessionToken: '', statedUser }, 'cli'))).toMatchObject({ code: 'invalid_stated_user' });
    }
  });
});
