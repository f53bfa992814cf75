import { normaliseHeaders, repeatedHeaderNotes } from './headers';
import { jsonAnswer, type Answer, type Inbound } from './http';

/**
 * /playground/headers: every header line exactly as it arrived (original
 * case, original order, repeats kept) beside the map a node server works
 * with, and what the normalising did to each repeated name.
 */
export function headersReport(request: Inbound): Answer {
  const notes = repeatedHeaderNotes(request.headers);
  notes.push(
    /^[23]/.test(request.httpVersion)
      ? `HTTP/${request.httpVersion} sends header names in lower case, so the case your client wrote is gone before any server sees it.`
      : 'Header names keep the case your client wrote; HTTP says they are case-insensitive (RFC 9110 5.1), so servers compare them in lower case, as the normalised map does.',
  );
  return jsonAnswer({
    received: request.headers.map(({ name, value }) => ({ name, value })),
    count: request.headers.length,
    normalised: normaliseHeaders(request.headers),
    httpVersion: request.httpVersion,
    notes,
  });
}
