import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { AppError, ERROR_CODE_KEY, fromServiceError, GrpcStatus, notFound, resourceExhausted, storeUnavailable, toServiceError } from '@sandbox/runtime';

function serviceError(code: GrpcStatus, details: string, errorCode?: string): ServiceError {
  const metadata = new Metadata();
  if (errorCode) metadata.set(ERROR_CODE_KEY, errorCode);
  return Object.assign(new Error(details), { code, details, metadata });
}

describe('errors across gRPC', () => {
  it('when a domain error crosses the wire, then status, code and message survive', () => {
    const sent = toServiceError(notFound('unknown_pack', 'There is no pack "x".'));
    const received = fromServiceError(serviceError(sent.code!, sent.details!, sent.metadata!.get(ERROR_CODE_KEY)[0] as string), 'data');
    expect(received).toBeInstanceOf(AppError);
    expect(received).toMatchObject({ status: GrpcStatus.NOT_FOUND, code: 'unknown_pack', message: 'There is no pack "x".' });
  });

  it('when a throttle says when to retry, then the delay crosses the wire in whole seconds', () => {
    const sent = toServiceError(resourceExhausted('too_many_attempts', 'Slow down.').retryAfter(1.2));
    const received = fromServiceError(
      Object.assign(new Error('Slow down.'), { code: sent.code!, details: sent.details!, metadata: sent.metadata! }),
      'identity',
    );
    expect(received).toMatchObject({ code: 'too_many_attempts', retryAfterSeconds: 2 });
    expect(fromServiceError(serviceError(GrpcStatus.NOT_FOUND, 'gone', 'unknown_app'), 'identity').retryAfterSeconds).toBeUndefined();
  });

  it('when a refusal carries a challenge, then it crosses the wire as it was', () => {
    const challenge = 'Digest realm="training-sandbox", qop="auth", algorithm=SHA-256, nonce="abc", stale=true';
    const sent = toServiceError(new AppError(GrpcStatus.UNAUTHENTICATED, 'stale_nonce', 'The nonce expired.').withChallenge(challenge));
    const received = fromServiceError(Object.assign(new Error('x'), { code: sent.code!, details: sent.details!, metadata: sent.metadata! }), 'oauth');
    expect(received).toMatchObject({ code: 'stale_nonce', challenge });
    expect(fromServiceError(serviceError(GrpcStatus.NOT_FOUND, 'gone', 'unknown_app'), 'identity').challenge).toBeUndefined();
  });

  it('when a refusal carries several challenges, then each crosses the wire, in order', () => {
    const challenges = ['Digest realm="r", algorithm=SHA-256, nonce="a"', 'Digest realm="r", algorithm=MD5, nonce="a"'];
    const sent = toServiceError(new AppError(GrpcStatus.UNAUTHENTICATED, 'digest_required', 'Answer the challenge.').withChallenge(challenges));
    const received = fromServiceError(Object.assign(new Error('x'), { code: sent.code!, details: sent.details!, metadata: sent.metadata! }), 'oauth');
    expect(received.challenge).toEqual(challenges);
  });

  it('when a peer is unreachable, then the error names the peer and says unavailable', () => {
    const error = fromServiceError(serviceError(GrpcStatus.UNAVAILABLE, 'connect ECONNREFUSED 127.0.0.1:1'), 'identity');
    expect(error).toMatchObject({ status: GrpcStatus.UNAVAILABLE, code: 'service_unavailable' });
    expect(error.message).toBe('The identity service is unavailable; the routes that do not need it keep working.');
    expect(error.retryAfterSeconds).toBe(2);
  });

  it('when a store is down, then the refusal names the store, not the service, and says when to retry across the wire', () => {
    const sent = toServiceError(storeUnavailable('database_unavailable', 'MongoDB'));
    const received = fromServiceError(Object.assign(new Error('x'), { code: sent.code!, details: sent.details!, metadata: sent.metadata! }), 'identity');
    expect(received).toMatchObject({
      status: GrpcStatus.UNAVAILABLE,
      code: 'database_unavailable',
      message: 'MongoDB is unavailable; the routes that do not need it keep working. Try again shortly.',
      retryAfterSeconds: 2,
    });
  });

  it('when an unexpected failure has internal details, then none of them reach the caller', () => {
    const error = fromServiceError(serviceError(GrpcStatus.INTERNAL, 'TypeError at /srv/app/x.js:10'), 'data');
    expect(error).toMatchObject({ status: GrpcStatus.INTERNAL, code: 'internal' });
    expect(error.message).not.toContain('TypeError');
  });
});
