import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiRequest, createApp, registerUser, startSystem, type CreatedApp, type RunningSystem } from '@sandbox/testing';

/*
 * Every curl walkthrough in the learner docs, run as a learner runs it (issue
 * #33): the fenced blocks are read from the markdown at test time, so an edit
 * to a doc is what gets tested, never a copy. Each block is pasted one command
 * at a time into bash with the real curl; the placeholders a learner fills in
 * (`app_...`, `eyJ...`, `CODE=...`) are filled from the portal's answers or
 * from the answer of an earlier command, exactly where the doc says to look,
 * and every command's status is checked against what the doc says it answers.
 * The system is the embedded default a learner gets from `npm start`.
 */

jest.setTimeout(120_000);

const ROOT = join(__dirname, '..', '..', '..', '..');
const DOCS = ['docs/oauth.md', 'docs/auth-playground.md', 'docs/http-practice.md'] as const;
/** The base URL the docs write; a learner with another port edits it, the test puts its own in. */
const DOC_BASE = /\bhttps?:\/\/(?:127\.0\.0\.1|localhost):8080\b/g;
/** The redirect URI the OAuth 2.0 walkthrough sends, which its set-up sentence must tell the learner to register. */
const REDIRECT = 'http://127.0.0.1:9/callback';

// ---------------------------------------------------------------------------
// Reading the docs: fenced blocks, and the commands a learner pastes from them.

interface Block {
  file: string;
  /** `docs/oauth.md#Walkthrough with curl` (with `[2]` for a second block under one heading). */
  id: string;
  /** The text between the heading and the block: the set-up a learner reads first. */
  prose: string;
  steps: Step[];
}

interface Step {
  /** Line in the markdown file where the command starts (1-based). */
  line: number;
  /** The command, continuation lines joined, the comment removed. */
  code: string;
  /** The comment on its line and the comment lines right after it: where the docs show what comes back. */
  comments: string[];
  curl: boolean;
}

/** Every fenced block that runs curl, in any language, so none is left out because of how its fence is labelled. */
function curlBlocks(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks: Block[] = [];
  const perHeading = new Map<string, number>();
  let heading = '';
  let prose: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^(\s*)(`{3,}|~{3,})\s*(\S*)/.exec(lines[i]);
    if (!fence) {
      const title = /^#{1,6}\s+(.*)$/.exec(lines[i]);
      if (title) {
        heading = title[1].trim();
        prose = [];
      } else prose.push(lines[i]);
      continue;
    }
    const start = i + 1;
    const body: string[] = [];
    for (i++; i < lines.length && !lines[i].trimStart().startsWith(fence[2]); i++) body.push(lines[i]);
    const code = body.map((l) => l.replace(/^\s*\$\s+/, '')); // a `console` block's prompt is not typed
    if (!code.some((l) => /^\s*(?:[A-Z_]+=\S*\s+)*curl\s/.test(l))) {
      prose.push(...body);
      continue;
    }
    const seen = (perHeading.get(heading) ?? 0) + 1;
    perHeading.set(heading, seen);
    blocks.push({ file, id: `${file}#${heading}${seen > 1 ? `[${seen}]` : ''}`, prose: prose.join('\n'), steps: commands(code, start + 1) });
    prose = [];
  }
  return blocks;
}

/** The commands of a block, one per logical line, each with the comments that describe its answer. */
function commands(lines: string[], firstLine: number): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = firstLine + i;
    let text = lines[i];
    while (text.endsWith('\\') && i + 1 < lines.length) text = `${text.slice(0, -1)} ${lines[++i].trim()}`;
    const { code, comment } = splitComment(text);
    if (!code.trim()) {
      if (comment && steps.length) steps[steps.length - 1].comments.push(comment);
      continue;
    }
    steps.push({ line, code: code.trim(), comments: comment ? [comment] : [], curl: /(?:^|[;&|(]\s*)curl\s/.test(code.trim()) });
  }
  return steps;
}

