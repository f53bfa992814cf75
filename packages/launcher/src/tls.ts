import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { GrpcTls } from '@sandbox/runtime';

/** Every identity `npm start` runs under: the processes it starts, itself (its readiness checks), and the admin CLI (`npm run admin` beside it). */
export interface RunCertificates {
  /** The GRPC_TLS_DIR of one process name. */
  dirOf(name: string): string;
  /** The launcher's own, for its health checks. */
  launcher: GrpcTls;
  /** Removes the directory (keys included) when the launcher ends, unless it was given (GRPC_TLS_RUN_DIR). */
  remove(): void;
}

/**
 * A CA and a certificate per process, made for this run only in a private
 * temporary directory (0700, files 0600) and removed when the launcher ends
 * (or in GRPC_TLS_RUN_DIR, kept, so `npm run start:<name>` can join the run):
 * mutual TLS between the processes of `npm start` needs nothing from the
 * person running it. They are made by a short-lived process of their own
 * (write-run-certificates.ts), so the launcher holds no X.509 library.
 */
export async function makeRunCertificates(names: readonly string[], refreshMs: number, keepIn?: string): Promise<RunCertificates> {
  const root = keepIn ?? mkdtempSync(join(tmpdir(), 'sandbox-tls-'));
  // `cli`: identity knows the operators' CLI by its own certificate (never the gateway's), so `npm run admin` with the same GRPC_TLS_RUN_DIR finds it.
  await promisify(execFile)(process.execPath, [join(__dirname, 'write-run-certificates.js'), root, ...names, 'launcher', 'cli']);
  return {
    dirOf: (name) => join(root, name),
    launcher: { mode: 'mtls', dir: join(root, 'launcher'), refreshMs },
    remove: () => keepIn === undefined && rmSync(root, { recursive: true, force: true }),
  };
}
