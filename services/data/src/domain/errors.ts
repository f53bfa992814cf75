// The data domain throws the shared AppError (a gRPC status, a machine-readable
// code and a message safe to show), so the one gRPC boundary maps it.
export { AppError as DomainError, invalidArgument, notFound, permissionDenied } from '@sandbox/runtime';
