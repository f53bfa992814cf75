import { join } from 'node:path';
import { createCertificateAuthority, writeTlsDirectory } from './certificates';

/**
 * Run by tls.ts as a process of its own, which ends when the files are
 * written: the X.509 library it loads (@peculiar/x509 and its ASN.1
 * schemas) then leaves with it rather than staying in the launcher's memory
 * for the whole run (docs/decisions.md, "Memory at rest").
 *
 *   node write-run-certificates.js ROOT NAME...
 */
async function main(root: string, names: string[]): Promise<void> {
  const ca = await createCertificateAuthority(30);
  for (const name of names) writeTlsDirectory(join(root, name), ca.cert, await ca.issue(name));
}

const [root, ...names] = process.argv.slice(2);
main(root, names).catch((error: unknown) => {
  process.stderr.write(`could not write the run's certificates: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
