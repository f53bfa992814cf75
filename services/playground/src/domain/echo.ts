import { readBody, sha256, type BodyReport } from './body';
import { headerValue, normaliseHeaders } from './headers';
import { jsonAnswer, type Answer, type Inbound } from './http';
import { parseForm } from './query';

/**
 * An answer stays well below gRPC's default 4 MiB message limit on the
 * gateway's side: a 1 MB text of control characters grows six-fold as JSON
 * (\u0000), so a body that would not fit is reported by size and hash.
 */
export const MAX_ECHO_ANSWER_BYTES = 3 * 1024 * 1024;

/** Notes on the method and body together: a body where HTTP gives it no meaning, none where one is expected. */
function methodNotes(method: string, body: BodyReport, contentType: string | undefined): string[] {
  const notes: string[] = [];
  if (body.kind !== 'none') {
    if (method === 'GET' || method === 'HEAD') {
      notes.push(
        `A ${method} with a body is unusual: RFC 9110 9.3.1 gives it no meaning and some servers, proxies and clients drop or refuse it; send data in the query string instead.`,
      );
    } else if (method === 'DELETE') {
      notes.push('A DELETE with a body is legal but has no generally defined meaning (RFC 9110 9.3.5); some servers and proxies drop it.');
    }
  } else {
    if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
      notes.push(`This ${method} carried no body, so body is null. (A JSON ${method} must send an object, even an empty one: {}.)`);
    }
    if (contentType !== undefined) notes.push(`Content-Type says ${JSON.stringify(contentType)} but no body was sent.`);
  }
  return notes;
}

/**
 * GET/POST/PUT/PATCH/DELETE /playground/echo: what arrived, read the way a
 * server reads it: the method, the query (a key given once as a string, a
 * repeated key as an array), the content type, the parsed body, the headers
 * as node combines them, and the client's address.
 */
export function echo(request: Inbound): Answer {
  const contentType = headerValue(request.headers, 'content-type');
  const body = readBody(contentType, request.body);
  const headers = normaliseHeaders(request.headers);
  const notes = [...body.notes, ...methodNotes(request.method, body, contentType)];
  const forwarded = headerValue(request.headers, 'x-forwarded-for');
  if (forwarded !== undefined) {
    notes.push(
      `X-Forwarded-For says ${JSON.stringify(forwarded)}: proxies add it, but any client can send it too, so a server believes it only from a proxy it runs. clientAddress is the connection's own address.`,
    );
  }
  const answer = (reported: BodyReport, extraNotes: string[] = []) => ({
    method: request.method,
    url: `${request.baseUrl}${request.path}${request.rawQuery ? `?${request.rawQuery}` : ''}`,
    path: request.path,
    query: parseForm(request.rawQuery),
    contentType: contentType ?? null,
    body: reported.value,
    bodyKind: reported.kind,
    bodySize: reported.size,
    headers,
    clientAddress: request.remoteAddress,
    httpVersion: request.httpVersion,
    notes: [...notes, ...extraNotes],
  });
  const full = jsonAnswer(answer(body));
  if (full.body.length <= MAX_ECHO_ANSWER_BYTES) return full;
  const asBytes: BodyReport = { kind: 'bytes', value: { size: request.body.length, sha256: sha256(request.body) }, size: request.body.length, notes: [] };
  return jsonAnswer(answer(asBytes, [`The ${body.kind} body is too large to reflect here, so it is reported as its size and sha256.`]));
}
