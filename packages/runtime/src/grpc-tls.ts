import { credentials, experimental, ServerCredentials, type ChannelCredentials, type ChannelOptions } from '@grpc/grpc-js';
import type { PeerCertificate } from 'node:tls';
import { join } from 'node:path';

/**
 * Mutual TLS between the sandbox's processes (docs/security.md, "Between
 * services"). Every process has a certificate whose identity is the URI SAN
 * spiffe://training-sandbox/<name> (or, for certificates made by tools that
 * cannot write URI SANs, such as helm's genSignedCert, the common name), and
 * trusts one CA. A server refuses a connection without a certificate from that
 * CA; a client refuses a server whose certificate names another service than
 * the one it meant to call. Who may call which RPC is the callers table's
 * business (packages/contracts callers.ts), checked per call.
 */
export const SANDBOX_TRUST_DOMAIN = 'training-sandbox';

/** A process's TLS directory: the layout of a Kubernetes TLS Secret (and of cert-manager's). */
export const TLS_FILES = { ca: 'ca.crt', cert: 'tls.crt', key: 'tls.key' } as const;

/**
 * GRPC_TLS and GRPC_TLS_DIR, validated by each process's config (config.ts).
 * `mode` is how this process calls the others, and what its server takes;
 * during a migration to mutual TLS (or back) its server takes the other
 * protocol as well, on the same port: `acceptTls` (GRPC_TLS=accept-tls, the
 * clients still call in plaintext) or `acceptPlaintext` (GRPC_TLS=send-tls,
 * the clients call with mutual TLS).
 */
export type GrpcTls =
  { mode: 'mtls'; dir: string; refreshMs: number; acceptPlaintext?: true } | { mode: 'off'; acceptTls?: { dir: string; refreshMs: number } };

/**
 * GRPC_TLS's values, in the order a release without mutual TLS takes them
 * to it, one rolling upgrade each (docs/security.md, "Between services"):
 * every pair of an old and a new process in each roll can talk.
 */
export const GRPC_TLS_SETTINGS = ['off', 'accept-tls', 'send-tls', 'on'] as const;
export type GrpcTlsSetting = (typeof GRPC_TLS_SETTINGS)[number];

/** The GRPC_TLS value a GrpcTls came from: for logs. */
export function grpcTlsSetting(tls: GrpcTls): GrpcTlsSetting {
  if (tls.mode === 'off') return tls.acceptTls ? 'accept-tls' : 'off';
  return tls.acceptPlaintext ? 'send-tls' : 'on';
}

/** Both protocols on the server's port: the two migration settings. */
export const takesBothProtocols = (tls: GrpcTls): boolean => (tls.mode === 'off' ? tls.acceptTls !== undefined : tls.acceptPlaintext === true);

/**
 * One file watcher per directory for the whole process: the server and every
 * channel share it, so a rotation is one read, seen by all of them. grpc-js
 * re-reads the files every refreshMs and builds new TLS contexts from them;
 * connections already open keep theirs, new ones take the new certificate.
 */
const providers = new Map<string, experimental.FileWatcherCertificateProvider>();
function provider(tls: Extract<GrpcTls, { mode: 'mtls' }>): experimental.FileWatcherCertificateProvider {
  const key = `${tls.dir}\n${tls.refreshMs}`;
  let found = providers.get(key);
  if (!found) {
    found = new experimental.FileWatcherCertificateProvider({
      caCertificateFile: join(tls.dir, TLS_FILES.ca),
      certificateFile: join(tls.dir, TLS_FILES.cert),
      privateKeyFile: join(tls.dir, TLS_FILES.key),
      refreshIntervalMs: tls.refreshMs,
    });
    providers.set(key, found);
  }
  return found;
}

export function grpcServerCredentials(tls: GrpcTls): ServerCredentials {
  if (tls.mode === 'off') return ServerCredentials.createInsecure();
  const watcher = provider(tls);
  return experimental.createCertificateProviderServerCredentials(watcher, watcher, true);
}

/**
 * The server's two credentials in a migration setting (takesBothProtocols):
 * mutual TLS, which requires a client certificate as under GRPC_TLS=on, and
 * plaintext. The port tells them apart by each connection's first byte (grpc-server.ts).
 */
export function grpcServerMigrationCredentials(tls: GrpcTls): { mtls: ServerCredentials; plaintext: ServerCredentials } {
  const files = tls.mode === 'off' ? tls.acceptTls : tls;
  if (!files || !takesBothProtocols(tls)) throw new Error(`GRPC_TLS=${grpcTlsSetting(tls)} takes one protocol, not both`);
  return { mtls: grpcServerCredentials({ mode: 'mtls', dir: files.dir, refreshMs: files.refreshMs }), plaintext: ServerCredentials.createInsecure() };
}

/**
 * Credentials and channel options for calling `peer` (a service name). The
 * server's certificate must carry that service's identity; its host name is
 * not checked (callers dial loopback ports, pod IPs or headless Services, and
 * the identity is what matters).
 */
