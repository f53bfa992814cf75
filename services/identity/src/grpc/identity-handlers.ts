import { identity } from '@sandbox/contracts';
import { unaryHandlers, unauthenticated, type Logger } from '@sandbox/runtime';
import type { AccountService } from '../domain/accounts';
import type { AppService } from '../domain/apps';
import type { RequestLogService } from '../domain/request-logs';
import type { CredentialVerifier } from '../domain/verification';
import { toApp, toIssued, toLogEntry, toUser } from './mappers';

export interface IdentityDomain {
  accounts: AccountService;
  apps: AppService;
  logs: RequestLogService;
  verifier: CredentialVerifier;
}

/** Every app RPC acts for an owner the gateway has verified; an empty owner is a caller bug, never "everyone". */
function owner(ownerId: string): string {
  if (ownerId === '') throw unauthenticated('owner_required', 'The request does not name a signed-in owner.');
  return ownerId;
}

/** Thin handlers: decode, call one domain function, encode. */
export function identityHandlers(domain: IdentityDomain, logger: Logger): identity.IdentityServiceServer {
  const { accounts, apps, logs, verifier } = domain;
  return unaryHandlers<identity.IdentityServiceServer>(
    identity.IdentityServiceService,
    {
      async register(request) {
        const { user, session } = await accounts.register(request.email, request.password);
        return { user: toUser(user), session: { token: session.token, expiresAt: session.expiresAt.toISOString() } };
      },
      async login(request) {
        const { user, session } = await accounts.login(request.email, request.password, request.clientAddress);
        return { user: toUser(user), session: { token: session.token, expiresAt: session.expiresAt.toISOString() } };
      },
      async logout(request) {
        await accounts.logout(request.token);
        return {};
      },
      async verifySession(request) {
        return { user: toUser(await accounts.verifySession(request.token)), operator: false };
      },

      async listApps(request) {
        return { apps: (await apps.list(owner(request.ownerId))).map(toApp) };
      },
      async createApp(request) {
        const { app, issued } = await apps.create(owner(request.ownerId), {
          name: request.name,
          description: request.description,
          scopes: request.scopes?.scopes,
          redirectUris: request.redirectUris,
        });
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async getApp(request) {
        return { app: toApp(await apps.get(owner(request.ownerId), request.id)) };
      },
      async deleteApp(request) {
        const result = await apps.delete(owner(request.ownerId), request.id, request.revoke);
        return { id: request.id, outcome: result.outcome, app: result.outcome === 'revoked' ? toApp(result.app) : undefined };
      },
      async regenerateSecret(request) {
        const { app, issued } = await apps.regenerateSecret(owner(request.ownerId), request.id);
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async rotateCredentials(request) {
        const { app, issued } = await apps.rotate(owner(request.ownerId), request.id, {
          appSecret: request.appSecret,
          apiKey: request.apiKey,
          bearerToken: request.bearerToken,
        });
        return { app: toApp(app), issued: toIssued(issued) };
      },
      async setRedirectUris(request) {
        return { app: toApp(await apps.setRedirectUris(owner(request.ownerId), request.id, request.redirectUris)) };
      },
      async setScopes(request) {
        return { app: toApp(await apps.setScopes(owner(request.ownerId), request.id, request.scopes)) };
      },
      async resetOwner(request) {
        return { deleted: await apps.resetOwner(owner(request.ownerId)) };
      },

      async recordRequests(request) {
        await logs.record(request.entries);
        return {};
      },
      async listRequestLogs(request) {
        const page = await logs.list(owner(request.ownerId), request.id, request.pageSize, request.pageToken);
        return { entries: page.entries.map(toLogEntry), nextPageToken: page.nextPageToken, total: page.total };
      },

      async verifyApiKey(request) {
        return { check: await verifier.verifyApiKey(request.apiKey) };
      },
      async verifyBearerToken(request) {
        return { check: await verifier.verifyBearerToken(request.bearerToken) };
      },
      async verifyBasic(request) {
        return { check: await verifier.verifyBasic(request.appId, request.appSecret) };
      },
      async lookupApp(request) {
        return verifier.lookupApp(request.appId);
      },
      async getSigningKey(request) {
        return verifier.getSigningKey(request.appId);
      },
    },
    logger,
  );
}