/** Splits `code  # comment` where bash would: a `#` starting a word outside quotes. */
function splitComment(line: string): { code: string; comment: string } {
  let quote = '';
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
    } else if (c === '\\') i++;
    else if (c === "'" || c === '"') quote = c;
    else if (c === '#' && (i === 0 || /\s/.test(line[i - 1]))) return { code: line.slice(0, i).trimEnd(), comment: line.slice(i + 1).trim() };
  }
  return { code: line, comment: '' };
}

// ---------------------------------------------------------------------------
// Running a command as a learner would: bash, the real curl, the variables set so far.

interface CurlCall {
  status: string;
  redirects: number;
  exit: number;
}

interface Ran {
  step: Step;
  /** What the learner sees. */
  stdout: string;
  stderr: string;
  exit: number;
  curls: CurlCall[];
}

/*
 * curl, wrapped so the test also learns each answer's final status, redirect
 * count and curl's exit code, on stderr, while stdout stays what the learner
 * sees: a `-w` the doc gives is kept in front of the wrapper's own (curl keeps
 * only the last `-w`), and `%{stderr}` moves the wrapper's part off stdout.
 */
const PRELUDE = [
  'curl() {',
  "  local __fmt='' __args=()",
  '  while (($#)); do',
  '    case $1 in',
  '      -w|--write-out) __fmt=$2; shift 2 ;;',
  '      *) __args+=("$1"); shift ;;',
  '    esac',
  '  done',
  '  command curl "${__args[@]}" --write-out "${__fmt}%{stderr}@@curl %{http_code} %{num_redirects}"',
  '  local __rc=$?',
  '  printf \' %s@@\\n\' "$__rc" >&2',
  '  return $__rc',
  '}',
].join('\n');

function bash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string; exit: number }> {
  return new Promise((resolve) => {
    execFile('bash', ['-c', script], { cwd, env, timeout: 60_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const exit = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ stdout: String(stdout), stderr: String(stderr), exit });
    });
  });
}

/** The names a block assigns (`ID=…`, `TOKEN=…; TOKEN_SECRET=…`): what the learner's shell remembers between commands. */
const assigned = (steps: Step[]) => [...new Set(steps.flatMap((s) => [...s.code.matchAll(/(?:^|[\s;])([A-Z][A-Z0-9_]*)=/g)].map((m) => m[1])))];

async function runStep(
  code: string,
  names: string[],
  vars: Record<string, string>,
  cwd: string,
): Promise<Omit<Ran, 'step'> & { vars: Record<string, string> }> {
  const stateFile = join(cwd, '.shell-state');
  const dump = `__rc=$?\nfor __n in ${names.join(' ')}; do printf '%s=%s\\0' "$__n" "\${!__n-}"; done > ${JSON.stringify(stateFile)}\nexit $__rc`;
  const result = await bash(`${PRELUDE}\n${code}\n${dump}`, cwd, { PATH: process.env.PATH, HOME: process.env.HOME, LANG: 'C.UTF-8', ...vars });
  const next = { ...vars };
  for (const entry of readFileSync(stateFile, 'utf8').split('\0').filter(Boolean)) {
    const at = entry.indexOf('=');
    if (entry.slice(at + 1) !== '') next[entry.slice(0, at)] = entry.slice(at + 1);
  }
  rmSync(stateFile);
  const curls = [...result.stderr.matchAll(/@@curl (\d{3}) (\d+) (\d+)@@/g)].map((m) => ({ status: m[1], redirects: Number(m[2]), exit: Number(m[3]) }));
  return { stdout: result.stdout, stderr: result.stderr.replace(/@@curl [^@]*@@\n?/g, ''), exit: result.exit, curls, vars: next };
}

// ---------------------------------------------------------------------------
// What each walkthrough needs: the values a learner fills in, and what each command must answer.

