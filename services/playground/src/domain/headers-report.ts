import { playgroundApi } from '@sandbox/contracts';
import { normaliseHeaders, repeatedHeaderNotes } from './headers';
import { jsonAnswer, type Answer, type Inbound } from './http';

/**
 * /playground/headers: every header line exactly as it arrived (original
 * case, original order, repeats kept) beside the map a node server works
 * with, and what the normalising did to each repeated name.
 */
export function headersReport(request: Inbound): Answer {
  const notes = repeatedHeaderNotes(request.headers);
  notes.push(/^[23]/.test(request.httpVersion) ? playgroundApi.headerCaseLostNote(request.httpVersion) : playgroundApi.HEADER_CASE_KEPT_NOTE);
  return jsonAnswer({
    received: request.headers.map(({ name, value }) => ({ name, value })),
    count: request.headers.length,
    normalised: normaliseHeaders(request.headers),
    httpVersion: request.httpVersion,
    notes,
  });
}
