import type { OutgoingHttpHeaders } from 'node:http';
import { composeGateway, type ComposedGateway, type ComposeOptions } from '../../../src/composition';
import { loadGatewayConfig } from '../../../src/config';
import type { RequestParts } from '../../../src/http/inbound';
import type { Reply } from '../../../src/http/reply';
import { fakeBackend, type Arrangement, type FakeBackend } from './fake-clients';

/** An answer as a test reads it: status, headers by lower-case name, the body as text and, when it is JSON, parsed. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  /** The header by any case. */
  header(name: string): string | string[] | number | undefined;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON body, asserted on by shape
  json: any;
  reply: Reply;
}

export interface Harness extends FakeBackend {
  gateway: ComposedGateway;
  inject(parts: RequestParts): Promise<Answer>;
  get(url: string, headers?: Record<string, string>): Promise<Answer>;
  /** A JSON body (a string is sent as it is). */
  post(url: string, body: unknown, headers?: Record<string, string>): Promise<Answer>;
  stop(): Promise<void>;
}

/**
 * A gateway composed without a socket over fake clients (fake-clients.ts),
 * configured as in production but for what the test's env says. stop() fails
 * the test if any call reached a method the test did not arrange.
 */
export async function startGateway(
  arrangement: Arrangement,
  env: Record<string, string> = {},
  options: Omit<ComposeOptions, 'clients'> = {},
): Promise<Harness> {
  const backend = fakeBackend(arrangement);
  const gateway = await composeGateway(loadGatewayConfig({ LOG_LEVEL: 'silent', GRPC_TLS: 'off', ...env }), { ...options, clients: backend.clients });
  const inject = async (parts: RequestParts) => answerOf(await gateway.inject(parts));
  return {
    ...backend,
    gateway,
    inject,
    get: (url, headers = {}) => inject({ method: 'GET', url, headers }),
    post: (url, body, headers = {}) =>
      inject({
        method: 'POST',
        url,
        headers: { 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async stop() {
      await gateway.stop();
      if (backend.unexpected.length) throw new Error(`calls no test arranged: ${backend.unexpected.join(', ')}`);
    },
  };
}

export async function answerOf(reply: Reply): Promise<Answer> {
  let bytes = reply.body === undefined ? Buffer.alloc(0) : Buffer.from(reply.body);
  if (reply.stream) {
    const chunks: Buffer[] = [];
    for await (const chunk of reply.stream) chunks.push(Buffer.from(chunk as Buffer));
    bytes = Buffer.concat(chunks);
  }
  const text = bytes.toString('utf8');
  const headers = lowerCased(reply.headers);
  let json: unknown;
  if (text && /json/i.test(String(headers['content-type'] ?? ''))) json = JSON.parse(text);
  return { status: reply.status, headers, header: (name) => headers[name.toLowerCase()], text, json, reply };
}

function lowerCased(headers: OutgoingHttpHeaders): Answer['headers'] {
  const out: Answer['headers'] = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

/** The project's one error body (packages/runtime apiErrorBody), with the request id the answer carries. */
export function expectApiError(answer: Answer, status: number, code: string): void {
  expect({ status: answer.status, body: answer.json }).toEqual({
    status,
    body: { error: { code, message: expect.any(String), requestId: answer.headers['x-request-id'] } },
  });
}
