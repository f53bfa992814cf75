import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { AppError, ConfigError, type CallOptionsLite } from '@sandbox/runtime';
import { closeBackendClients, createBackendClients } from '../clients';
import { loadGatewayConfig } from '../config';
import {
  auditText,
  classesText,
  classText,
  classViewText,
  deletedText,
  disabledText,
  limitsText,
  limitText,
  purgedText,
  unlimitText,
  userText,
  usersText,
} from './cli-format';
import { AdminOperations, type Operator } from '../routes/operators/operations';

/*
 * The operators' CLI (docs/operators.md): `npm run admin -- <command>` in a
 * checkout, `sandbox-admin <command>` in the image (the chart's `admin`
 * container beside each gateway, compose's `admin` service). It reads the
 * gateway's configuration (the service addresses), builds the same gRPC
 * clients, and acts through the same AdminOperations as /api/admin/...,
 * presenting a certificate of its own (`cli`): identity knows it by that
 * certificate and audits it as the actor `cli`, with the `<os user>@<host>`
 * it states beside (docs/security.md, "Operator actions").
 * Exit codes: 0 done; 1 a service refused or could not be reached (its words
 * are printed); 2 the command line is wrong (one line naming the problem).
 */

/** Deletions and exports walk many records through two services: more time than the gateway's default deadline. */
const LONG_CALL: CallOptionsLite = { deadlineMs: 120_000 };

type Values = Record<string, string | boolean | undefined>;
interface Command {
  usage: string;
  what: string;
  /** The names of its positional arguments, in order. */
  args?: readonly string[];
  options?: Record<string, { type: 'string' | 'boolean' }>;
  run(ops: AdminOperations, operator: Operator, args: string[], values: Values): Promise<{ json: unknown; text: string }>;
}

/** A command line that cannot be run: its one line, and exit code 2. */
class UsageError extends Error {}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const string = (values: Values, name: string) => values[name] as string | undefined;
function day(values: Values, name: string): string | undefined {
  const value = string(values, name);
  if (value !== undefined && !DAY.test(value)) throw new UsageError(`--${name} must be a UTC day, YYYY-MM-DD (got ${JSON.stringify(value)})`);
  return value;
}
function positiveNumber(values: Values, name: string, whole: boolean): number {
  const text = string(values, name);
  const value = Number(text);
  if (text === undefined || text.trim() === '' || !Number.isFinite(value) || value <= 0 || (whole && !Number.isInteger(value))) {
    throw new UsageError(`--${name} must be a ${whole ? 'whole number' : 'number'} above 0${text === undefined ? '' : ` (got ${JSON.stringify(text)})`}`);
  }
  return value;
}
/** --stuck-minutes for `classes show` and `csv`: identity checks the range (1 to 1440). */
const stuckMinutes = (values: Values) => (string(values, 'stuck-minutes') === undefined ? undefined : positiveNumber(values, 'stuck-minutes', true));
function moment(values: Values, name: string): string {
  const value = string(values, name);
  if (!value) throw new UsageError(`classes create needs --${name} <time>, e.g. --${name} 2030-09-01T09:00:00Z`);
  return value;
}
const pageSize = (values: Values) => (string(values, 'page-size') === undefined ? undefined : positiveNumber(values, 'page-size', true));

