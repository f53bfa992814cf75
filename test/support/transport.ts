import type { GrpcTransport } from '@sandbox/runtime';

/**
 * The transport the gRPC-facing suites carry service calls on: call streams
 * (the default) in the `integration` project, plain unary calls in
 * `integration-unary`, which runs the same suites again (jest.config.js).
 */
export const testTransport = (): GrpcTransport => (process.env.SANDBOX_TEST_GRPC_TRANSPORT === 'unary' ? 'unary' : 'stream');
