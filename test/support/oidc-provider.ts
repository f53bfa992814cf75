import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { rawRequest, type RawResponse } from './http';
import { compileCache } from './node-env';

/*
 * Kept out of index.ts, like browser.ts: only the single sign-on tests start
 * an OpenID provider. The provider itself is oidc-provider-fixture.mjs (see
 * there); this starts it, registers clients, and drives a browser's part of
 * a sign-in by hand (redirects followed, forms posted, cookies carried).
 */

const FIXTURE = join(__dirname, 'oidc-provider-fixture.mjs');

export interface ClientMetadata {
  client_id: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: 'none' | 'client_secret_basic' | 'client_secret_post';
  client_secret?: string;
  [name: string]: unknown;
}

export interface OidcProviderFixture {
  issuer: string;
  jwksUrl: string;
  /** Registers (or replaces) a client; the provider validates it at once. */
  registerClient(metadata: ClientMetadata): Promise<void>;
  /** What the process printed. */
  output(): string;
  stop(): Promise<void>;
}

/** The fixture provider in a process of its own, on 127.0.0.1 and a port of the kernel's choice. */
export async function startOidcProvider(env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<OidcProviderFixture> {
  const child = spawn(process.execPath, [FIXTURE], { env: { PATH: process.env.PATH, ...compileCache(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const issuer = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`the OpenID provider fixture did not start within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const watch = () => {
      const ready = /OIDC_PROVIDER_READY (\S+)/.exec(output);
      if (!ready) return;
      clearTimeout(timer);
      child.stdout.off('data', watch);
      resolve(ready[1]!);
    };
    child.stdout.on('data', watch);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the OpenID provider fixture exited with ${code}:\n${output}`));
    });
  });
  return {
    issuer,
    jwksUrl: `${issuer}/jwks`,
    async registerClient(metadata) {
      const res = await rawRequest(`${issuer}/__fixture/clients`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(metadata),
      });
      if (res.status !== 200) throw new Error(`the provider refused the client: ${res.body}`);
    },
    output: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
  expiresAt: number;
}

/**
 * A browser's cookie jar, as far as these tests need one: cookies belong to
 * a host (not a port, as in browsers), and go with requests under their path
 * while they live. SameSite is not modelled: every request here is one a
 * browser would send them with (top-level navigations, and the page's own
 * same-origin call).
 */
export class CookieJar {
  private cookies: StoredCookie[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  store(url: URL, setCookie: string | string[] | undefined): void {
    for (const line of [setCookie ?? []].flat()) {
      const [pair, ...attributes] = line.split(';').map((part) => part.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      let path = url.pathname.slice(0, url.pathname.lastIndexOf('/')) || '/';
      let expiresAt = Infinity;
      for (const attribute of attributes) {
        const [key, val = ''] = attribute.split('=');
        if (key!.toLowerCase() === 'path') path = val;
        if (key!.toLowerCase() === 'max-age') expiresAt = this.now() + Number(val) * 1000;
        if (key!.toLowerCase() === 'expires' && expiresAt === Infinity) expiresAt = Date.parse(val);
      }
      this.cookies = this.cookies.filter((c) => !(c.name === name && c.host === url.hostname && c.path === path));
      if (expiresAt > this.now() && value !== '') this.cookies.push({ name, value, host: url.hostname, path, expiresAt });
    }
  }

  /** The Cookie header for a request to `url`, if any cookie goes with it. */
  header(url: URL): string | undefined {
    const now = this.now();
    const sent = this.cookies.filter(
      (c) => c.host === url.hostname && c.expiresAt > now && (url.pathname === c.path || url.pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`)),
    );
    return sent.length ? sent.map((c) => `${c.name}=${c.value}`).join('; ') : undefined;
  }

  get(name: string): string | undefined {
    return this.cookies.find((c) => c.name === name)?.value;
  }
}

export interface Visit {
  url: URL;
  response: RawResponse;
}

/**
 * A browser's part of a sign-in, by hand: each request carries the jar's
 * cookies and keeps what it sets; redirects are followed (303 and 302 as a
 * GET) until an answer that is not one, or until `stopAt` says the URL is
 * where the test takes over (the portal, which is a page, not an API).
 */
export class HandBrowser {
  readonly visits: Visit[] = [];

  constructor(readonly jar = new CookieJar()) {}

  async request(url: URL, options: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}): Promise<RawResponse> {
    const cookie = this.jar.header(url);
    const body = options.form ? new URLSearchParams(options.form).toString() : undefined;
    const response = await rawRequest(url.href, {
      method: options.method ?? (body !== undefined ? 'POST' : 'GET'),
      headers: {
        ...(cookie ? { Cookie: cookie } : {}),
        ...(body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        ...options.headers,
      },
      body,
    });
    this.jar.store(url, response.headers['set-cookie']);
    this.visits.push({ url, response });
    return response;
  }

  /** Follows redirects from `url`; answers the last URL and its response (or the URL it stopped at, unrequested). */
  async follow(url: URL, options: { form?: Record<string, string>; stopAt?: (url: URL) => boolean } = {}): Promise<{ url: URL; response?: RawResponse }> {
    let current = url;
    let response = await this.request(current, { form: options.form });
    for (let hops = 0; hops < 20 && response.status >= 300 && response.status < 400; hops++) {
      current = new URL(String(response.headers.location), current);
      if (options.stopAt?.(current)) return { url: current };
      response = await this.request(current);
    }
    return { url: current, response };
  }

  /** The one form on an HTML page: where it posts, and its named inputs' values. */
  static form(html: string, base: URL): { action: URL; fields: Record<string, string> } {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
    if (!form) throw new Error(`no form on the page:\n${html.slice(0, 2000)}`);
    const fields: Record<string, string> = {};
    for (const input of form[2]!.matchAll(/<input[^>]*>/gi)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      if (name) fields[name] = /value="([^"]*)"/.exec(input[0])?.[1] ?? '';
    }
    return { action: new URL(form[1]!.replace(/&amp;/g, '&'), base), fields };
  }

  /** A link on an HTML page, by its text. */
  static link(html: string, text: string, base: URL): URL {
    const link = new RegExp(`<a[^>]*href="([^"]*)"[^>]*>\\s*${text}\\s*</a>`, 'i').exec(html);
    if (!link) throw new Error(`no link "${text}" on the page`);
    return new URL(link[1]!.replace(/&amp;/g, '&'), base);
  }
}

/**
 * Signs in at the fixture's pages from wherever the provider's authorization
 * endpoint led: the login form, then the consent form, then redirects until
 * `stopAt` (the relying party's callback, or past it).
 */
export async function signInAtProvider(
  browser: HandBrowser,
  loginPage: Visit,
  account: { login: string; password: string },
  stopAt?: (url: URL) => boolean,
): Promise<{ url: URL; response?: RawResponse }> {
  const login = HandBrowser.form(loginPage.response.body, loginPage.url);
  let step = await browser.follow(login.action, { form: { ...login.fields, login: account.login, password: account.password }, stopAt });
  if (step.response && /name="login"/.test(step.response.body)) throw new Error('the provider refused the login');
  if (step.response?.status === 200 && /<form/.test(step.response.body)) {
    const consent = HandBrowser.form(step.response.body, step.url);
    step = await browser.follow(consent.action, { form: consent.fields, stopAt });
  }
  return step;
}

/** PKCE by hand (RFC 7636, S256), for a test that plays a relying party of its own against the fixture. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
