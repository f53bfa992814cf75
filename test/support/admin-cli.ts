import { spawn } from 'node:child_process';
import { join } from 'node:path';

const CLI = join(__dirname, '..', '..', 'services', 'gateway', 'dist', 'admin', 'cli.js');

/** The admin CLI as an operator runs it in a pod: a child process of the built CLI with the gateway's environment. */
export function runAdminCli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
