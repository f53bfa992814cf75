import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import { peerIdentity } from '@sandbox/runtime';
import { createCertificateAuthority, type CertificateAuthority } from '../../../launcher/src/certificates';

// peerIdentity remembers what it read by the certificate's fingerprint, so
// the authorization check of every call does not parse the SAN list again.
// These tests hold it to reading exactly what an unremembered read would:
// certificates are the objects Node makes for a TLS peer (toLegacyObject is
// what getPeerCertificate returns), each read more than once, interleaved.

let ca: CertificateAuthority;
/** The object grpc-js hands the authorization check for a peer presenting this certificate. */
const asPeer = (pem: string): PeerCertificate => new X509Certificate(pem).toLegacyObject();
const issued = async (name: string, uri?: string) => asPeer((await ca.issue(name, uri ? { uri } : undefined)).cert);

beforeAll(async () => {
  ca = await createCertificateAuthority(1);
});

describe('peerIdentity', () => {
  it('when two peers present different certificates, then each is read as itself, however often and in whatever order', async () => {
    const gatewayPem = (await ca.issue('gateway')).cert;
    const cliPem = (await ca.issue('cli')).cert;
    // A call stream's calls share one object; plain unary calls get a new object for the same certificate every call.
    const gateway = asPeer(gatewayPem);
    const cli = asPeer(cliPem);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(peerIdentity(gateway), peerIdentity(cli), peerIdentity(asPeer(gatewayPem)), peerIdentity(asPeer(cliPem)));
    expect(answers).toEqual(Array.from({ length: 5 }, () => ['gateway', 'cli', 'gateway', 'cli']).flat());
  });

  it('when a certificate names another trust domain, then it proves no identity the first time and every time after, and the sandbox one of the same name still does', async () => {
    const stranger = await issued('gateway', 'spiffe://elsewhere/gateway');
    const gateway = await issued('gateway');
    expect([peerIdentity(stranger), peerIdentity(stranger), peerIdentity(gateway), peerIdentity(stranger)]).toEqual([
      undefined,
      undefined,
      'gateway',
      undefined,
    ]);
  });

  it('when two certificates of one identity differ (a rotation), then both are read as it', async () => {
    const before = await issued('data');
    const after = await issued('data');
    expect(before.fingerprint256).not.toBe(after.fingerprint256);
    expect([peerIdentity(before), peerIdentity(after), peerIdentity(before)]).toEqual(['data', 'data', 'data']);
  });

  it('when there is no certificate (no TLS, or an empty one), then no identity', () => {
    expect(peerIdentity(undefined)).toBeUndefined();
    expect(peerIdentity(null)).toBeUndefined();
    expect(peerIdentity({} as PeerCertificate)).toBeUndefined();
  });

  it('when an object carries no fingerprint (not made by Node), then it is read afresh every time, never remembered', () => {
    const cert = { subjectaltname: 'URI:spiffe://training-sandbox/gateway' } as PeerCertificate;
    expect(peerIdentity(cert)).toBe('gateway');
    cert.subjectaltname = 'URI:spiffe://training-sandbox/cli';
    expect(peerIdentity(cert)).toBe('cli');
  });

  it('when a certificate has no URI SAN (helm makes such), then its common name is the identity', () => {
    const cert = { fingerprint256: 'AA:CN-ONLY', subject: { CN: 'oauth' }, subjectaltname: 'DNS:oauth' } as unknown as PeerCertificate;
    expect([peerIdentity(cert), peerIdentity(cert)]).toEqual(['oauth', 'oauth']);
  });

  it('when more certificates are read than it remembers, then every one is still read as itself', () => {
    const many = Array.from(
      { length: 600 },
      (_, i) => ({ fingerprint256: `FP:${i}`, subjectaltname: `URI:spiffe://training-sandbox/s${i}` }) as unknown as PeerCertificate,
    );
    expect(many.map((cert) => peerIdentity(cert))).toEqual(many.map((_, i) => `s${i}`));
    expect(many.map((cert) => peerIdentity(cert))).toEqual(many.map((_, i) => `s${i}`));
  });
});
