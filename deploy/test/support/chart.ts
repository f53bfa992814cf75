import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/*
 * The chart rendered by the real helm (built into .tools by
 * scripts/lib/helm.sh), for the chart's smaller test files: each feature's
 * file (alerts, store operations, tracing, token signing) renders through
 * this one runner. helm-chart.test.ts keeps its own, which also decides per
 * test whether helm generates the signing key.
 */

export const ROOT = resolve(__dirname, '..', '..', '..');
export const CHART = join(ROOT, 'deploy', 'helm', 'training-sandbox');
export const HELM = join(ROOT, '.tools', 'helm');
/** An image to run, as an operator gives one (the chart refuses to render without). */
export const IMAGE_VALUES = join(ROOT, 'deploy', 'test', 'fixtures', 'image-values.yaml');
export const RELEASE = 'ts';
/** The chart's full name for RELEASE: every object's name starts with it. */
export const PREFIX = `${RELEASE}-training-sandbox`;
export const SERVICES = ['gateway', 'identity', 'oauth', 'data', 'playground'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rendered manifests are untyped YAML
export type Manifest = Record<string, any>;

export interface RenderOptions {
  /** The release's name; RELEASE unless given. */
  release?: string;
  /**
   * Whether the render is given this file's 2048-bit JWT_SIGNING_KEY (the default). Without one, helm
   * generates a 4096-bit key per render, up to a second each: only tests about that key want it.
   */
  givenKey?: boolean;
}

export interface ChartRenderer {
  /** A scratch directory of this file's, removed after its tests (helm's homes live in it). */
  readonly home: string;
  /** `helm template` with an image, the given key and then `args` (which may override both). */
  template(args: string[], options?: RenderOptions): SpawnSyncReturns<string>;
  /** The rendered YAML; throws with helm's message when the render fails. */
  renderText(args?: string[], options?: RenderOptions): string;
  /** The rendered manifests (empty documents left out). */
  render(args?: string[], options?: RenderOptions): Manifest[];
  /** The render fails, and its message names what was wrong. */
  expectRefused(args: string[], message: string, options?: RenderOptions): void;
}

/** Call at the top of a test file: sets up a helm home and a key before the file's tests, and removes them after. */
export function chartRenderer(label: string): ChartRenderer {
  let home = '';
  let signingKey = '';
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), `${label}-`));
    signingKey = join(home, 'jwt-signing-key.pem');
    writeFileSync(signingKey, generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  const template = (args: string[], { release = RELEASE, givenKey = true }: RenderOptions = {}) => {
    const key = givenKey ? ['--set-file', `secrets.values.JWT_SIGNING_KEY=${signingKey}`] : [];
    const result = spawnSync(HELM, ['template', release, CHART, '--namespace', 'sandbox', '-f', IMAGE_VALUES, ...key, ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, HELM_CACHE_HOME: join(home, 'cache'), HELM_CONFIG_HOME: join(home, 'config'), HELM_DATA_HOME: join(home, 'data') },
    });
    if (result.error) throw result.error;
    return result;
  };
  const renderText = (args: string[] = [], options?: RenderOptions) => {
    const { status, stdout, stderr } = template(args, options);
    if (status !== 0) throw new Error(`helm template failed (${status}): ${stderr}`);
    return stdout;
  };
  return {
    get home() {
      return home;
    },
    template,
    renderText,
    render: (args = [], options) =>
      parseAllDocuments(renderText(args, options))
        .map((document) => document.toJS() as Manifest | null)
        .filter((manifest): manifest is Manifest => manifest !== null),
    expectRefused: (args, message, options) => {
      const { status, stderr } = template(args, options);
      expect(status).not.toBe(0);
      expect(stderr).toContain(message);
    },
  };
}

/** The one manifest of that kind and name; throws naming it when there is none. */
export function findManifest(manifests: Manifest[], kind: string, name: string): Manifest {
  const found = manifests.find((manifest) => manifest.kind === kind && manifest.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}
