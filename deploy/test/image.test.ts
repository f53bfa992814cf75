import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { freePort, isolatedMongoUrl, requireStoreUrls, uniqueId } from '@sandbox/testing';

// The image, for real: `npm run image` builds the Dockerfile with buildah, then
// every process runs from it with podman, hardened as the chart and compose run
// them (UID 10001, read-only root, no capabilities, no writable path), against
// the test run's real stores, with the keys the compose file's `keys` service
// makes, and the smoke test and the operators' CLI run from it too.

const ROOT = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const exec = promisify(execFile);
/** buildah and podman read the project's settings, not the machine's (deploy/image/containers.conf says why). */
const CONTAINER_ENV = { ...process.env, CONTAINERS_CONF: join(ROOT, 'deploy', 'image', 'containers.conf') };
const BUILD_TIMEOUT_MS = 25 * 60_000;
const STEP_TIMEOUT_MS = 120_000;

/** How the chart and compose run every process: nothing in the container may be changed by it. */
const HARDENED = [
  '--read-only',
  '--read-only-tmpfs=false', // no /tmp, /run or /var/tmp tmpfs either
  '--ipc',
  'none', // no /dev/shm
  '--user',
  '10001:10001',
  '--cap-drop',
  'ALL',
  '--security-opt',
  'no-new-privileges',
];

type Run = { code: number; stdout: string; stderr: string };
async function podman(args: string[], timeout = STEP_TIMEOUT_MS): Promise<Run> {
  try {
    const { stdout, stderr } = await exec('podman', args, { env: CONTAINER_ENV, timeout, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number | string; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? String(error) };
  }
}

const envFile = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line.includes('='))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

let build: Record<string, string>;
let image: string;
const label = uniqueId('ts-image-');
const keysVolume = `${label}-keys`;
const started: string[] = [];

