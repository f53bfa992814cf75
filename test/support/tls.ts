import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChannelCredentials, ChannelOptions, Client, ServiceDefinition } from '@grpc/grpc-js';
import { callers } from '@sandbox/contracts';
import { promiseClient, type GrpcTls, type PromiseClient, type PromiseClientOptions } from '@sandbox/runtime';
import { createCertificateAuthority, writeTlsDirectory, type CertificateAuthority } from '../../packages/launcher/src/certificates';

/*
 * Mutual TLS for tests that start a service in-process or call one directly:
 * one CA per test process, and per identity a directory holding that
 * identity's certificate (made on first use). A test calls a service as the
 * identity the callers table expects (the gateway, oauth, ...), or as a
 * stranger to see it refused.
 */
let root: string | undefined;
let authority: Promise<CertificateAuthority> | undefined;
const made = new Map<string, Promise<string>>();

/** The CA every directory here trusts (a test may issue odd certificates with it). */
export function testCertificateAuthority(): Promise<CertificateAuthority> {
  if (!root) {
    root = mkdtempSync(join(tmpdir(), 'test-tls-'));
    const dir = root;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return (authority ??= createCertificateAuthority(1));
}

/** GRPC_TLS_DIR of a process with identity `name` (spiffe://training-sandbox/<name>). */
export function tlsDirectory(name: string): Promise<string> {
  let dir = made.get(name);
  if (!dir) {
    dir = testCertificateAuthority().then(async (ca) => {
      const path = join(root!, name);
      writeTlsDirectory(path, ca.cert, await ca.issue(name));
      return path;
    });
    made.set(name, dir);
  }
  return dir;
}

/** What promiseClient takes to call as `name`. */
export async function tlsAs(name: string): Promise<{ tls: GrpcTls }> {
  return { tls: { mode: 'mtls', dir: await tlsDirectory(name), refreshMs: 60_000 } };
}

/** The environment a service started in-process as `name` needs. */
export async function tlsEnv(name: string): Promise<{ GRPC_TLS_DIR: string }> {
  return { GRPC_TLS_DIR: await tlsDirectory(name) };
}

/**
 * A client of a sandbox service that calls each RPC as a caller the callers
 * table allows for it (the first it names: the gateway for most, oauth for
 * an app's signing key), so a test can use one client for every RPC while the
 * service checks every call as it does in production.
 */
export async function clientAsAllowedCallers<C extends Client>(
  Ctor: new (address: string, creds: ChannelCredentials, options?: ChannelOptions) => C,
  definition: ServiceDefinition,
  address: string,
  peer: string,
  deadlineMs: number,
  options: PromiseClientOptions = {},
): Promise<PromiseClient<C>> {
  const byCaller = new Map<string, PromiseClient<C>>();
  const callerOf = new Map<string, string>();
  for (const [name, method] of Object.entries(definition)) {
    const caller = callers.CALLERS_BY_PATH.get(method.path)?.[0] ?? 'gateway';
    callerOf.set(name, caller);
    if (!byCaller.has(caller)) byCaller.set(caller, promiseClient(Ctor, definition, address, peer, deadlineMs, await tlsAs(caller), options));
  }
  const first = byCaller.values().next().value as PromiseClient<C>;
  return new Proxy(first, {
    get(target, property) {
      if (property === 'close') return () => byCaller.forEach((client) => client.close());
      if (property === 'clientStream')
        return (name: string, ...rest: unknown[]) =>
          (byCaller.get(callerOf.get(name)!)! as unknown as { clientStream: (...a: unknown[]) => unknown }).clientStream(name, ...rest);
      const caller = typeof property === 'string' ? callerOf.get(property) : undefined;
      return caller ? (byCaller.get(caller)! as Record<string | symbol, unknown>)[property] : (target as Record<string | symbol, unknown>)[property];
    },
  });
}