interface Context {
  app: CreatedApp;
  /** Every command run so far in this block, newest last. */
  ran: Ran[];
  cwd: string;
}

type Fill = (ctx: Context) => string;

interface Expectation {
  /** Which command (matched against its code); each must match exactly one. */
  step: RegExp;
  /** The final HTTP status, or '000' when curl gets no answer. */
  status: number | '000';
  /** curl's exit code (0 unless the doc says curl gives up). */
  exit?: number;
  /** Where the doc says so. */
  why: string;
  check?: (answer: Ran, ctx: Context) => void;
}

interface Plan {
  /** The values behind `NAME=prefix...` assignments, by name. */
  assignments: Record<string, Fill>;
  /** The values behind placeholders written inside a command (`refresh_token=rt_...`), by the placeholder. */
  inline?: Record<string, Fill>;
  /** What a command answers when its row below says nothing: 2xx, or the one status the doc states for all of them. */
  status: '2xx' | number;
  expect: Expectation[];
  /** What the walkthrough asks the learner to set up first (the test does it through the portal API). */
  setUp?: (block: Block, system: RunningSystem, session: string, app: CreatedApp) => Promise<void>;
}

/** A JSON answer shown earlier in the block (the newest that has `key`), as a learner scrolls up to copy from it. */
const fromAnswer =
  (key: string): Fill =>
  (ctx) => {
    for (const ran of [...ctx.ran].reverse()) {
      const json = parseJson(ran.stdout);
      if (typeof json?.[key] === 'string') return json[key] as string;
    }
    throw new Error(`no earlier answer in this walkthrough has "${key}" to copy`);
  };

/** The code from the redirect URL the authorize step printed. */
const codeFromRedirect: Fill = (ctx) => {
  for (const ran of [...ctx.ran].reverse()) {
    const code = /[?&]code=([^&\s]+)/.exec(ran.stdout)?.[1];
    if (code) return decodeURIComponent(code);
  }
  throw new Error('no earlier answer in this walkthrough printed a redirect URL with a code');
};

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
const json = (ran: Ran) => {
  const value = parseJson(ran.stdout);
  if (!value) throw new Error(`line ${ran.step.line}: the answer is not a JSON object: ${ran.stdout.slice(0, 300)}`);
  return value as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
};

