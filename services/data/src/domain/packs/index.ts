import type { EntityDefinition, PackDefinition } from '../entity';
import { quoteInput } from '@sandbox/runtime';
import { notFound } from '../errors';
import { cricket } from './cricket';
import { fpa } from './fpa';
import { hr } from './hr';
import { marketing } from './marketing';
import { stocks } from './stocks';

export const PACKS: readonly PackDefinition[] = [fpa, stocks, marketing, hr, cricket];

/**
 * Every entity in a fixed order. Cursors and page tokens record an entity by
 * its position here, so new entities go at the end (or the dataset version is bumped).
 */
export const ENTITIES: readonly EntityDefinition[] = PACKS.flatMap((pack) => pack.entities);

export function findPack(name: string): PackDefinition {
  const pack = PACKS.find((p) => p.name === name);
  if (!pack) throw notFound('unknown_pack', `There is no pack ${quoteInput(name)}. Packs: ${PACKS.map((p) => p.name).join(', ')}.`);
  return pack;
}

export function findEntity(packName: string, entityName: string): EntityDefinition {
  const pack = findPack(packName);
  const entity = pack.entities.find((e) => e.name === entityName);
  if (!entity) {
    throw notFound('unknown_entity', `Pack '${pack.name}' has no entity ${quoteInput(entityName)}. Entities: ${pack.entities.map((e) => e.name).join(', ')}.`);
  }
  return entity;
}

export function entityOrdinal(entity: EntityDefinition): number {
  return ENTITIES.indexOf(entity);
}