export function grpcChannelSecurity(tls: GrpcTls, peer: string): { credentials: ChannelCredentials; options: ChannelOptions } {
  if (tls.mode === 'off') return { credentials: credentials.createInsecure(), options: {} };
  const watcher = provider(tls);
  const verify = {
    checkServerIdentity: (_host: string, cert: PeerCertificate): Error | undefined => {
      const found = peerIdentity(cert);
      return found === peer ? undefined : new Error(`the server's certificate is ${found ?? 'of no sandbox service'}, not ${peer}`);
    },
  };
  return {
    credentials: experimental.createCertificateProviderChannelCredentials(watcher, watcher, verify),
    // The name sent in SNI and checked by checkServerIdentity's caller: the service's, not the address's.
    options: { 'grpc.ssl_target_name_override': peer },
  };
}

const SPIFFE_PREFIX = `spiffe://${SANDBOX_TRUST_DOMAIN}/`;

/**
 * Identities already read, by the certificate's SHA-256 fingerprint (which
 * Node computes from the certificate's bytes when it makes the object, so
 * the key is the certificate itself: two connections share an entry only
 * when they presented the very same certificate, and then the same identity
 * is right for both). The authorization check reads the caller of every call
 * (grpc-service.ts); without this each call split and searched the SAN list
 * again, a measured tenth or so of what mutual TLS added to the echo route
 * (docs/security.md, "What it costs"). Bounded: emptied when full (a
 * sandbox has a handful of certificates, a few more across rotations).
 */
const identities = new Map<string, string | undefined>();
const MAX_IDENTITIES = 256;

/** The sandbox identity a certificate proves: its spiffe://training-sandbox/<name> URI SAN, else its CN; undefined for none. */
export function peerIdentity(cert: PeerCertificate | null | undefined): string | undefined {
  if (!cert) return undefined;
  // Certificates Node made always carry it; an object made some other way is read afresh every time.
  const fingerprint: unknown = cert.fingerprint256;
  if (typeof fingerprint !== 'string' || fingerprint === '') return readIdentity(cert);
  const known = identities.get(fingerprint);
  if (known !== undefined || identities.has(fingerprint)) return known;
  const found = readIdentity(cert);
  if (identities.size >= MAX_IDENTITIES) identities.clear();
  identities.set(fingerprint, found);
  return found;
}

function readIdentity(cert: PeerCertificate): string | undefined {
  if (Object.keys(cert).length === 0) return undefined;
  const uris = (cert.subjectaltname ?? '')
    .split(', ')
    .filter((entry) => entry.startsWith('URI:'))
    .map((entry) => entry.slice(4));
  if (uris.length > 0) {
    const ours = uris.find((uri) => uri.startsWith(SPIFFE_PREFIX));
    return ours ? ours.slice(SPIFFE_PREFIX.length) : undefined;
  }
  const cn = cert.subject?.CN;
  return typeof cn === 'string' && cn !== '' ? cn : undefined;
}

/** What grpc-js's getAuthContext() answers (its type is not exported). */
interface AuthContext {
  transportSecurityType?: string;
  sslPeerCertificate?: PeerCertificate;
}

/** How a call reached the server: over TLS or not, and the sandbox identity of the certificate it came with. */
export interface CallSecurity {
  tls: boolean;
  caller: string | undefined;
}

/** Per HTTP/2 connection (its session object): a connection's certificate is the one its handshake checked, for its whole life. */
const bySession = new WeakMap<object, CallSecurity>();

/**
 * The authorization check's view of a call. grpc-js answers getAuthContext()
 * of a plain unary call by building a new object from the peer's X509 every
 * time (getPeerCertificate: its fingerprints, subject, key...): measured at a
 * fifth of a backend's CPU on the echo route with GRPC_TRANSPORT=unary. So
 * the answer is kept per connection, reached through grpc-js's call object
 * (`call.call.stream.session`, not public API: if a grpc-js release moves it,
 * every call simply asks getAuthContext() again). Keyed by the session
 * object itself, one connection's answer is never another's. A call stream's
 * calls (call-stream-server.ts) have no such path: their auth context is the
 * stream's, read once, and peerIdentity remembers its identity.
 */
export function callSecurity(call: { getAuthContext(): AuthContext }): CallSecurity {
  const session = (call as { call?: { stream?: { session?: unknown } } }).call?.stream?.session;
  if (typeof session !== 'object' || session === null) return readCallSecurity(call);
  let found = bySession.get(session);
  if (!found) {
    found = readCallSecurity(call);
    bySession.set(session, found);
  }
  return found;
}

function readCallSecurity(call: { getAuthContext(): AuthContext }): CallSecurity {
  const auth = call.getAuthContext();
  return { tls: auth.transportSecurityType === 'ssl', caller: peerIdentity(auth.sslPeerCertificate) };
}