const PLANS: Record<string, Plan> = {
  'docs/oauth.md#Walkthrough with curl': {
    assignments: {
      ID: (ctx) => ctx.app.appId,
      SECRET: (ctx) => ctx.app.appSecret,
      TOKEN: fromAnswer('access_token'),
      CODE: codeFromRedirect,
    },
    inline: { 'rt_...': fromAnswer('refresh_token') },
    status: '2xx',
    async setUp(block, system, session, app) {
      // "Set up once: an app with the redirect URI … registered": the one its authorize and token steps send.
      expect(block.prose).toContain(REDIRECT);
      const set = await apiRequest(system.baseUrl, 'PUT', `/api/apps/${app.id}/redirect-uris`, { token: session, body: { redirectUris: [REDIRECT] } });
      expect(set.status).toBe(200);
    },
    expect: [
      {
        step: /\/oauth\/authorize\?/,
        status: 302,
        why: 'the authorization endpoint approves at once and redirects with code, state and iss',
        check: (ran) => {
          const location = new URL(ran.stdout.trim());
          expect(`${location.origin}${location.pathname}`).toBe(REDIRECT);
          expect(location.searchParams.get('state')).toBe('xyz');
          expect(location.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
        },
      },
      {
        step: /grant_type=authorization_code/,
        status: 200,
        why: 'the code, its redirect URI and the PKCE verifier redeem it, with a refresh token',
        check: (ran) => expect(json(ran)).toMatchObject({ token_type: 'Bearer', scope: 'hr:read', refresh_token: expect.stringMatching(/^rt_/) }),
      },
      {
        step: /grant_type=refresh_token/,
        status: 200,
        why: 'a refresh rotates: a new access token and refresh token',
        check: (ran) => expect(json(ran)).toMatchObject({ access_token: expect.any(String), refresh_token: expect.stringMatching(/^rt_/) }),
      },
      {
        step: /\/oauth\/introspect/,
        status: 200,
        why: 'introspection needs no client authentication; a live token is active',
        check: (ran) => expect(json(ran)).toMatchObject({ active: true, token_type: 'Bearer' }),
      },
    ],
  },

  'docs/oauth.md#Try it with curl (PLAINTEXT)': {
    assignments: {
      APP_ID: (ctx) => ctx.app.appId,
      API_KEY: (ctx) => ctx.app.apiKey,
      TOKEN: fromAnswer('oauth_token'),
      TOKEN_SECRET: fromAnswer('oauth_token_secret'),
      VERIFIER: fromAnswer('oauth_verifier'),
      ACCESS: fromAnswer('oauth_token'),
      ACCESS_SECRET: fromAnswer('oauth_token_secret'),
    },
    status: '2xx',
    expect: [
      {
        step: /\/playground\/auth\/oauth1/,
        status: 200,
        why: 'the three-legs table: "then GET /playground/auth/oauth1 … 200, or 401 with the reason"',
        check: (ran, ctx) => expect(json(ran)).toMatchObject({ authenticated: true, app: { appId: ctx.app.appId } }),
      },
    ],
  },

  'docs/auth-playground.md#Try each style with curl': {
    assignments: {
      ID: (ctx) => ctx.app.appId,
      SECRET: (ctx) => ctx.app.appSecret,
      KEY: (ctx) => ctx.app.apiKey,
      BEARER: (ctx) => ctx.app.bearerToken,
    },
    // The JWT the learner copies from the issue answer above it (hs256, the first it shows).
    inline: { 'eyJ...': fromAnswer('hs256') },
    // "Each /playground/auth/* endpoint … answers 200 naming the app, the style and the scopes".
    status: 200,
    expect: [
      ...['basic', 'bearer', 'api-key', 'api-key-query', 'hmac', 'jwt'].map((style) => ({
        step: new RegExp(`/playground/auth/${style}(?:["?\\s]|$)`),
        status: 200,
        why: `"${style}" answers 200 naming the app`,
        check: (ran: Ran, ctx: Context) => expect(json(ran)).toMatchObject({ authenticated: true, app: { appId: ctx.app.appId } }),
      })),
      ...[/\/playground\/auth\/digest"?$/, /\/playground\/auth\/digest\?algorithm=MD5/].map((step) => ({
        step,
        status: 200,
        why: 'curl --digest answers the challenge; the answer names the app',
        check: (ran: Ran, ctx: Context) => expect(json(ran)).toMatchObject({ authenticated: true, app: { appId: ctx.app.appId } }),
      })),
    ],
  },

  'docs/http-practice.md#HTTP practice and resilience': {
    assignments: {},
    status: '2xx',
    expect: [
      {
        step: /-F doc=@photo\.jpg/,
        status: 200,
        why: '"compare the sha256 with sha256sum photo.jpg"',
        check: (ran, ctx) => {
          const sha256 = createHash('sha256')
            .update(readFileSync(join(ctx.cwd, 'photo.jpg')))
            .digest('hex');
          expect(json(ran).parts).toEqual([
            expect.objectContaining({ type: 'file', name: 'doc', filename: 'photo.jpg', sha256 }),
            expect.objectContaining({ type: 'field', name: 'note', value: 'hello' }),
          ]);
        },
      },
      { step: /\/playground\/response\?status=418/, status: 418, why: 'the response endpoint answers the status asked for' },
      { step: /--max-time 2 .*\/playground\/timeout\?delay=5000/, status: '000', exit: 28, why: '"curl gives up first" (exit 28: operation timed out)' },
      {
        step: /redirect\?n=3&status=307/,
        status: 200,
        why: '"POST kept": three 307 hops, then a 200 that saw the POST and its body',
        check: (ran) => {
          expect(ran.curls[0].redirects).toBe(3);
          expect(json(ran)).toMatchObject({ redirects: 3, methodChanged: false, arrived: { method: 'POST', bodySize: 7 } });
        },
      },
      {
        step: /redirect\?n=3&status=302/,
        status: 200,
        why: '"POST becomes GET": curl -L turns the POST into a GET at the first 302',
        check: (ran) => {
          expect(ran.curls[0].redirects).toBe(3);
          expect(json(ran)).toMatchObject({ redirects: 3, methodChanged: true, arrived: { method: 'GET' } });
        },
      },
    ],
  },
};

