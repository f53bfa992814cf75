import type { data } from '@sandbox/contracts';
import type { UnaryImplementation } from '@sandbox/runtime';
import { catalog, describePack, findPack, renderPage, type SigningKey } from '../domain';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));

/** Decode, call one domain function, encode. */
export function dataHandlers(signingKey: SigningKey): UnaryImplementation<data.DataServiceServer> {
  return {
    getCatalog: (request) => ({ bodyJson: json(catalog(request.baseUrl)) }),
    describePack: (request) => ({ bodyJson: json(describePack(request.pack, request.baseUrl)) }),
    getPage: (request) => ({ ...renderPage(request, signingKey), scope: findPack(request.pack).scope }),
  };
}
