import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { compileCache } from './node-env';
import { requireStoreUrls } from './stores';

const ROOT = join(__dirname, '..', '..');

/** The tools the scenarios start themselves, as the test command provisioned them (scripts/lib). */
const TOOL_VARIABLES = ['REDIS_SERVER_BIN', 'FERRETDB_BIN', 'TOXIPROXY_BIN'];

export interface BenchRun {
  code: number | null;
  output: string;
  /** The JSON report the script printed last. */
  report: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * Runs one of bench/'s scripts (the soak, the chaos suite) against the
 * integration run's stores, as `npm run soak` would, and reads the report it
 * prints. The output's tail goes to the test's log, so a failure in CI shows
 * the figures.
 */
export async function runBenchScript(script: string, args: string[]): Promise<BenchRun> {
  const { mongoUrl, redisUrl } = requireStoreUrls();
  const tools = Object.fromEntries(TOOL_VARIABLES.filter((name) => process.env[name]).map((name) => [name, process.env[name]]));
  const child = spawn(process.execPath, [join(ROOT, script), ...args], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...compileCache(), MONGO_URL: mongoUrl, REDIS_URL: redisUrl, ...tools },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  console.log(output.slice(-4000));
  const start = output.indexOf('\n{');
  const report = JSON.parse(output.slice(start < 0 ? output.indexOf('{') : start + 1, output.lastIndexOf('}') + 1));
  return { code, output, report };
}