beforeAll(async () => {
  try {
    await exec('bash', ['deploy/image/build.sh'], { cwd: ROOT, env: CONTAINER_ENV, timeout: BUILD_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const failed = error as { stderr?: string };
    throw new Error(`npm run image failed:\n${(failed.stderr ?? String(error)).slice(-4000)}`);
  }
  build = envFile(read('.image/build.env'));
  image = build.IMAGE!;
  expect((await podman(['volume', 'create', keysVolume])).code).toBe(0);
}, BUILD_TIMEOUT_MS + STEP_TIMEOUT_MS);

afterAll(async () => {
  if (started.length > 0) await podman(['rm', '--force', '--time', '2', ...started]);
  await podman(['volume', 'rm', '--force', keysVolume]);
}, STEP_TIMEOUT_MS);

describe('the built image', () => {
  it('when it is built, then the archive, its size and both package lists are recorded', () => {
    expect(build.IMAGE_ID).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(Number(build.SIZE_BYTES)).toBeGreaterThan(50_000_000);
    expect(Number(build.ARCHIVE_BYTES)).toBeGreaterThan(10_000_000);
    const debianPackages = read('.image/debian-packages.txt')
      .split('\n')
      .map((line) => line.split(' ')[0]);
    expect(debianPackages).toEqual(expect.arrayContaining(['libc6', 'libstdc++6', 'passwd']));
  });

  it("when its SBOM is read, then it lists exactly the npm packages in the image's node_modules", async () => {
    const sbom = JSON.parse(read('.image/sbom.cdx.json')) as { bomFormat: string; components: { group?: string; name: string; version: string }[] };
    expect(sbom.bomFormat).toBe('CycloneDX');
    const listed = new Set(sbom.components.map((c) => `${c.group ? `${c.group}/` : ''}${c.name}@${c.version}`));
    // Every package.json under /app/node_modules, nested ones and the linked workspaces included.
    const walk = `
      const fs = require('node:fs'), path = require('node:path');
      const found = new Set();
      const visit = (dir) => {
        for (const entry of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
          if (entry.startsWith('.')) continue;
          if (entry.startsWith('@')) { visit(path.join(dir, entry)); continue; }
          const pkg = path.join(dir, entry);
          const { name, version } = JSON.parse(fs.readFileSync(path.join(pkg, 'package.json'), 'utf8'));
          found.add(name + '@' + version);
          visit(path.join(pkg, 'node_modules'));
        }
      };
      visit('/app/node_modules');
      console.log(JSON.stringify([...found].sort()));`;
    const { code, stdout, stderr } = await podman(['run', '--rm', ...HARDENED, '--network', 'none', image, 'node', '-e', walk]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect([...listed].sort()).toEqual(JSON.parse(stdout));
    // What the services run on is there; what only the tests and the build use is not.
    expect([...listed].map((p) => p.replace(/@[^@]*$/, ''))).toEqual(expect.arrayContaining(['@grpc/grpc-js', 'express', 'mongoose', 'ioredis', 'pino']));
    expect([...listed].some((p) => /^(jest|typescript|vite)@/.test(p))).toBe(false);
  });

  it("when its node runs, then it is the Dockerfile's major and the same major as this suite's", async () => {
    const dockerfileMajor = /^ARG NODE_IMAGE=node:(\d+)-/m.exec(read('Dockerfile'))![1];
    const { code, stdout } = await podman(['run', '--rm', ...HARDENED, '--network', 'none', image, 'node', '-p', 'process.versions.node']);
    expect(code).toBe(0);
    expect({ image: stdout.trim().split('.')[0], suite: process.versions.node.split('.')[0] }).toEqual({ image: dockerfileMajor, suite: dockerfileMajor });
  });

  it('when a process runs in it hardened, then it is UID 10001 with no capability and no path it can write', async () => {
    // Every mount the process sees, each tried with a new file: the root, /tmp, /dev and the rest.
    const probe = `
      const fs = require('node:fs');
      const mounts = fs.readFileSync('/proc/self/mounts', 'utf8').trim().split('\\n').map((line) => line.split(' ')[1]);
      const writable = [];
      for (const dir of new Set(['/', '/app', '/tmp', '/var/tmp', '/run', '/home', '/dev/shm', ...mounts])) {
        const file = dir.replace(/\\/$/, '') + '/.write-probe';
        try { fs.writeFileSync(file, 'x'); writable.push(dir); fs.rmSync(file); } catch {}
      }
      const capEff = /CapEff:\\s*(\\S+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))[1];
      console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), capEff, writable }));`;
    const { code, stdout, stderr } = await podman(['run', '--rm', ...HARDENED, '--network', 'none', image, 'node', '-e', probe]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(stdout)).toEqual({ uid: 10001, gid: 10001, capEff: '0000000000000000', writable: [] });
  });

  it(
    "when the compose file's keys service runs from it twice, then it writes each service's keys once and keeps them",
    async () => {
      const keys = [
        'run',
        '--rm',
        ...HARDENED,
        '--network',
        'none',
        '--volume',
        `${keysVolume}:/run/sandbox-keys`,
        image,
        'node',
        'deploy/docker/generate-keys.cjs',
        '/run/sandbox-keys',
      ];
      const first = await podman(keys);
      expect(first.code).toBe(0);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      expect(first.stdout).toMatch(/identity\.env written[\s\S]*oauth\.env written[\s\S]*data\.env written[\s\S]*tls written/);
      const second = await podman(keys);
      expect(second.stdout).toMatch(/identity\.env kept[\s\S]*oauth\.env kept[\s\S]*data\.env kept[\s\S]*tls kept/);
      // Values are never printed.
      expect(first.stdout + first.stderr).not.toMatch(/PRIVATE KEY|CERTIFICATE|=[A-Za-z0-9_-]{40,}/);
    },
    2 * STEP_TIMEOUT_MS,
  );

  it("when the operators' CLI is asked for help in it, then sandbox-admin answers with its commands", async () => {
    const { code, stdout } = await podman(['run', '--rm', ...HARDENED, '--network', 'none', image, 'sandbox-admin', '--help']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: .*sandbox-admin <command>/m);
    expect(stdout).toMatch(/^ {2}users\b/m);
  });
});

describe('every process started from the image', () => {
  const SERVICES = ['identity', 'oauth', 'data', 'playground', 'gateway'] as const;
  const GRPC = ['identity', 'oauth', 'data', 'playground'] as const;
  type Compose = { services: Record<string, { command: string[]; environment?: Record<string, string | null>; healthcheck?: { test: string[] } }> };
  const compose = parse(read('docker-compose.yml'), { merge: true }) as Compose;
  let gatewayUrl: string;
  let ports: Record<string, number>;
  /** What every container here gets on top of the compose file's environment: loopback ports and addresses. */
  let common: Record<string, string>;
  /** A compose service's environment, ${VAR:-default} resolved as compose does, with `extra` on top. */
  const environmentFlags = (service: string, extra: Record<string, string>) => {
    const composed = Object.entries(compose.services[service]!.environment ?? {})
      .filter((entry): entry is [string, string] => typeof entry[1] === 'string')
      .map(([k, v]) => [k, v.replace(/\$\{\w+:-([^}]*)\}/g, '$1')]);
    return Object.entries({ ...Object.fromEntries(composed), ...extra }).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  };

  beforeAll(async () => {
    const { mongoUrl, redisUrl } = requireStoreUrls();
    expect(mongoUrl).toBeTruthy();
    // On the host's network, every process needs ports of its own and loopback addresses instead of compose's.
    ports = { PORT: await freePort() };
    for (const service of GRPC) {
      ports[`${service.toUpperCase()}_GRPC_PORT`] = await freePort();
      ports[`${service.toUpperCase()}_HEALTH_PORT`] = await freePort();
    }
    gatewayUrl = `http://127.0.0.1:${ports.PORT}`;
    common = {
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
      ...Object.fromEntries(
        GRPC.flatMap((service) => [
          [`${service.toUpperCase()}_GRPC_HOST`, '127.0.0.1'],
          [`${service.toUpperCase()}_GRPC_ADDR`, `127.0.0.1:${ports[`${service.toUpperCase()}_GRPC_PORT`]}`],
        ]),
      ),
    };
    const own: Record<(typeof SERVICES)[number], Record<string, string>> = {
      identity: { MONGO_URL: isolatedMongoUrl('image'), REDIS_URL: redisUrl },
      oauth: { REDIS_URL: redisUrl },
      data: {},
      playground: {},
      gateway: {},
    };
    // Each process's command is the compose file's own (the keys it loads with --env-file included), and so is
    // its environment (mutual TLS, its certificate's directory in the keys volume, its health port's variable),
    // with ${VAR:-default} as compose resolves it, but for the ports and addresses above and the test's stores.
    for (const service of SERVICES) {
      const name = `${label}-${service}`;
      const env = environmentFlags(service, { ...common, ...own[service] });
      const run = await podman([
        'run',
        '--detach',
        '--name',
        name,
        ...HARDENED,
        '--network',
        'host',
        '--volume',
        `${keysVolume}:/run/sandbox-keys:ro`,
        ...env,
        image,
        ...compose.services[service]!.command,
      ]);
      expect({ service, code: run.code, stderr: run.stderr }).toEqual({ service, code: 0, stderr: '' });
      started.push(name);
    }
  }, SERVICES.length * STEP_TIMEOUT_MS);

  it(
    'when the smoke test runs from the image against them, then every step passes',
    async () => {
      const { code, stdout, stderr } = await podman(
        ['run', '--rm', ...HARDENED, '--network', 'host', '--env', 'SMOKE_READY_SECONDS=90', image, 'node', 'deploy/docker/smoke-test.cjs', gatewayUrl],
        3 * STEP_TIMEOUT_MS,
      );
      const logs =
        code === 0 ? '' : (await Promise.all(started.map((name) => podman(['logs', '--tail', '20', name])))).map((r) => r.stdout + r.stderr).join('\n');
      expect({ code, stderr, logs }).toEqual({ code: 0, stderr: '', logs: '' });
      const steps = stdout
        .trim()
        .split('\n')
        .filter((line) => !line.startsWith('# '));
      expect(steps.length).toBeGreaterThanOrEqual(5);
      expect(steps.filter((line) => !line.startsWith('ok - '))).toEqual([]);
      expect(stdout).toMatch(/^# all passed$/m);
    },
    4 * STEP_TIMEOUT_MS,
  );

  it(
    "when compose's healthcheck runs in each gRPC service's container, then the plaintext health port answers SERVING and the gRPC port, which wants a certificate, does not answer it",
    async () => {
      for (const service of GRPC) {
        const test = compose.services[service]!.healthcheck!.test;
        expect(test.slice(0, 4)).toEqual(['CMD', 'node', 'deploy/docker/healthcheck.cjs', 'grpc']);
        const onHealthPort = await podman(['exec', `${label}-${service}`, ...test.slice(1, 4), String(ports[`${service.toUpperCase()}_HEALTH_PORT`])]);
        expect({ service, code: onHealthPort.code, stderr: onHealthPort.stderr }).toEqual({ service, code: 0, stderr: '' });
        const onGrpcPort = await podman(['exec', `${label}-${service}`, ...test.slice(1, 4), String(ports[`${service.toUpperCase()}_GRPC_PORT`])]);
        expect({ service, code: onGrpcPort.code }).toEqual({ service, code: 1 });
        expect(onGrpcPort.stderr).toMatch(/^unhealthy: /m);
      }
    },
    2 * STEP_TIMEOUT_MS,
  );

  it(
    "when the operators' CLI runs from the image as compose's admin service does, then its own certificate lets it act, and the gateway's does not",
    async () => {
      const admin = compose.services.admin!;
      const asAdmin = (extra: Record<string, string>) =>
        podman([
          'run',
          '--rm',
          ...HARDENED,
          '--network',
          'host',
          '--volume',
          `${keysVolume}:/run/sandbox-keys:ro`,
          ...environmentFlags('admin', { ...common, ...extra }),
          image,
          admin.command[0]!,
          'users',
          '--json',
        ]);
      const own = await asAdmin({});
      expect({ code: own.code, stderr: own.stderr }).toEqual({ code: 0, stderr: '' });
      expect(JSON.parse(own.stdout)).toMatchObject({ users: expect.any(Array), total: expect.any(Number) });
      const borrowed = await asAdmin({ GRPC_TLS_DIR: '/run/sandbox-keys/tls/gateway' });
      expect(borrowed.code).toBe(1);
      expect(borrowed.stderr).toMatch(/\(operator_required\)/);
    },
    2 * STEP_TIMEOUT_MS,
  );

  it('when they run, then each is still up, as UID 10001, from the image', async () => {
    const { stdout } = await podman(['inspect', '--format', '{{.Name}} {{.State.Status}} {{.Config.User}} {{.ImageName}}', ...started]);
    expect(stdout.trim().split('\n').sort()).toEqual(
      started.map((name) => `${name} running 10001:10001 ${image.includes('/') ? image : `localhost/${image}`}`).sort(),
    );
  });
});
