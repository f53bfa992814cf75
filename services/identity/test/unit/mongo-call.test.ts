import { AppError, GrpcStatus } from '@sandbox/runtime';
import { DuplicateKeyError } from '../../src/stores/errors';
import { mongoCall } from '../../src/stores/mongo-database';

/** How a store failure reaches a caller: away is 503 (UNAVAILABLE), never a 500 with a stack. */
describe('mongoCall', () => {
  const failing = (error: unknown) => mongoCall(() => Promise.reject(error));

  it.each([
    ['the driver says the server cannot be reached', Object.assign(new Error('connect ECONNREFUSED'), { name: 'MongoServerSelectionError' })],
    ['a socket the store ended, seen raw (EPIPE)', Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' })],
    ['a connection reset', Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' })],
    [
      'this process closed its client while stopping',
      Object.assign(new Error('Operation interrupted because client was closed'), { name: 'MongoClientClosedError' }),
    ],
  ])('when %s, then UNAVAILABLE naming the database', async (_what, error) => {
    const refused = await failing(error).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ status: GrpcStatus.UNAVAILABLE, code: 'database_unavailable' });
  });

  it('when a unique index refuses, then DuplicateKeyError naming the index; anything else passes through as it is', async () => {
    await expect(failing({ code: 11000, keyPattern: { ownerSlot: 1 } })).rejects.toBeInstanceOf(DuplicateKeyError);
    const bug = new TypeError('x is undefined');
    await expect(failing(bug)).rejects.toBe(bug);
  });
});
