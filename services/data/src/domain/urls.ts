// Where each resource lives below the data API's root. The gateway decides
// where that root is mounted and sends it with every request; the names below
// it (packs, entities) are this service's.

/** Without trailing slashes, so every URL joins the root with exactly one. */
const trimmed = (rootUrl: string) => rootUrl.replace(/\/+$/, '');

export const packUrl = (rootUrl: string, pack: string) => `${trimmed(rootUrl)}/${pack}`;

export const entityUrl = (rootUrl: string, pack: string, entity: string) => `${trimmed(rootUrl)}/${pack}/${entity}`;

/**
 * Path and query of an absolute URL: scheme and authority are cut off as
 * written, not re-serialised through URL, so the bytes stay the gateway's.
 */
export const pathAndQuery = (url: string) => url.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
