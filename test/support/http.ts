import http from 'node:http';
import https from 'node:https';
import { connect, type AddressInfo } from 'node:net';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  json<T = any>(): T; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/**
 * A plain HTTP(S) request with nothing added: exact headers, any method, any
 * body bytes, and self-signed certificates accepted (for the TLS test).
 */
export function rawRequest(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {},
): Promise<RawResponse> {
  const target = new URL(url);
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    // localAddress: any of 127.0.0.0/8, for tests that need several client addresses.
    // A body always travels with its length: node sends a GET's body unframed otherwise, which the server reads as the next request.
    const headers =
      options.body !== undefined && !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'content-length')
        ? { ...options.headers, 'Content-Length': String(Buffer.byteLength(options.body)) }
        : options.headers;
    const requestOptions = { method: options.method ?? 'GET', headers, rejectUnauthorized: false, localAddress: options.localAddress };
    const req = client.request(target, requestOptions, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
      });
    });
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** Polls until the predicate holds, or fails with the last value seen. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs: number,
  intervalMs = 50,
): Promise<{ value: T; elapsedMs: number }> {
  const started = Date.now();
  let value = await probe();
  while (!accept(value)) {
    if (Date.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, intervalMs));
    value = await probe();
  }
  return { value, elapsedMs: Date.now() - started };
}

/** A call to the API as a portal or a script makes it: JSON body, optional Bearer token. */
export function apiRequest(
  baseUrl: string,
  method: string,
  path: string,
  options: { body?: unknown; token?: string; headers?: Record<string, string>; localAddress?: string } = {},
): Promise<RawResponse> {
  return rawRequest(`${baseUrl}${path}`, {
    method,
    localAddress: options.localAddress,
    headers: {
      ...(options.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body:
      options.body === undefined ? undefined : typeof options.body === 'string' || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body),
  });
}

/**
 * Writes bytes as they are (no client library would send a malformed request)
 * and reads until the server closes (or `waitMs` passes).
 */
export function rawSocketExchange(baseUrl: string, request: string | Buffer, waitMs = 10_000): Promise<string> {
  return rawSocketSession(baseUrl, request, waitMs).then((session) => session.answer);
}

/** As rawSocketExchange, saying also whether the server closed the connection, and how soon. */
export function rawSocketSession(baseUrl: string, request: string | Buffer, waitMs = 10_000): Promise<{ answer: string; closed: boolean; ms: number }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname, () => socket.write(typeof request === 'string' ? Buffer.from(request, 'utf8') : request));
    let answer = '';
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ answer, closed: false, ms: Date.now() - started });
    }, waitMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('end', () => {
      clearTimeout(timer);
      resolve({ answer, closed: true, ms: Date.now() - started });
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export interface PrefixProxy {
  /** The proxy's own origin, e.g. http://127.0.0.1:41234; the sandbox is under `${url}${prefix}`. */
  url: string;
  close(): Promise<void>;
}

/**
 * A reverse proxy as an ingress would be: `${prefix}/*` forwarded to the
 * gateway with the prefix stripped, saying so with X-Forwarded-Prefix, -Host,
 * -Proto and -For (the gateway honours them with TRUST_PROXY=true).
 */
export function startPrefixProxy(target: string, prefix = '/sandbox'): Promise<PrefixProxy> {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    if (!req.url?.startsWith(`${prefix}/`) && req.url !== prefix) {
      res.writeHead(404).end();
      return;
    }
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url.slice(prefix.length) || '/',
        headers: {
          ...req.headers,
          'x-forwarded-prefix': prefix,
          'x-forwarded-host': req.headers.host ?? '',
          'x-forwarded-proto': 'http',
          'x-forwarded-for': req.socket.remoteAddress ?? '',
        },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
      }),
    ),
  );
}
