import helmet from 'helmet';

/**
 * The security headers every answer of the API carries, as helmet (the
 * maintained set of these headers and their values) writes them for a JSON
 * API: no content of ours may be framed (frame-ancestors 'none', X-Frame-
 * Options DENY), loaded as a script or style (default-src 'none'), or
 * sniffed into another type (nosniff), and no Referer leaves with a link
 * that holds an api_key. Cross-Origin-Resource-Policy stays cross-origin:
 * learners' pages on any origin read our answers (CORS). HSTS is left to the
 * TLS-terminating ingress, which knows whether the sandbox is on HTTPS (a
 * learner's localhost is not). The portal's page brings its own CSP.
 *
 * helmet is express middleware; it is run once here against a recorder, so
 * answers get the headers in their one writeHead instead of a setHeader
 * call each.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze(recordHelmet());

function recordHelmet(): Record<string, string> {
  const headers: Record<string, string> = {};
  const middleware = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    crossOriginOpenerPolicy: false,
    crossOriginResourcePolicy: { policy: 'cross-origin' },
    originAgentCluster: false,
    referrerPolicy: { policy: 'no-referrer' },
    strictTransportSecurity: false,
    xContentTypeOptions: true,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xFrameOptions: { action: 'deny' },
    xPermittedCrossDomainPolicies: false,
    xPoweredBy: false,
    xXssProtection: false,
  });
  const recorder = {
    setHeader: (name: string, value: string) => void (headers[name] = String(value)),
    removeHeader: (name: string) => void delete headers[name],
  };
  middleware({} as never, recorder as never, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}
