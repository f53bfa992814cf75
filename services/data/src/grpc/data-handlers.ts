import type { data } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import { catalog, describePack, renderPage, type SigningKey } from '../domain';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Decode, call one domain function, encode. */
export function dataHandlers(signingKey: SigningKey): UnaryImplementation<data.DataServiceServer> {
  return {
    getCatalog: (request) => ({ bodyJson: json(catalog(request.rootUrl)) }),
    describePack: (request) => ({ bodyJson: json(describePack(request.pack, request.rootUrl)) }),
    getPage: (request) => renderPage(request, signingKey),
  };
}
