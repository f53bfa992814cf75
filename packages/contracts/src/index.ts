// The generated gRPC contracts, one namespace per proto package.
export * as common from './gen/sandbox/common/v1/principal';
export * as health from './gen/grpc/health/v1/health';
export * as identity from './gen/sandbox/identity/v1/identity';
export * as oauth from './gen/sandbox/oauth/v1/oauth';
export * as data from './gen/sandbox/data/v1/data';
export * as playground from './gen/sandbox/playground/v1/playground';
export * as transport from './gen/sandbox/transport/v1/call_stream';
export * as dataApi from './data-api';
export * as playgroundApi from './playground-api';
export * as callers from './callers';
export * as challenges from './challenges';
export * as accountRules from './account-rules';
