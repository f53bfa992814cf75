// The data domain throws the shared AppError (a gRPC status, a machine-readable
// code and a message safe to show), so the one gRPC boundary maps it.
export { AppError as DomainError, invalidArgument, notFound, permissionDenied } from '@sandbox/runtime';

/** A caller-supplied value as shown inside a message: quoted, and cut short if long. */
export function shown(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}...` : value);
}
