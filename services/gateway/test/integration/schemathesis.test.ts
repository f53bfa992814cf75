import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp, registerUser, startSystem, type RunningSystem } from '@sandbox/testing';

jest.setTimeout(8 * 60_000);

/*
 * Schemathesis (PyPI, pinned in scripts/lib/provision.sh) generates requests
 * from the OpenAPI document the gateway serves and checks every answer
 * against it: no server error, every status, content type and body as
 * documented. It authenticates per security scheme with an app created for
 * the run. Anything it finds is fixed in the code (fuzz-findings.test.ts
 * keeps each finding), never excluded, with two settings the spec itself
 * requires:
 * - /playground/response answers any status it is asked for, 5xx included
 *   (spec: HTTP practice), so not_a_server_error is off for it alone;
 * - /playground/timeout and /playground/response wait as long as asked (up to
 *   60 s); the run asks for short waits so it stays within minutes.
 * Portal calls that would end the run's own session (logout, reset) run last
 * in the stateful phase or not at all: their answers are checked by the
 * portal's tests and by the contract check every test runs.
 */
const ROOT = join(__dirname, '..', '..', '..', '..');
const ST = join(ROOT, '.tools', 'schemathesis', 'bin', 'st');
const CHECKS = ['not_a_server_error', 'status_code_conformance', 'content_type_conformance', 'response_schema_conformance'];
/** Test cases per operation: the whole run stays well under 5 minutes on this project's 2-core machines. */
const MAX_EXAMPLES = 25;

function run(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ST, args, { cwd, env: { PATH: process.env.PATH, HOME: cwd, NO_COLOR: '1', SCHEMATHESIS_TELEMETRY: 'false' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('Schemathesis against the running sandbox', () => {
  let system: RunningSystem;
  let dir: string;
  beforeAll(async () => {
    if (!existsSync(ST)) throw new Error(`no Schemathesis at ${ST}: run \`bash -c 'source scripts/lib/provision.sh; ensure_schemathesis'\` (npm test does it)`);
    system = await startSystem();
    dir = mkdtempSync(join(tmpdir(), 'schemathesis-'));
  });
  afterAll(async () => {
    await system?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('when it fuzzes every operation from the document, then no check fails', async () => {
    const session = await registerUser(system.baseUrl);
    const app = await createApp(system.baseUrl, session);
    const quoted = (value: string) => JSON.stringify(value);
    writeFileSync(
      join(dir, 'schemathesis.toml'),
      [
        `request-timeout = 20`,
        // The checks in the file, not on the command line, so one operation can turn one off.
        `[checks]`,
        `enabled = false`,
        ...CHECKS.map((check) => `${check}.enabled = true`),
        `[auth.openapi.api_key_header]`,
        `api_key = ${quoted(app.apiKey)}`,
        `[auth.openapi.api_key_query]`,
        `api_key = ${quoted(app.apiKey)}`,
        `[auth.openapi.bearer]`,
        `bearer = ${quoted(app.bearerToken)}`,
        `[auth.openapi.portal_session]`,
        `bearer = ${quoted(session)}`,
        `[auth.openapi.basic]`,
        `username = ${quoted(app.appId)}`,
        `password = ${quoted(app.appSecret)}`,
        // The spec: this endpoint answers the status it is asked for, 5xx included.
        `[[operations]]`,
        `include-path = "/playground/response"`,
        `checks.not_a_server_error.enabled = false`,
        `parameters = { "query.delay" = 0 }`,
        `[[operations]]`,
        `include-path = "/playground/timeout"`,
        `parameters = { "query.delay" = 0 }`,
        '',
      ].join('\n'),
    );
    const { code, output } = await run(
      [
        'run',
        `${system.baseUrl}/openapi.json`,
        '--max-examples',
        String(MAX_EXAMPLES),
        // One worker: with several threads, Hypothesis's lambda descriptions race inside CPython 3.11's ast
        // module ("AST constructor recursion depth mismatch"): an error in the tool, seen under load.
        '--workers',
        '1',
        '--seed',
        '20261123',

        '--no-shrink',
        '--exclude-path',
        '/api/auth/logout',
        '--exclude-path',
        '/api/me/reset',
        '--report',
        'junit',
        '--report-junit-path',
        join(dir, 'junit.xml'),
      ],
      dir,
    );
    const summary = output.slice(output.lastIndexOf('SUMMARY'));
    // The summary goes to the test log, for the closing note; a failure shows what failed, with a curl to reproduce it.
    console.log(`Schemathesis ${summary.slice(0, 2000)}`);
    const failed = output.indexOf('= FAILURES =') >= 0 ? output.slice(output.indexOf('= FAILURES ='), output.lastIndexOf('SUMMARY')) : '';
    const errored = output.indexOf('= ERRORS =') >= 0 ? output.slice(output.indexOf('= ERRORS ='), output.indexOf('= ERRORS =') + 3000) : '';
    if (failed || errored) console.log(`${failed.slice(0, 12_000)}\n${errored}`);
    expect({ code, failures: /\d+ failures?/.exec(summary)?.[0] ?? 'none', errors: /\d+ errors?/.exec(summary)?.[0] ?? 'none' }).toEqual({
      code: 0,
      failures: 'none',
      errors: 'none',
    });
    expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testsuite /);
  });
});
