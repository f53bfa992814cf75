import type { common, oauth } from '@sandbox/contracts';
import type { OAuth2Deps } from './deps';
import { invalidClient } from './errors';

const HOW = 'send the App ID and App Secret in the Basic header (client_secret_basic) or as client_id and client_secret in the form body (client_secret_post)';
const METHOD_WORDS: Record<string, string> = { basic: 'Basic header', body: 'client_id and client_secret in the body' };

/** The client a request names, authenticated or not ('' when it names none). */
export const namedClient = (client: oauth.ClientAuthentication | undefined) => client?.clientId ?? '';

/** Whether the request carried a client secret at all (Basic header or body field), as the gateway read it. */
export const presentedSecret = (client: oauth.ClientAuthentication | undefined) => (client?.method ?? '') !== '';

/**
 * Client authentication (RFC 6749 2.3.1): the App ID and App Secret, checked
 * by identity every time (a secret is never cached). The apps here are
 * confidential clients, so a client_id alone is not authentication. A revoked
 * or deleted app fails here too. 401 invalid_client otherwise.
 */
export async function authenticateClient(
  deps: Pick<OAuth2Deps, 'apps'>,
  client: oauth.ClientAuthentication | undefined,
  requestId?: string,
): Promise<common.AppPrincipal> {
  const method = client?.method ?? '';
  const clientId = client?.clientId ?? '';
  if (method === '') {
    throw invalidClient(
      clientId ? `client_id alone does not authenticate a client: apps here are confidential clients, so ${HOW}.` : `The client did not authenticate: ${HOW}.`,
      method,
    );
  }
  const check = await deps.apps.verifySecret(clientId, client?.clientSecret ?? '', requestId);
  if (!check?.ok || !check.principal) {
    const reason = check?.reason || 'The App ID or App Secret is not valid.';
    throw invalidClient(`Client authentication (${METHOD_WORDS[method] ?? method}) failed: ${reason}`, method);
  }
  return check.principal;
}