const COMMANDS: Record<string, Command> = {
  users: {
    usage: 'users [--email <part>]',
    what: 'every user, with app counts, request counts and last activity (--email: those whose email contains it)',
    options: { email: { type: 'string' } },
    async run(ops, operator, _args, values) {
      // Every page: an operator reading a class wants all of it.
      const first = await ops.listUsers(operator, { email: string(values, 'email') });
      const users = [...first.users];
      for (let token = first.nextPageToken; token;) {
        const page = await ops.listUsers(operator, { email: string(values, 'email'), pageToken: token });
        users.push(...page.users);
        token = page.nextPageToken;
      }
      return { json: { users, total: first.total }, text: usersText(users, first.total) };
    },
  },
  user: {
    usage: 'user <id>',
    what: 'one user and their apps (never a secret)',
    args: ['id'],
    async run(ops, operator, [id]) {
      const user = await ops.getUser(operator, id!);
      return { json: user, text: userText(user) };
    },
  },
  disable: {
    usage: 'disable <id>',
    what: 'disable a user: their sessions and apps stop working until enabled',
    args: ['id'],
    async run(ops, operator, [id]) {
      const user = await ops.setDisabled(operator, id!, true);
      return { json: user, text: disabledText(user) };
    },
  },
  enable: {
    usage: 'enable <id>',
    what: 'enable a disabled user again',
    args: ['id'],
    async run(ops, operator, [id]) {
      const user = await ops.setDisabled(operator, id!, false);
      return { json: user, text: disabledText(user) };
    },
  },
  delete: {
    usage: 'delete <id>',
    what: 'delete a user with their apps, credentials, tokens, logs and OAuth state',
    args: ['id'],
    async run(ops, operator, [id]) {
      const deleted = await ops.deleteUser(operator, id!, LONG_CALL);
      return { json: deleted, text: deletedText(deleted) };
    },
  },
  purge: {
    usage: 'purge --before <day or time> [--dry-run]',
    what: 'delete every learner created before then, and the usage counted before it (--dry-run: only count)',
    options: { before: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    async run(ops, operator, _args, values) {
      const before = string(values, 'before');
      if (!before) throw new UsageError('purge needs --before <day or time>, e.g. --before 2030-06-30');
      if (Number.isNaN(Date.parse(before))) throw new UsageError(`--before must be a day (YYYY-MM-DD) or an RFC 3339 time (got ${JSON.stringify(before)})`);
      const purged = await ops.purge(operator, { before, dryRun: values['dry-run'] === true }, LONG_CALL);
      return { json: purged, text: purgedText(purged) };
    },
  },
  usage: {
    usage: 'usage [--from <day>] [--to <day>]',
    what: 'requests per day, user, app, auth style and route family, as CSV (--json: as objects)',
    options: { from: { type: 'string' }, to: { type: 'string' } },
    async run(ops, operator, _args, values) {
      const range = { from: day(values, 'from'), to: day(values, 'to') };
      if (values.json) {
        const rows = await ops.usage(operator, range, LONG_CALL);
        const json = rows.map((r) => ({
          day: r.day,
          user_id: r.userId,
          email: r.email,
          app_id: r.appId,
          app_name: r.appName,
          auth_style: r.authStyle,
          route_family: r.routeFamily,
          requests: r.requests,
        }));
        return { json, text: '' };
      }
      const { csv } = await ops.usageExport(operator, range, LONG_CALL);
      return { json: undefined, text: csv.replace(/\r\n$/, '') };
    },
  },
  audit: {
    usage: 'audit [--page-size <n>] [--page-token <token>]',
    what: 'the audit log of operator actions, newest first',
    options: { 'page-size': { type: 'string' }, 'page-token': { type: 'string' } },
    async run(ops, operator, _args, values) {
      const page = await ops.audit(operator, { pageSize: pageSize(values), pageToken: string(values, 'page-token') });
      return { json: page, text: auditText(page) };
    },
  },
  limits: {
    usage: 'limits',
    what: "every app's own fair-share limit",
    async run(ops) {
      const list = await ops.listAppLimits();
      return { json: list, text: limitsText(list) };
    },
  },
  limit: {
    usage: 'limit <appId> --exempt | --per-second <n> --burst <n>',
    what: "set an app's own fair-share limit: exempt (a load test), or another rate and burst",
    args: ['appId'],
    options: { exempt: { type: 'boolean' }, 'per-second': { type: 'string' }, burst: { type: 'string' } },
    async run(ops, operator, [appId], values) {
      const rate = values['per-second'] !== undefined || values.burst !== undefined;
      if (values.exempt === rate) throw new UsageError('limit needs either --exempt, or --per-second <n> with --burst <n>');
      const setting = values.exempt
        ? ({ exempt: true } as const)
        : { perSecond: positiveNumber(values, 'per-second', false), burst: positiveNumber(values, 'burst', true) };
      const limit = await ops.setAppLimit(operator, appId!, setting);
      return { json: limit, text: limitText(limit) };
    },
  },
  unlimit: {
    usage: 'unlimit <appId>',
    what: "clear an app's own limit: the default applies again",
    args: ['appId'],
    async run(ops, operator, [appId]) {
      const cleared = await ops.clearAppLimit(operator, appId!);
      return { json: cleared, text: unlimitText(cleared) };
    },
  },
  'classes create': {
    usage: 'classes create --name <name> --starts <time> --ends <time> [--domain <d>] [--group <g>]',
    what: 'create a class (RFC 3339 times); prints its join code. --domain: learners at that email domain only; --group: that SSO group only',
    options: { name: { type: 'string' }, starts: { type: 'string' }, ends: { type: 'string' }, domain: { type: 'string' }, group: { type: 'string' } },
    async run(ops, operator, _args, values) {
      const name = string(values, 'name');
      if (!name) throw new UsageError('classes create needs --name <name>');
      const created = await ops.createClass(operator, {
        name,
        startsAt: moment(values, 'starts'),
        endsAt: moment(values, 'ends'),
        signUpDomain: string(values, 'domain'),
        ssoGroup: string(values, 'group'),
      });
      return { json: created, text: classText(created) };
    },
  },
  'classes list': {
    usage: 'classes list',
    what: 'every class, newest first, with its join code and learner count',
    async run(ops, operator) {
      const list = await ops.listClasses(operator);
      return { json: list, text: classesText(list.classes) };
    },
  },
  'classes show': {
    usage: 'classes show <id> [--stuck-minutes <n>]',
    what: 'a class as a grid of learners by exercise, with who is stuck (default: over 15 minutes) and the most common refusal',
    args: ['id'],
    options: { 'stuck-minutes': { type: 'string' } },
    async run(ops, operator, [id], values) {
      const view = await ops.classView(operator, id!, stuckMinutes(values));
      return { json: view, text: classViewText(view) };
    },
  },
  'classes csv': {
    usage: 'classes csv <id> [--stuck-minutes <n>]',
    what: "a class's grid as CSV: one row per learner, one column per exercise",
    args: ['id'],
    options: { 'stuck-minutes': { type: 'string' } },
    async run(ops, operator, [id], values) {
      const { csv } = await ops.classCsv(operator, id!, stuckMinutes(values));
      return { json: undefined, text: csv.replace(/\r\n$/, '') };
    },
  },
  'classes delete': {
    usage: 'classes delete <id>',
    what: "delete a class and its memberships (the learners' progress stays theirs)",
    args: ['id'],
    async run(ops, operator, [id]) {
      const deleted = await ops.deleteClass(operator, id!);
      return { json: deleted, text: `Deleted class ${deleted.id}: ${deleted.learners} ${deleted.learners === 1 ? 'learner' : 'learners'} left it.` };
    },
  },
};

export const HELP = [
  'Usage: npm run admin -- <command> [options] [--json]   (in the image: sandbox-admin <command> ...)',
  '',
  'Commands:',
  ...Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(58)}${c.usage.length >= 58 ? `\n  ${''.padEnd(58)}` : ''}${c.what}`),
  `  ${'help'.padEnd(58)}this text`,
  '',
  "--json prints what the admin API answers, as JSON. Reads the gateway's configuration (IDENTITY_GRPC_ADDR, OAUTH_GRPC_ADDR, ...).",
  'Exit codes: 0 done, 1 a service refused or could not be reached, 2 a wrong command line. docs/operators.md has more.',
].join('\n');

/**
 * The CLI as an operator: no session (its certificate speaks for it), and the
 * OS user and host, which is what an operator can be told apart by inside a
 * pod, stated for the audit log.
 */
export function cliOperator(): Operator {
  let user: string;
  try {
    user = userInfo().username;
  } catch {
    // A container's user may have no passwd entry (Kubernetes runAsUser): its number is what there is.
    user = process.env.USER || `uid-${process.getuid?.() ?? 'unknown'}`;
  }
  return { credential: { sessionToken: '', statedUser: `${user}@${hostname()}` } };
}

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** Runs one command line against the services `env` names (the gateway's configuration); resolves to the exit code. */
export async function runCli(argv: readonly string[], io: CliOutput, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // `classes <sub>` is one command of two words.
  const [first, ...others] = argv;
  const [name, ...rest] = first === 'classes' && others.length > 0 && !others[0]!.startsWith('-') ? [`classes ${others[0]}`, ...others.slice(1)] : argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    (name === undefined ? io.err : io.out)(HELP);
    return name === undefined ? 2 : 0;
  }
  const command = COMMANDS[name];
  if (!command && name.startsWith('classes')) {
    io.err(`admin: classes needs one of create, list, show, csv, delete; npm run admin -- help lists them`);
    return 2;
  }
  if (!command) {
    io.err(`admin: unknown command ${JSON.stringify(name)}; npm run admin -- help lists them`);
    return 2;
  }
  let args: string[];
  let values: Values;
  try {
    ({ positionals: args, values } = parseArgs({
      args: [...rest],
      options: { ...command.options, json: { type: 'boolean' } },
      allowPositionals: true,
      strict: true,
    }));
    const wanted = command.args ?? [];
    if (args.length !== wanted.length) {
      throw new UsageError(
        wanted.length
          ? `${name} takes ${wanted.map((a) => `<${a}>`).join(' ')}: usage: ${command.usage}`
          : `${name} takes no argument (got ${JSON.stringify(args[0])}): usage: ${command.usage}`,
      );
    }
  } catch (error) {
    const option = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'([^']+)'/.exec((error as Error).message)?.[1] : undefined;
    io.err(`admin: ${option ? `${name} has no option ${option}: usage: ${command.usage}` : oneLine(error)}`);
    return 2;
  }

  let clients: ReturnType<typeof createBackendClients> | undefined;
  try {
    const config = loadGatewayConfig(cliEnvironment(env));
    clients = createBackendClients(config);
    const result = await command.run(new AdminOperations(clients.identity, clients.oauth), cliOperator(), args, values);
    io.out(values.json ? JSON.stringify(result.json, null, 2) : result.text);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`admin: ${error.message}`);
      return 2;
    }
    if (error instanceof AppError) io.err(`admin: ${error.message} (${error.code})${error.code === 'operator_required' ? NOT_THE_CLI_CERTIFICATE : ''}`);
    else if (error instanceof ConfigError) io.err(`admin: ${error.message}`);
    else io.err(`admin: ${oneLine(error)}`);
    return 1;
  } finally {
    if (clients) closeBackendClients(clients);
  }
}

/**
 * The CLI is a caller of its own: the certificate in its GRPC_TLS_DIR, or the
 * run's `cli` one when `npm start` keeps them (GRPC_TLS_RUN_DIR), never the
 * gateway's (with it, identity refuses every command: operator_required).
 */
function cliEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const own = env.GRPC_TLS_DIR || !env.GRPC_TLS_RUN_DIR ? env : { ...env, GRPC_TLS_DIR: join(env.GRPC_TLS_RUN_DIR, 'cli') };
  // Its certificate is its only credential, so it calls with it whenever the services take it:
  // under accept-tls (whose processes still call in plaintext) it calls as send-tls does.
  return own.GRPC_TLS === 'accept-tls' ? { ...own, GRPC_TLS: 'send-tls' } : own;
}
const NOT_THE_CLI_CERTIFICATE =
  "\nadmin: identity knows the CLI by its own certificate (spiffe://training-sandbox/cli) in GRPC_TLS_DIR: run it in the chart's admin container, compose's admin service, or beside npm start with GRPC_TLS_RUN_DIR (docs/operators.md).";

/** A parseArgs refusal (or any error) as one line: its message up to the first line break. */
const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

if (require.main === module) {
  void runCli(process.argv.slice(2), { out: (text) => console.log(text), err: (text) => console.error(text) }).then((code) => {
    // Everything written is flushed (stdout to a pipe or file is synchronous here); nothing else needs the loop.
    process.exit(code);
  });
}