/** Blocks that cannot be run from a shell (e.g. they need a browser), each with the reason. None today. */
const SKIPPED: Record<string, string> = {};

// ---------------------------------------------------------------------------

const PLACEHOLDER_ASSIGNMENT = /(^|[\s;])([A-Z][A-Z0-9_]*)=(\S*?(?:\.\.\.|…))(?=$|[\s;])/g;
const INLINE_PLACEHOLDER = /[A-Za-z0-9_]*(?:\.\.\.|…)/g;

/** The command as the learner has it after filling in the placeholders and their own base URL. */
function filledIn(step: Step, plan: Plan, ctx: Context, baseUrl: string): string {
  const fill = (placeholder: string, value: string, what: string) => {
    const prefix = placeholder.replace(/(?:\.\.\.|…)$/, '');
    if (!value.startsWith(prefix)) throw new Error(`line ${step.line}: the doc hints ${what} looks like "${placeholder}", but the real value is "${value}"`);
    return value;
  };
  const withAssignments = step.code.replace(PLACEHOLDER_ASSIGNMENT, (_all, lead: string, name: string, placeholder: string) => {
    const source = plan.assignments[name];
    if (!source)
      throw new Error(`line ${step.line}: the learner is to fill in ${name}=${placeholder}, which this test does not know how to fill (add it to the plan)`);
    return `${lead}${name}='${fill(placeholder, source(ctx), name)}'`;
  });
  return withAssignments.replace(DOC_BASE, baseUrl).replace(INLINE_PLACEHOLDER, (placeholder) => {
    const source = plan.inline?.[placeholder];
    if (!source)
      throw new Error(`line ${step.line}: the learner is to fill in "${placeholder}", which this test does not know how to fill (add it to the plan)`);
    return fill(placeholder, source(ctx), placeholder);
  });
}

