import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { apiErrorBody } from '@sandbox/runtime';
import { OPEN_CORS_HEADERS } from './cors';
import { SECURITY_HEADERS } from './security-headers';

/** What node's parser reports, as our status and code. */
const PARSER_ERRORS: Record<string, { status: number; code: string; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', message: 'The request headers are larger than the server accepts.' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', message: 'The request was not completed in time.' },
};
const MALFORMED = {
  status: 400,
  code: 'malformed_request',
  message: 'The request is not valid HTTP/1.1 (for example, a raw non-ASCII character in the URL: percent-encode it).',
};

/**
 * A request node's HTTP parser refuses never reaches a handler, and node
 * answers it with a bare status line. This answers it in the one error shape
 * instead, so a learner's hand-made request gets a reason. (There is no
 * request object yet: the response is written to the socket directly.)
 */
export function answerClientError(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const { status, code, message } = PARSER_ERRORS[error.code ?? ''] ?? MALFORMED;
  writeRefusal(socket, status, code, message);
}

/** CONNECT asks for a tunnel, which node hands over as a bare socket: this is not a proxy, so it is refused in the error shape. */
export function answerConnect(_req: unknown, socket: Duplex): void {
  writeRefusal(socket, 405, 'method_not_allowed', 'CONNECT is not served: the sandbox is not a proxy. Send GET, POST, PUT, PATCH or DELETE to a path.');
}

/** A refusal in the one error shape, with every header an answer carries, written straight to the socket, which is then closed. */
function writeRefusal(socket: Duplex, status: number, code: string, message: string): void {
  const requestId = randomUUID();
  const body = JSON.stringify(apiErrorBody(code, message, requestId));
  const headers = {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    'X-Request-Id': requestId,
    ...SECURITY_HEADERS,
    ...OPEN_CORS_HEADERS,
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`);
}
