import { GrpcStatus } from '@sandbox/runtime';
import { httpStatusFromGrpc } from '../../src/http/http-status';

describe('gRPC status to HTTP status', () => {
  it.each([
    [GrpcStatus.INVALID_ARGUMENT, 400],
    [GrpcStatus.FAILED_PRECONDITION, 400],
    [GrpcStatus.UNAUTHENTICATED, 401],
    [GrpcStatus.PERMISSION_DENIED, 403],
    [GrpcStatus.NOT_FOUND, 404],
    [GrpcStatus.ALREADY_EXISTS, 409],
    [GrpcStatus.RESOURCE_EXHAUSTED, 429],
    [GrpcStatus.UNIMPLEMENTED, 501],
    [GrpcStatus.UNAVAILABLE, 503],
    [GrpcStatus.DEADLINE_EXCEEDED, 504],
    [GrpcStatus.INTERNAL, 500],
  ])('maps %s to %s', (grpc, http) => {
    expect(httpStatusFromGrpc(grpc)).toBe(http);
  });
});