/** The answer keys the doc shows in a comment under a command (`# {"access_token":"eyJ...",...}`, `# http://…?code=...&state=xyz`). */
function shownKeys(step: Step): { json: string[]; query: string[] } {
  const text = step.comments.join('\n');
  const url = /\bhttps?:\/\/\S+\?(\S+)/.exec(text);
  return {
    json: [...text.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"\s*:/g)].map((m) => m[1]),
    query: url ? [...new URLSearchParams(url[1]).keys()] : [],
  };
}

const found = Object.fromEntries(DOCS.map((file) => [file, curlBlocks(file)])) as Record<(typeof DOCS)[number], Block[]>;

describe('the curl walkthroughs in the docs, pasted as a learner pastes them', () => {
  let system: RunningSystem;
  let session: string;
  let workDir: string;
  const ranBlocks = new Map<string, number>();

  beforeAll(async () => {
    system = await startSystem();
    session = await registerUser(system.baseUrl);
    workDir = mkdtempSync(join(tmpdir(), 'doc-walkthroughs-'));
    // The learner's own photo.jpg for the upload example.
    writeFileSync(join(workDir, 'photo.jpg'), Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(4096), Buffer.from([0xff, 0xd9])]));
  });
  afterAll(async () => {
    await system?.stop();
    if (workDir) rmSync(workDir, { recursive: true, force: true });
  });

  describe.each(DOCS)('%s', (file) => {
    const blocks = found[file];

    it('has a curl walkthrough, and every curl block in it is run here or skipped with a reason', () => {
      expect(blocks.length).toBeGreaterThan(0);
      expect(blocks.filter((b) => !PLANS[b.id] && !SKIPPED[b.id]).map((b) => b.id)).toEqual([]);
      // And the other way: a walkthrough planned or skipped here that the doc no longer has (moved, renamed, deleted) is noticed.
      const known = [...Object.keys(PLANS), ...Object.keys(SKIPPED)].filter((id) => id.startsWith(`${file}#`));
      expect(known.filter((id) => !blocks.some((b) => b.id === id))).toEqual([]);
    });

    it.each(blocks.filter((b) => !SKIPPED[b.id]).map((b): [string, Block] => [b.id.slice(file.length), b]))(
      '%s: every command answers as the doc says',
      async (_id, block) => {
        const plan = PLANS[block.id];
        expect(plan).toBeDefined();
        // Every block starts from a fresh app, as a learner following one page would: no state from another walkthrough.
        const app = await createApp(system.baseUrl, session, { name: `walkthrough ${block.id}` });
        await plan.setUp?.(block, system, session, app);
        const ctx: Context = { app, ran: [], cwd: workDir };
        const names = assigned(block.steps);
        let vars: Record<string, string> = {};
        const used = new Map<Expectation, number>();
        let curlsRun = 0;

        for (const step of block.steps) {
          const code = filledIn(step, plan, ctx, system.baseUrl);
          const result = await runStep(code, names, vars, workDir);
          vars = result.vars;
          const ran: Ran = { step, stdout: result.stdout, stderr: result.stderr, exit: result.exit, curls: result.curls };
          ctx.ran.push(ran);
          const seen = {
            line: step.line,
            command: step.code,
            exit: result.exit,
            curls: result.curls.length,
            answer: result.stdout.slice(0, 600),
            stderr: result.stderr.slice(0, 600),
          };
          if (!step.curl) {
            // An assignment or a computation (openssl, date): it must work, and set what it names.
            expect(seen).toEqual({ ...seen, exit: 0 });
            continue;
          }
          curlsRun++;
          expect(seen).toEqual({ ...seen, curls: 1 });
          const rows = plan.expect.filter((row) => row.step.test(step.code));
          expect(rows.length).toBeLessThanOrEqual(1);
          const row = rows[0];
          if (row) used.set(row, (used.get(row) ?? 0) + 1);
          const status = row ? String(row.status) : plan.status === '2xx' ? expect.stringMatching(/^2\d\d$/) : String(plan.status);
          // The whole command and its answer are in the comparison, so a failure shows what the learner would have seen.
          const answered = { ...seen, status: result.curls[0].status, why: row?.why };
          expect(answered).toEqual({ ...answered, exit: row?.exit ?? 0, status });
          row?.check?.(ran, ctx);
          // What the doc shows of the answer is there.
          const shown = shownKeys(step);
          if (shown.json.length) expect(Object.keys(json(ran))).toEqual(expect.arrayContaining(shown.json));
          if (shown.query.length) expect([...new URL(ran.stdout.trim()).searchParams.keys()]).toEqual(expect.arrayContaining(shown.query));
        }

        // Each expectation row matched exactly one command: a row that matches nothing checks nothing.
        expect(plan.expect.filter((row) => used.get(row) !== 1).map((row) => String(row.step))).toEqual([]);
        expect(curlsRun).toBe(block.steps.filter((s) => s.curl).length);
        ranBlocks.set(file, (ranBlocks.get(file) ?? 0) + 1);
      },
    );

    it('ran every curl block it found, but those skipped with a reason', () => {
      const skipped = blocks.filter((b) => SKIPPED[b.id]).length;
      expect(ranBlocks.get(file) ?? 0).toBe(blocks.length - skipped);
    });
  });
});
