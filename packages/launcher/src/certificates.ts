// @peculiar/x509 resolves its ASN.1 classes through tsyringe, which needs the
// Reflect metadata API; loaded here only, never by a service.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { existsSync, mkdirSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { SANDBOX_TRUST_DOMAIN, TLS_FILES } from '@sandbox/runtime';

/**
 * The sandbox's own small certificate authority for mutual TLS between its
 * processes (docs/security.md, "Between services"): a CA, and per process a
 * certificate whose identity is the URI SAN spiffe://training-sandbox/<name>,
 * which is what each service's table of callers names (packages/contracts
 * callers.ts). ECDSA P-256: a key and a certificate take milliseconds, so
 * `npm start` makes a new set every run. Used by the launcher, the compose
 * keys service (deploy/docker/generate-keys.cjs) and the tests.
 */
x509.cryptoProvider.set(webcrypto as never);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 86_400_000;
/** Clocks of two machines may differ a little: a certificate is valid from a few minutes ago. */
const BACKDATE_MS = 5 * 60_000;

export interface PemPair {
  cert: string;
  key: string;
}

export interface CertificateAuthority extends PemPair {
  issue(name: string, options?: IssueOptions): Promise<PemPair>;
}

export interface IssueOptions {
  /** Host names and addresses a client may dial the process by (loopback is always in). */
  hosts?: string[];
  validDays?: number;
  /** Identity to put in the certificate instead of the sandbox's own trust domain (tests: a stranger's). */
  uri?: string;
}

const pem = (der: ArrayBuffer, label: string) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der)
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END ${label}-----\n`;

const serial = () =>
  Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
    .toString('hex')
    .replace(/^[89a-f]/, '1');

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/** A new CA, valid for `validDays` (default a year). */
export async function createCertificateAuthority(validDays = 365): Promise<CertificateAuthority> {
  const keys = await keyPair();
  const now = Date.now();
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Training Sandbox internal CA',
    notBefore: new Date(now - BACKDATE_MS),
    notAfter: new Date(now + validDays * DAY_MS),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const caKey = pem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
  return {
    cert: ca.toString('pem') + '\n',
    key: caKey,
    async issue(name, { hosts = [], validDays: days = 90, uri } = {}) {
      const leafKeys = await keyPair();
      const issued = Date.now();
      const names = [...new Set([name, 'localhost', ...hosts])];
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: serial(),
        subject: `CN=${name}`,
        issuer: ca.subject,
        notBefore: new Date(issued - BACKDATE_MS),
        notAfter: new Date(issued + days * DAY_MS),
        signingKey: keys.privateKey,
        publicKey: leafKeys.publicKey,
        signingAlgorithm: ALGORITHM,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
          new x509.SubjectAlternativeNameExtension([
            { type: 'url', value: uri ?? `spiffe://${SANDBOX_TRUST_DOMAIN}/${name}` },
            ...names.filter((h) => !/^[\d.]+$|:/.test(h)).map((value) => ({ type: 'dns' as const, value })),
            ...['127.0.0.1', '::1', ...names.filter((h) => /^[\d.]+$|:/.test(h))].map((value) => ({ type: 'ip' as const, value })),
          ]),
          await x509.AuthorityKeyIdentifierExtension.create(keys.publicKey),
        ],
      });
      return { cert: leaf.toString('pem') + '\n', key: pem(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey), 'PRIVATE KEY') };
    },
  };
}

/**
 * Writes one process's TLS directory (ca.crt, tls.crt, tls.key: the layout of
 * a Kubernetes TLS Secret and of cert-manager's) the way the kubelet updates a
 * mounted Secret: the files go into a new hidden directory, then one rename
 * swaps the `..data` link to it, so a process re-reading them never sees a
 * new certificate beside an old key.
 */
export function writeTlsDirectory(dir: string, caCert: string, identity: PemPair): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const version = `..${Date.now()}_${serial().slice(0, 8)}`;
  mkdirSync(join(dir, version), { mode: 0o700 });
  const files: [string, string][] = [
    [TLS_FILES.ca, caCert],
    [TLS_FILES.cert, identity.cert],
    [TLS_FILES.key, identity.key],
  ];
  for (const [file, text] of files) writeFileSync(join(dir, version, file), text, { mode: 0o600 });
  const previous = existsSync(join(dir, '..data')) ? readlinkSync(join(dir, '..data')) : undefined;
  symlinkSync(version, join(dir, '..data_tmp'));
  renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
  for (const [file] of files) if (!existsSync(join(dir, file))) symlinkSync(join('..data', file), join(dir, file));
  if (previous) rmSync(join(dir, previous), { recursive: true, force: true });
}
