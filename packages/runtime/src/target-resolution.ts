import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** A host's addresses: every A/AAAA record, as a headless Service has one per ready pod. */
export type Resolve = (host: string) => Promise<string[]>;

const dnsResolve: Resolve = async (host) => (await lookup(host, { all: true })).map(({ address }) => address);

/**
 * The replicas a gRPC target names, in the target syntax grpc-js takes
 * (https://github.com/grpc/grpc/blob/master/doc/naming.md): `ipv4:`/`ipv6:`
 * address lists are fixed (several local replicas), `host:port` or
 * `dns:///host:port` is looked up (a headless Service) and again whenever the
 * caller asks, an IP literal is itself, and anything else is passed through
 * as one address for grpc-js to resolve.
 */
export function resolveTarget(target: string, resolve: Resolve = dnsResolve): { addresses: () => Promise<string[]> | string[]; dynamic: boolean } {
  const list = /^(ipv4|ipv6):(.*)$/.exec(target);
  if (list) {
    const addresses = list[2]
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    return { addresses: () => addresses, dynamic: false };
  }
  const dns = /^(?:dns:(?:\/\/[^/]*\/)?)?(.+)$/.exec(target);
  const hostPort = dns && !/^(unix|unix-abstract):/.test(target) ? splitHostPort(dns[1]) : undefined;
  if (!hostPort) return { addresses: () => [target], dynamic: false };
  const { host, port } = hostPort;
  if (isIP(host)) return { addresses: () => [joinHostPort(host, port)], dynamic: false };
  return { addresses: async () => (await resolve(host)).map((address) => joinHostPort(address, port)), dynamic: true };
}

function splitHostPort(value: string): { host: string; port: string } | undefined {
  const match = /^\[([^\]]+)\]:(\d+)$/.exec(value) ?? /^([^:]+):(\d+)$/.exec(value);
  return match ? { host: match[1], port: match[2] } : undefined;
}

const joinHostPort = (host: string, port: string) => (isIP(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`);
