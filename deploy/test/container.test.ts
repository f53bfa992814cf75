import { spawnSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { parse } from 'yaml';
import { loadDataConfig } from '../../services/data/src/config';
import { loadIdentityConfig } from '../../services/identity/src/config';
import { loadOAuthConfig } from '../../services/oauth/src/config';
import { SERVICE_NODE_ARGS, SERVICE_NODE_OPTIONS } from '../../packages/launcher/src/node-options';
import type { ProcessName } from '../../packages/launcher/src/replicas';
import { TIMEOUT_CAP_MS } from '../../services/playground/src/domain/timeout';

// What can drift in the Dockerfile and docker-compose.yml without building
// them (deploy/test/image.test.ts builds and runs the image): every workspace reaches the
// image; the compose file is valid Compose (the Compose Specification schema
// docker compose itself validates with), runs every process hardened,
// health-checked and in dependency order, and gives each its keys from the
// keys service; and that service's script makes keys the services accept.

const ROOT = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
const SANDBOX: ProcessName[] = ['gateway', 'identity', 'oauth', 'data', 'playground'];

/** Where the keys volume is mounted, in the image and in every container. */
const KEYS_DIR = '/run/sandbox-keys';
/** The keys each service reads (docs/deployment.md; the Helm chart's Secret has the same names). */
const KEYS_BY_SERVICE: Record<string, string[]> = {
  identity: ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY'],
  oauth: ['JWT_SIGNING_KEY'],
  data: ['PAGE_TOKEN_KEY'],
};
const ALL_KEYS = Object.values(KEYS_BY_SERVICE).flat();
/** The processes with a certificate in the keys volume, tls/<name>/ (the operators' CLI too). */
const TLS_NAMES = [...SANDBOX, 'cli'];
/** The compose services that mount the keys volume: the processes, and `admin`, the operators' CLI with the `cli` certificate. */
const WITH_KEYS = [...SANDBOX, 'admin'];
/** Each gRPC service's plaintext grpc.health.v1 port, which its healthcheck asks (the chart's values use the same). */
const HEALTH_PORTS: Record<string, number> = { identity: 50061, oauth: 50062, data: 50063, playground: 50064 };
/** `${VAR:-default}` as compose resolves it where VAR is not set. */
const composeDefault = (value: string) => value.replace(/\$\{\w+:-([^}]*)\}/g, '$1');

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it.each(workspaces)('when %s is a workspace, then its package.json is installed and its dist copied into the image', (workspace) => {
    expect(dockerfile).toContain(`COPY ${workspace}/package.json ${workspace}/`);
    expect(dockerfile).toContain(`COPY --from=build /app/${workspace}/dist/ ${workspace}/dist/`);
  });

  it('when the image runs, then it runs as a numeric non-root user with production dependencies only', () => {
    expect(runtime).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(runtime).not.toMatch(/COPY --from=build \/app\/node_modules/);
    expect(runtime).not.toMatch(/^(ENV|ARG) .*(KEY|SECRET|PASSWORD|MONGO_URL|REDIS_URL)/m);
  });

  it("when a service runs in the image, then it has the V8 options `npm start` gives it (one value, the launcher's)", () => {
    expect(runtime).toMatch(new RegExp(`^ENV .*\\bNODE_OPTIONS="${SERVICE_NODE_OPTIONS}"$`, 'm'));
  });

  it("when the image runs its default command, then node gets the V8 options NODE_OPTIONS cannot carry, the launcher's", () => {
    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(runtime)![1]!) as string[];
    expect(command).toEqual(['node', ...SERVICE_NODE_ARGS.gateway, 'services/gateway/dist/main.js']);
  });

  it('when a process is started alone (npm run start:<name>), then node gets the same V8 options on its command line', () => {
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    for (const name of SANDBOX) expect(scripts[`start:${name}`]).toBe(['node', ...SERVICE_NODE_ARGS[name], `services/${name}/dist/main.js`].join(' '));
  });

  it('when no base image is given, then it is a maintained LTS line of node (even major, 24 or later), slim', () => {
    const image = /^ARG NODE_IMAGE=node:(\d+)-bookworm-slim$/m.exec(dockerfile);
    expect(image).not.toBeNull();
    const major = Number(image![1]);
    expect({ major, lts: major % 2 === 0 && major >= 24 }).toEqual({ major, lts: true });
  });

  it('when the suite runs, then it runs on the Node major the image ships, and the pinned test Node is of that major too', () => {
    // scripts/test.sh puts the Node of scripts/lib/node.sh first on PATH; the image's comes from NODE_IMAGE.
    const imageMajor = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(dockerfile)![1];
    const pinned = /^NODE_VERSION=(\d+)\.\d+\.\d+$/m.exec(read('scripts/lib/node.sh'))![1];
    expect({ suite: process.versions.node.split('.')[0], pinned }).toEqual({ suite: imageMajor, pinned: imageMajor });
  });

  it('when a keys volume is mounted, then its directory exists in the image, owned by the service user and closed to others', () => {
    // An empty named volume takes the owner and mode of the image's directory at its mount path.
    expect(runtime).toMatch(new RegExp(`install -d -o 10001 -g 10001 -m 0?700 ${KEYS_DIR}\\b`));
  });

  it('when compose or helm test runs a helper script, then every deploy/docker/*.cjs is in the image', () => {
    expect(runtime).toMatch(/^COPY deploy\/docker\/\*\.cjs deploy\/docker\/$/m);
    const scripts = readdirSync(join(ROOT, 'deploy', 'docker')).filter((file) => file.endsWith('.cjs'));
    expect(scripts).toEqual(expect.arrayContaining(['generate-keys.cjs', 'healthcheck.cjs', 'smoke-test.cjs']));
    expect(read('.dockerignore').split('\n')).toContain('!deploy/docker/');
  });

  it("when an operator runs the admin CLI in a pod, then sandbox-admin is on the PATH and runs the gateway's CLI (npm is not in the image)", () => {
    expect(runtime).toMatch(/^COPY --chmod=0755 deploy\/docker\/sandbox-admin \/usr\/local\/bin\/sandbox-admin$/m);
    expect(runtime).toContain(' /usr/local/bin/npm ');
    const target = /^exec node \/app\/(\S+)\.js "\$@"$/m.exec(read('deploy/docker/sandbox-admin'));
    expect(target).not.toBeNull();
    // The image's /app is the repository's layout; its dist comes from this source.
    expect(existsSync(join(ROOT, target![1]!.replace('/dist/', '/src/') + '.ts'))).toBe(true);
    expect(JSON.parse(read('package.json')).scripts.admin).toBe(`node ${target![1]}.js`);
  });

  it('when the build context is filtered, then host node_modules, dist and local state stay out', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git', '.tools', '.test-state', '.env']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.yml', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- compose YAML is untyped
  type Compose = { services: Record<string, any>; volumes: Record<string, unknown> };
  // Merge keys (<<) resolved as compose resolves them; ${VAR:-default} stays as written.
  const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
  const environmentOf = (name: string) => (compose.services[name].environment ?? {}) as Record<string, string | null>;

  describe('against the Compose Specification schema', () => {
    let validate: ValidateFunction;

    beforeAll(() => {
      // Pinned in scripts/lib/compose-schema.sh; fetched once into .tools, a no-op afterwards.
      const fetched = spawnSync('bash', ['-c', 'source scripts/lib/compose-schema.sh && ensure_compose_schema && echo "$COMPOSE_SCHEMA"'], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      if (fetched.status !== 0) throw new Error(`could not get the Compose Specification schema: ${fetched.stderr}`);
      const schema = JSON.parse(readFileSync(fetched.stdout.trim(), 'utf8')) as { $schema: string };
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      // Strict about keywords (one Ajv does not know would throw here, not be ignored); the
      // schema's style (union types, properties without type: object) is the upstream's own.
      const ajv = new Ajv2020({ allErrors: true, strictTypes: false, strictRequired: false, allowUnionTypes: true });
      validate = ajv.compile(schema);
    });

    const errorsOf = (document: unknown) =>
      validate(document) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);

    it('when the file is checked, then it is valid', () => {
      expect(errorsOf(compose)).toEqual([]);
    });

    it.each([
      ['an unknown key under a service', (c: Compose) => (c.services.gateway.stop_grace_periods = '80s'), '/services/gateway'],
      [
        'an unknown dependency condition',
        (c: Compose) => (c.services.identity.depends_on.keys.condition = 'service_completed'),
        '/services/identity/depends_on',
      ],
      ['an unknown top-level key', (c: Compose) => Object.assign(c, { servics: {} }), ''],
    ])('when the file has %s, then it is invalid there', (_what, breakIt, path) => {
      const broken = structuredClone(compose);
      breakIt(broken);
      const errors = errorsOf(broken);
      expect(errors.length).toBeGreaterThan(0);
      expect(errors.some((error) => error.startsWith(`${path} `) || error.startsWith(`${path}/`))).toBe(true);
    });
  });

  it("when the stack starts, then it has the chart's MongoDB and Redis images and the five processes from one image", () => {
    const chartStores = (
      parse(read('deploy/helm/training-sandbox/values.yaml')) as { stores: Record<'mongodb' | 'redis', { image: { repository: string; tag: string } }> }
    ).stores;
    expect(compose.services.mongo.image).toBe(`${chartStores.mongodb.image.repository}:${chartStores.mongodb.image.tag}`);
    expect(compose.services.redis.image).toBe(`${chartStores.redis.image.repository}:${chartStores.redis.image.tag}`);
    const images = new Set([...SANDBOX, 'keys'].map((name) => compose.services[name].image));
    expect(images.size).toBe(1);
    for (const name of SANDBOX) {
      const file = KEYS_BY_SERVICE[name] ? [`--env-file=${KEYS_DIR}/${name}.env`] : [];
      expect(compose.services[name].command).toEqual(['node', ...SERVICE_NODE_ARGS[name], ...file, `services/${name}/dist/main.js`]);
    }
    expect(compose.services.gateway.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
  });

  it('when a process runs, then it is read-only, without capabilities, health-checked, and listens beyond loopback', () => {
    for (const name of SANDBOX) {
      const service = compose.services[name];
      expect({ name, read_only: service.read_only, cap_drop: service.cap_drop }).toEqual({ name, read_only: true, cap_drop: ['ALL'] });
      expect(service.healthcheck.test[0]).toBe('CMD');
      const host = name === 'gateway' ? 'HOST' : `${name.toUpperCase()}_GRPC_HOST`;
      expect(service.environment[host]).toBe('0.0.0.0');
    }
  });

  it('when the stack starts, then the stores are healthy before the services that use them, and each process waits for what it calls', () => {
    const waitsFor = (name: string, condition: string) =>
      Object.entries(compose.services[name].depends_on ?? {})
        .filter(([, dependency]) => (dependency as { condition: string }).condition === condition)
        .map(([dependency]) => dependency)
        .sort();
    for (const store of ['mongo', 'redis']) expect(compose.services[store].healthcheck.test[0]).toBe('CMD');
    expect(waitsFor('gateway', 'service_healthy')).toEqual(['data', 'identity', 'oauth', 'playground']);
    expect(waitsFor('oauth', 'service_healthy')).toEqual(['identity', 'redis']);
    expect(waitsFor('identity', 'service_healthy')).toEqual(['mongo', 'redis']);
    // Identity's sign-in throttle and oauth's flow state are shared through Redis.
    expect(environmentOf('identity').REDIS_URL).toBe('redis://redis:6379');
    expect(environmentOf('oauth').REDIS_URL).toBe('redis://redis:6379');
    expect(environmentOf('identity').MONGO_URL).toMatch(/^mongodb:\/\/mongo:27017\//);
    // What Redis holds (refresh families, revocations, replay memories) survives a restart and `down`, as in the chart.
    expect(compose.services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']));
    expect(compose.services.redis.volumes).toEqual(['redis-data:/data']);
  });

  it('when the stack starts, then the keys service runs first, once, alone, and writes to the keys volume', () => {
    const keys = compose.services.keys;
    expect(keys.command).toEqual(['node', 'deploy/docker/generate-keys.cjs', KEYS_DIR]);
    expect(keys.restart).toBe('no');
    expect(keys.network_mode).toBe('none');
    expect(keys.depends_on).toBeUndefined();
    expect({ read_only: keys.read_only, cap_drop: keys.cap_drop }).toEqual({ read_only: true, cap_drop: ['ALL'] });
    expect(keys.volumes).toEqual([`sandbox-keys:${KEYS_DIR}`]);
    expect(Object.keys(compose.volumes)).toContain('sandbox-keys');
    const waitingForKeys = Object.keys(compose.services)
      .filter((name) => compose.services[name].depends_on?.keys?.condition === 'service_completed_successfully')
      .sort();
    // Every process needs its certificate, so every one waits for it (and so does the CLI).
    expect(waitingForKeys).toEqual([...WITH_KEYS].sort());
  });

  it('when a process starts, then it mounts the keys read-only and loads only its own keys file (if it has keys); the stores mount nothing of it', () => {
    for (const name of Object.keys(compose.services).filter((n) => n !== 'keys')) {
      const mounts = ((compose.services[name].volumes ?? []) as string[]).filter((volume) => volume.startsWith('sandbox-keys:'));
      const loads = ((compose.services[name].command ?? []) as string[]).filter((arg) => arg.startsWith('--env-file='));
      const expected = {
        name,
        mounts: WITH_KEYS.includes(name) ? [`sandbox-keys:${KEYS_DIR}:ro`] : [],
        loads: KEYS_BY_SERVICE[name] ? [`--env-file=${KEYS_DIR}/${name}.env`] : [],
      };
      expect({ name, mounts, loads }).toEqual(expected);
    }
  });

  it('when the processes talk gRPC, then it is mutual TLS (unless GRPC_TLS=off is given from the shell), each with its own certificate from the keys volume', () => {
    for (const name of SANDBOX) {
      const env = environmentOf(name);
      expect({ name, tls: env.GRPC_TLS, dir: env.GRPC_TLS_DIR }).toEqual({ name, tls: '${GRPC_TLS:-on}', dir: `${KEYS_DIR}/tls/${name}` });
    }
    // The operators' CLI has a certificate of its own: identity takes the gateway's for no operator.
    expect({ tls: environmentOf('admin').GRPC_TLS, dir: environmentOf('admin').GRPC_TLS_DIR }).toEqual({ tls: '${GRPC_TLS:-on}', dir: `${KEYS_DIR}/tls/cli` });
    expect(compose.services.admin.profiles).toEqual(['admin']);
    expect(read('docker-compose.yml')).not.toMatch(/GRPC_TLS: "?off/);
  });

  it('when a gRPC service is health-checked, then the check asks its plaintext health port (the gRPC port wants a client certificate)', () => {
    for (const [name, port] of Object.entries(HEALTH_PORTS)) {
      expect({ name, env: environmentOf(name)[`${name.toUpperCase()}_HEALTH_PORT`] }).toEqual({ name, env: String(port) });
      expect(compose.services[name].healthcheck.test).toEqual(['CMD', 'node', 'deploy/docker/healthcheck.cjs', 'grpc', String(port)]);
    }
    // The chart probes the same ports.
    const chart = parse(read('deploy/helm/training-sandbox/values.yaml')) as { services: Record<string, { healthPort?: number }> };
    for (const [name, port] of Object.entries(HEALTH_PORTS)) expect({ name, port: chart.services[name]!.healthPort }).toEqual({ name, port });
  });

  it('when a key is named in the environment, then only by its own service and without a value (passed through from where compose runs)', () => {
    for (const name of Object.keys(compose.services)) {
      const named = Object.entries(environmentOf(name)).filter(([variable]) => ALL_KEYS.includes(variable));
      expect({ name, named }).toEqual({ name, named: (KEYS_BY_SERVICE[name] ?? []).map((variable) => [variable, null]) });
    }
  });

  it('when the file is read, then no value in it looks like a secret', () => {
    const strings: string[] = [];
    const walk = (value: unknown): void => {
      if (typeof value === 'string') strings.push(value);
      else if (Array.isArray(value)) value.forEach(walk);
      else if (value && typeof value === 'object') Object.values(value).forEach(walk);
    };
    walk(compose);
    for (const value of strings) {
      expect(value).not.toMatch(/PRIVATE KEY/);
      // Key material: 32+ bytes as hex or base64url, or as standard base64 (which paths here never look like).
      expect(value).not.toMatch(/[A-Za-z0-9_-]{32,}/);
      expect(value).not.toMatch(/[A-Za-z0-9+/]{40,}/);
      expect(value).not.toMatch(/:\/\/[^/\s@]*:[^/\s@]*@/); // a password in a URL
    }
    for (const name of Object.keys(compose.services)) {
      for (const [variable, value] of Object.entries(environmentOf(name))) {
        if (/KEY|SECRET|PASSWORD|TOKEN/.test(variable)) expect({ variable, value }).toEqual({ variable, value: null });
      }
    }
  });

  it('when the stack is stopped, then the gateway and the playground let a 60 s timeout call finish, and compose waits longer still', () => {
    const seconds = (duration: string) => {
      const parts = /^(?:(\d+)m)?(?:(\d+)s)?$/.exec(duration);
      if (!parts || duration === '') throw new Error(`unexpected duration ${duration}`);
      return Number(parts[1] ?? 0) * 60 + Number(parts[2] ?? 0);
    };
    for (const name of ['gateway', 'playground']) {
      const graceMs = Number(environmentOf(name).SHUTDOWN_GRACE_MS);
      expect({ name, graceMs }).toEqual({ name, graceMs: 65_000 });
      expect(graceMs).toBeGreaterThan(TIMEOUT_CAP_MS);
      // Margin for the drain to start and the process to close its clients and exit.
      expect(seconds(compose.services[name].stop_grace_period)).toBeGreaterThanOrEqual(graceMs / 1000 + 10);
    }
    for (const name of ['identity', 'oauth', 'data']) {
      expect({ name, grace: environmentOf(name).SHUTDOWN_GRACE_MS, stop: compose.services[name].stop_grace_period }).toEqual({
        name,
        grace: undefined,
        stop: '20s',
      });
    }
  });
});

describe('deploy/docker/generate-keys.cjs', () => {
  const SCRIPT = join(ROOT, 'deploy', 'docker', 'generate-keys.cjs');
  let scratch: string;

  const generate = (dir: string) => spawnSync(process.execPath, [SCRIPT, dir], { encoding: 'utf8' });
  /** The environment a process gets from a file: node --env-file (as compose runs it) or a POSIX shell's `set -a; .`. */
  const loadedBy = (reader: 'node' | 'sh', file: string, given: Record<string, string> = {}): Record<string, string> => {
    const print = 'process.stdout.write(JSON.stringify(process.env))';
    const env = { PATH: process.env.PATH, ...given };
    const result =
      reader === 'node'
        ? spawnSync(process.execPath, [`--env-file=${file}`, '-e', print], { encoding: 'utf8', env })
        : spawnSync('/bin/sh', ['-c', 'set -a && . "$1" && exec "$0" -e "$2"', process.execPath, file, print], { encoding: 'utf8', env });
    if (result.status !== 0) throw new Error(`${reader} could not load ${file}: ${result.stderr}`);
    return JSON.parse(result.stdout) as Record<string, string>;
  };
  const keyNamesIn = (env: Record<string, string>) =>
    Object.keys(env)
      .filter((name) => name !== 'PATH' && !name.startsWith('npm_'))
      .sort();

  beforeEach(() => {
    scratch = mkdtempSync(join(tmpdir(), 'sandbox-keys-'));
  });
  afterEach(() => rmSync(scratch, { recursive: true, force: true }));

  it("when the directory is empty, then it writes one file per service, read-only to its owner, with only that service's keys, and prints no value", () => {
    const run = generate(scratch);

    expect(run.status).toBe(0);
    expect(readdirSync(scratch).sort()).toEqual([...Object.keys(KEYS_BY_SERVICE).map((name) => `${name}.env`), 'tls'].sort());
    for (const [service, keys] of Object.entries(KEYS_BY_SERVICE)) {
      const file = join(scratch, `${service}.env`);
      expect({ service, mode: (statSync(file).mode & 0o777).toString(8) }).toEqual({ service, mode: '400' });
      const env = loadedBy('node', file);
      expect({ service, keys: keyNamesIn(env) }).toEqual({ service, keys: [...keys].sort() });
      for (const key of keys) expect(run.stdout + run.stderr).not.toContain(env[key].slice(0, 40));
    }
    expect(run.stdout).toMatch(/^keys: identity\.env written \(CREDENTIAL_ENCRYPTION_KEY, SESSION_SIGNING_KEY\)$/m);
  });

  it('when the keys are loaded as compose does, or by a shell, then the services accept them, the PEM included', () => {
    expect(generate(scratch).status).toBe(0);
    // What compose gives each process besides its keys file (how they talk to each other, its certificate), the volume being here.
    const services = (parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, { environment: Record<string, string> }> }).services;
    const composed = (service: string) =>
      Object.fromEntries(
        Object.entries(services[service]!.environment)
          .filter(([, v]) => typeof v === 'string')
          .map(([k, v]) => [k, composeDefault(v).replace(KEYS_DIR, scratch)]),
      );
    const asComposed = (reader: 'node' | 'sh', file: string) => {
      const service = file.slice(file.lastIndexOf('/') + 1, -'.env'.length);
      return { ...composed(service), ...loadedBy(reader, file) };
    };
    for (const reader of ['node', 'sh'] as const) {
      const identity = loadIdentityConfig({ ...asComposed(reader, join(scratch, 'identity.env')), MONGO_URL: 'mongodb://mongo:27017/training-sandbox' });
      expect(identity.grpcTls).toEqual({ mode: 'mtls', dir: join(scratch, 'tls', 'identity'), refreshMs: 10_000 });
      expect(identity.credentialEncryptionKey?.length).toBe(32);
      expect(identity.sessionSigningKey?.length).toBe(32);
      expect(identity.credentialEncryptionKey?.equals(identity.sessionSigningKey!)).toBe(false);
      const oauth = loadOAuthConfig(asComposed(reader, join(scratch, 'oauth.env')));
      expect(oauth.signingKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/);
      expect(loadDataConfig(asComposed(reader, join(scratch, 'data.env'))).pageTokenKey?.length).toBe(32);
    }
    expect(loadedBy('sh', join(scratch, 'oauth.env')).JWT_SIGNING_KEY).toBe(loadedBy('node', join(scratch, 'oauth.env')).JWT_SIGNING_KEY);
  });

  it('when it runs again, then every file is kept byte for byte and nothing else is left behind', () => {
    expect(generate(scratch).status).toBe(0);
    const before = readdirSync(scratch)
      .filter((file) => file.endsWith('.env'))
      .map((file) => [file, readFileSync(join(scratch, file), 'utf8')]);

    const again = generate(scratch);

    expect(again.status).toBe(0);
    expect(again.stdout.trim().split('\n')).toEqual(['keys: identity.env kept', 'keys: oauth.env kept', 'keys: data.env kept', 'keys: tls kept']);
    expect(
      readdirSync(scratch)
        .filter((file) => file.endsWith('.env'))
        .map((file) => [file, readFileSync(join(scratch, file), 'utf8')]),
    ).toEqual(before);
  });

  /** Every file under tls/, by relative path, with its content. */
  const tlsFiles = (dir: string) =>
    TLS_NAMES.flatMap((name) => ['ca.crt', 'tls.crt', 'tls.key'].map((file) => [`${name}/${file}`, readFileSync(join(dir, 'tls', name, file), 'utf8')]));

  it('when the directory is empty, then it writes one CA and a certificate per process, naming it by URI SAN, readable by its owner only, and prints no key', () => {
    const run = generate(scratch);

    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^keys: tls written \(a CA and certificates for identity, oauth, data, playground, gateway, cli\)$/m);
    expect(run.stdout + run.stderr).not.toMatch(/PRIVATE KEY|CERTIFICATE/);
    expect(readdirSync(join(scratch, 'tls')).sort()).toEqual([...TLS_NAMES].sort());
    expect((statSync(join(scratch, 'tls')).mode & 0o777).toString(8)).toBe('700');
    const ca = new X509Certificate(readFileSync(join(scratch, 'tls', 'identity', 'ca.crt')));
    expect(ca.ca).toBe(true);
    for (const name of TLS_NAMES) {
      const dir = join(scratch, 'tls', name);
      expect({ name, dir: (statSync(dir).mode & 0o777).toString(8), files: readdirSync(dir).sort() }).toEqual({
        name,
        dir: '700',
        files: ['ca.crt', 'tls.crt', 'tls.key'],
      });
      for (const file of readdirSync(dir))
        expect({ name, file, mode: (statSync(join(dir, file)).mode & 0o777).toString(8) }).toEqual({ name, file, mode: '400' });
      expect(readFileSync(join(dir, 'ca.crt'), 'utf8')).toBe(ca.toString());
      const leaf = new X509Certificate(readFileSync(join(dir, 'tls.crt')));
      expect({ name, signedByCa: leaf.verify(ca.publicKey), san: leaf.subjectAltName }).toEqual({
        name,
        signedByCa: true,
        san: expect.stringContaining(`URI:spiffe://training-sandbox/${name}`),
      });
      expect(leaf.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'tls.key'))))).toBe(true);
    }
  });

  it('when it runs again, then the certificates are kept byte for byte', () => {
    expect(generate(scratch).status).toBe(0);
    const tlsBefore = tlsFiles(scratch);
    expect(generate(scratch).status).toBe(0);
    expect(tlsFiles(scratch)).toEqual(tlsBefore);
    expect(readdirSync(scratch).filter((entry) => entry.startsWith('.'))).toEqual([]);
  });

  it('when tls/ is there but a file is missing, then it refuses, saying what is missing and how to start over, and writes nothing', () => {
    expect(generate(scratch).status).toBe(0);
    rmSync(join(scratch, 'tls', 'data', 'tls.key'));
    rmSync(join(scratch, 'data.env'));

    const run = generate(scratch);

    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`keys: ${join(scratch, 'tls')} exists but lacks tls/data/tls.key;`);
    expect(run.stderr).toContain(`remove ${join(scratch, 'tls')} to have every certificate made again`);
    // Refused before anything was written: the missing keys file is still missing.
    expect(readdirSync(scratch)).not.toContain('data.env');
  });

  it('when a variable is also given to the container, then it wins over the file', () => {
    expect(generate(scratch).status).toBe(0);
    const given = 'b'.repeat(64);

    const env = loadedBy('node', join(scratch, 'identity.env'), { CREDENTIAL_ENCRYPTION_KEY: given });

    expect(env.CREDENTIAL_ENCRYPTION_KEY).toBe(given);
    expect(env.SESSION_SIGNING_KEY).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('when a team brought its own file, then it is kept; when that file lacks a key, then it fails naming the key and writes no other file', () => {
    const own = `PAGE_TOKEN_KEY='${'a1'.repeat(32)}'\n`;
    writeFileSync(join(scratch, 'data.env'), own, { mode: 0o400 });
    expect(generate(scratch).status).toBe(0);
    expect(readFileSync(join(scratch, 'data.env'), 'utf8')).toBe(own);

    const broken = mkdtempSync(join(tmpdir(), 'sandbox-keys-'));
    try {
      // A typo in the name: data would start with a random key of its own.
      writeFileSync(join(broken, 'data.env'), `PAGE_TOKENKEY='${'c'.repeat(43)}'\n`);
      const run = generate(broken);
      expect(run.status).toBe(1);
      expect(run.stderr).toContain('data.env exists but does not set PAGE_TOKEN_KEY');
      expect(run.stderr).not.toContain('c'.repeat(43));
      expect(readdirSync(broken)).toEqual(['data.env']);
    } finally {
      rmSync(broken, { recursive: true, force: true });
    }
  });
});
