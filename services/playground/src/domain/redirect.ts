import { playgroundApi } from '@sandbox/contracts';
import { AppError, invalidArgument, quoteInput } from '@sandbox/runtime';
import { readBody, sha256, type BodyReport } from './body';
import { headerValue } from './headers';
import { basePath, jsonAnswer, type Answer, type Inbound } from './http';
import { invalidParameter, Query } from './query';

export const REDIRECT_PATH = '/playground/redirect';
export const REDIRECT_STATUSES: readonly number[] = [301, 302, 307, 308];
export const { MAX_REDIRECTS } = playgroundApi;
/** How the trail is kept in the Location: `METHOD-bytes` per request, joined by dots (all URL-safe, nothing to escape). */
const TRAIL_ENTRY = /^([A-Za-z]{1,16})-([0-9]{1,10})$/;

/** One request of the chain as it arrived. */
interface Arrival {
  method: string;
  bodyBytes: number;
}

/** What a client does with each redirect status, in words (the words are the contract's, so the gateway's examples quote them). */
export const { REDIRECT_MEANING } = playgroundApi;

function readTrail(value: string | undefined, hop: number): Arrival[] {
  const entries = value === undefined || value === '' ? [] : value.split('.');
  const parsed = entries.map((entry) => TRAIL_ENTRY.exec(entry));
  if (entries.length !== hop || parsed.some((match) => match === null)) {
    throw invalidParameter(
      `trail must hold one METHOD-bytes entry per redirect already followed (hop=${hop} needs ${hop}), joined by dots; got ${quoteInput(value ?? '')}. ` +
        'This endpoint writes it into each Location: follow the Location rather than editing it.',
    );
  }
  return parsed.map((match) => ({ method: match![1], bodyBytes: Number(match![2]) }));
}

/** The body of the last request, reported as the echo would, but never refused: the chain is over, so it is shown whatever it is. */
function arrivedBody(request: Inbound): { contentType: string | null } & Pick<BodyReport, 'kind' | 'value' | 'size' | 'notes'> {
  const contentType = headerValue(request.headers, 'content-type');
  let report: BodyReport;
  try {
    report = readBody(contentType, request.body);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    report = { kind: 'bytes', value: { size: request.body.length, sha256: sha256(request.body) }, size: request.body.length, notes: [error.message] };
  }
  return { contentType: contentType ?? null, kind: report.kind, value: report.value, size: report.size, notes: report.notes };
}

/** What the trail shows about methods and bodies, in words. */
function verdict(status: number, trail: Arrival[]): string {
  const first = trail[0];
  const changedAt = trail.findIndex((arrival) => arrival.method !== first.method);
  const keeps = status === 307 || status === 308;
  if (changedAt > 0) {
    const was = trail[changedAt - 1];
    const now = trail[changedAt];
    return keeps
      ? `Your client changed ${was.method} into ${now.method} after redirect ${changedAt}, which a ${status} forbids: it must repeat the same method and body.`
      : `Your client turned ${was.method} into ${now.method} after redirect ${changedAt}${now.bodyBytes === 0 && was.bodyBytes > 0 ? ' and dropped the body' : ''}, as clients do with a ${status}; use 307 or 308 to keep the method and body.`;
  }
  const bodyChanged = trail.some((arrival) => arrival.bodyBytes !== first.bodyBytes);
  if (bodyChanged) return `The method stayed ${first.method} on every request, but the body size changed along the way (see trail).`;
  return keeps || first.method === 'GET' || first.method === 'HEAD'
    ? `The method (${first.method}) and the body (${first.bodyBytes} bytes) arrived unchanged on every request${keeps ? `, as a ${status} requires` : ''}.`
    : `Your client kept ${first.method} and its body through every ${status}; most clients turn a POST into a GET here, which RFC 9110 allows.`;
}

/**
 * /playground/redirect?n=&status=: a chain of n redirects, each answered
 * with `status` and a relative Location on this host (under the public base
 * path, so it works behind a proxy prefix; never another host), carrying the
 * hop count and the trail of what arrived so far; the request after the last
 * redirect gets a 200 that shows the trail and the method and body that
 * arrived, so a learner sees 301/302 turn a POST into a GET while 307/308
 * keep it.
 */
export function redirect(request: Inbound): Answer {
  const query = new Query(request.rawQuery);
  const n = query.integer('n', 1, `a whole number of redirects from 1 to ${MAX_REDIRECTS}, e.g. n=3`);
  if (n < 1 || n > MAX_REDIRECTS) throw invalidParameter(`n must be from 1 to ${MAX_REDIRECTS} (the number of redirects before the final answer); got ${n}.`);
  const status = query.integer('status', 302, 'one of 301, 302, 307 or 308');
  if (!REDIRECT_STATUSES.includes(status)) throw invalidParameter(`status must be one of 301, 302, 307 or 308; got ${status}.`);
  const hop = query.integer('hop', 0, `the number of redirects already followed, from 0 to n`);
  if (hop > n) throw invalidParameter(`hop must be from 0 to n (${n}); got ${hop}.`);
  const earlier = readTrail(query.single('trail'), hop);
  if (!/^[A-Za-z]{1,16}$/.test(request.method)) {
    throw invalidArgument('invalid_method', `The redirect chain records methods made of letters only; ${quoteInput(request.method)} is not one.`);
  }
  const here: Arrival = { method: request.method, bodyBytes: request.body.length };

  if (hop < n) {
    const trail = [...earlier, here].map((arrival) => `${arrival.method}-${arrival.bodyBytes}`).join('.');
    const location = `${basePath(request.baseUrl)}${REDIRECT_PATH}?n=${n}&status=${status}&hop=${hop + 1}&trail=${trail}`;
    return jsonAnswer(
      {
        redirect: hop + 1,
        of: n,
        status,
        location,
        arrived: here,
        notes: [REDIRECT_MEANING[status], playgroundApi.REDIRECT_LOCATION_NOTE],
      },
      status,
      [{ name: 'Location', value: location }],
    );
  }

  const trail = [...earlier, here];
  const body = arrivedBody(request);
  return jsonAnswer({
    redirects: n,
    status,
    trail: trail.map((arrival, index) => ({ request: index + 1, method: arrival.method, bodyBytes: arrival.bodyBytes, answered: index < n ? status : 200 })),
    arrived: { method: request.method, contentType: body.contentType, body: body.value, bodyKind: body.kind, bodySize: body.size },
    methodChanged: trail.some((arrival) => arrival.method !== trail[0].method),
    notes: [verdict(status, trail), REDIRECT_MEANING[status], ...body.notes],
  });
}
