import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * The Python that has the third-party clients the interoperability tests
 * drive (requests, pinned): the virtual environment scripts/lib/provision.sh
 * makes, or PYTHON_CLIENT when set.
 */
export function pythonClient(): string {
  if (process.env.PYTHON_CLIENT) return process.env.PYTHON_CLIENT;
  const venv = join(ROOT, '.tools', 'python-clients', 'bin', 'python');
  if (existsSync(venv)) return venv;
  throw new Error('No Python client environment: run `bash scripts/test.sh` once (it provisions .tools/python-clients), or set PYTHON_CLIENT.');
}

/** Runs test/interop/<script> with the client Python; resolves with its stdout parsed as JSON. */
export function runPythonScript<T>(script: string, args: string[]): Promise<T> {
  return new Promise((resolve, reject) => {
    execFile(pythonClient(), [join(ROOT, 'test', 'interop', script), ...args], { timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${stderr.trim().split('\n').slice(-3).join(' | ') || error.message}`));
      else resolve(JSON.parse(stdout) as T);
    });
  });
}
