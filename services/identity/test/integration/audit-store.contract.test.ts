import { newLogId } from '../../src/domain/request-logs';
import type { AuditRecord, AuditStore } from '../../src/stores/audit-store';
import { MemoryAuditStore } from '../../src/stores/memory-audit-store';
import { MongoAuditStore } from '../../src/stores/mongo-audit-store';
import { memoryHarness, mongoHarness, type StoreHarness } from './store-harness';

const T0 = new Date('2030-01-01T00:00:00.000Z');
const entry = (second: number, detail = `d${second}`): AuditRecord => {
  const at = new Date(T0.getTime() + second * 1000);
  return {
    id: newLogId(at),
    at,
    actor: { kind: 'session', id: 'ffffffffffffffffffffffff', email: 'ops@example.org' },
    action: 'user.disable',
    targetUserId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    targetEmail: 'ada@example.org',
    detail,
  };
};

function describeAuditStoreContract(name: string, open: () => Promise<StoreHarness<AuditStore>>) {
  describe(`AuditStore contract: ${name}`, () => {
    let harness: StoreHarness<AuditStore>;
    beforeAll(async () => {
      harness = await open();
    });
    beforeEach(() => harness.reset());
    afterAll(() => harness.close());

    it('when entries are appended, then they list newest first, exactly as written', async () => {
      const entries = [
        entry(1),
        entry(3),
        {
          ...entry(2),
          actor: { kind: 'cli' as const, id: 'cli', email: '', statedUser: 'root@pod' },
          targetUserId: '',
          targetEmail: '',
          action: 'purge' as const,
        },
      ];
      for (const e of entries) await harness.store.append(e);
      await expect(harness.store.list(10)).resolves.toEqual([entries[1], entries[2], entries[0]]);
      await expect(harness.store.list(1)).resolves.toEqual([entries[1]]);
    });

    it('when listing after a position, then it continues strictly after it, ties on time broken by id', async () => {
      const same = [entry(5, 'x1'), entry(5, 'x2'), entry(5, 'x3'), entry(4, 'y')];
      for (const e of same) await harness.store.append(e);
      const first = await harness.store.list(2);
      const rest = await harness.store.list(10, first[1]);
      expect([...first, ...rest].map((e) => e.detail)).toEqual(['x3', 'x2', 'x1', 'y']);
    });
  });
}

describeAuditStoreContract('memory', async () => memoryHarness(() => new MemoryAuditStore()));
describeAuditStoreContract('mongo', () => mongoHarness('audit', (db) => new MongoAuditStore(db)));
