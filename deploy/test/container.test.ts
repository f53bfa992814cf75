import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';

// The Dockerfile and docker-compose.yml cannot be built or run here (no Docker
// engine), so check what can drift without one: every workspace reaches the
// image, and every process in the compose file runs hardened, health-checked
// and in dependency order.

const ROOT = resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces;
const SANDBOX = ['gateway', 'identity', 'oauth', 'data', 'playground'];

describe('the Dockerfile', () => {
  const dockerfile = read('Dockerfile');

  it.each(workspaces)('when %s is a workspace, then its package.json is installed and its dist copied into the image', (workspace) => {
    expect(dockerfile).toContain(`COPY ${workspace}/package.json ${workspace}/`);
    expect(dockerfile).toContain(`COPY --from=build /app/${workspace}/dist/ ${workspace}/dist/`);
  });

  it('when the image runs, then it runs as a numeric non-root user with production dependencies only', () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER 10001:10001$/m);
    expect(dockerfile).toContain('npm ci --omit=dev');
    expect(runtime).not.toMatch(/COPY --from=build \/app\/node_modules/);
    expect(runtime).not.toMatch(/^(ENV|ARG) .*(KEY|SECRET|PASSWORD|MONGO_URL|REDIS_URL)/m);
  });

  it('when the build context is filtered, then host node_modules, dist and local state stay out', () => {
    const ignored = read('.dockerignore').split('\n');
    for (const entry of ['**/node_modules', '**/dist', '.git', '.tools', '.test-state', '.env']) expect(ignored).toContain(entry);
  });
});

describe('docker-compose.yml', () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- compose YAML is untyped
  const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, any> };

  it('when the stack starts, then it has MongoDB 7, Redis 7 and the five processes from one image', () => {
    expect(compose.services.mongo.image).toBe('mongo:7');
    expect(compose.services.redis.image).toBe('redis:7');
    const images = new Set(SANDBOX.map((name) => compose.services[name].image));
    expect(images.size).toBe(1);
    for (const name of SANDBOX) expect(compose.services[name].command).toEqual(['node', `services/${name}/dist/main.js`]);
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

  it('when the stack starts, then each process waits until what it calls is healthy', () => {
    const waitsFor = (name: string) =>
      Object.entries(compose.services[name].depends_on ?? {})
        .filter(([, dependency]) => (dependency as { condition: string }).condition === 'service_healthy')
        .map(([dependency]) => dependency)
        .sort();
    expect(waitsFor('gateway')).toEqual(['data', 'identity', 'oauth', 'playground']);
    expect(waitsFor('oauth')).toEqual(['identity', 'redis']);
    expect(waitsFor('identity')).toEqual(['mongo', 'redis']);
  });

  it('when example keys are given, then they say they are for development only', () => {
    const keys = ['CREDENTIAL_ENCRYPTION_KEY', 'SESSION_SIGNING_KEY', 'PAGE_TOKEN_KEY'];
    for (const name of SANDBOX) {
      for (const [variable, value] of Object.entries(compose.services[name].environment as Record<string, string>)) {
        if (keys.includes(variable)) expect(value).toMatch(new RegExp(`^\\$\\{${variable}:-dev-only-`));
      }
    }
  });
});
