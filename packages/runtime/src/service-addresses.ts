import { env } from './config';

/**
 * Default ports of the four gRPC services. Every process reads the same
 * variables, so one environment describes the whole system and a second copy
 * can run beside the first by changing these.
 */
export const DEFAULT_PORTS = { identity: 50051, oauth: 50052, data: 50053, playground: 50054 } as const;
export type ServiceName = keyof typeof DEFAULT_PORTS;
export const SERVICE_NAMES = Object.keys(DEFAULT_PORTS) as ServiceName[];

/** `<NAME>_GRPC_PORT`: where a service listens. */
export const grpcPortVariable = (service: ServiceName) => `${service.toUpperCase()}_GRPC_PORT`;
/** `<NAME>_GRPC_ADDR`: where its callers reach it; defaults to loopback and its port. */
export const grpcAddressVariable = (service: ServiceName) => `${service.toUpperCase()}_GRPC_ADDR`;

/** The schema fields a caller of `service` reads, to spread into its config schema (with GRPC_TRANSPORT, how it calls). */
export function peerVariables<S extends ServiceName>(service: S) {
  return {
    GRPC_TRANSPORT: env.grpcTransport(),
    [grpcAddressVariable(service)]: env.optionalAddress(),
    [grpcPortVariable(service)]: env.port(DEFAULT_PORTS[service]),
  };
}

/** A peer's address from parsed variables: the explicit address, else loopback and its port. */
export function peerAddress(vars: Record<string, unknown>, service: ServiceName): string {
  const explicit = vars[grpcAddressVariable(service)];
  return typeof explicit === 'string' && explicit !== '' ? explicit : `127.0.0.1:${vars[grpcPortVariable(service)]}`;
}

/** Every service's address, for callers of them all (the gateway, the launcher). */
export function peerAddresses(vars: Record<string, unknown>): Record<ServiceName, string> {
  return Object.fromEntries(SERVICE_NAMES.map((name) => [name, peerAddress(vars, name)])) as Record<ServiceName, string>;
}

/** The schema fields of every service's address, to spread into a config schema. */
export function allPeerVariables() {
  return { ...peerVariables('identity'), ...peerVariables('oauth'), ...peerVariables('data'), ...peerVariables('playground') };
}
