import { ENTITIES, findEntity, PACKS } from '../../src/domain';
import type { EntityDefinition, Row } from '../../src/domain/entity';

const SPEC_ENTITIES: Record<string, string[]> = {
  fpa: ['departments', 'cost_centers', 'actuals'],
  stocks: ['tickers', 'candles', 'holdings'],
  marketing: ['channels', 'campaigns', 'daily'],
  hr: ['departments', 'employees', 'headcount'],
  cricket: ['teams', 'players', 'matches', 'innings'],
};

const DAYS_PER_TICKER = 2000;
const candles = findEntity('stocks', 'candles');

/** Every row of a small entity; a spread sample (first, last, and strided) of a large one. */
function sampleIndices(entity: EntityDefinition, wanted = 3000): number[] {
  if (entity.count <= wanted) return Array.from({ length: entity.count }, (_, i) => i);
  const step = Math.floor(entity.count / wanted);
  const indices = [0, 1, entity.count - 2, entity.count - 1];
  for (let i = 7; i < entity.count; i += step) indices.push(i);
  return [...new Set(indices)].sort((a, b) => a - b);
}

const allRows = (entity: EntityDefinition): Row[] => Array.from({ length: entity.count }, (_, i) => entity.row(i));
const rows = (pack: string, entity: string) => allRows(findEntity(pack, entity));
const byId = (list: Row[], key = 'id') => new Map(list.map((row) => [row[key] as string, row]));

describe('packs and sizes', () => {
  it('when the registry is listed, then it holds exactly the spec packs, scopes and entities', () => {
    expect(Object.fromEntries(PACKS.map((p) => [p.name, p.entities.map((e) => e.name)]))).toEqual(SPEC_ENTITIES);
    for (const pack of PACKS) expect(pack.scope).toBe(`${pack.name}:read`);
  });

  it('when candles are counted, then there are at least a million, ticker-major', () => {
    expect(candles.count).toBeGreaterThanOrEqual(1_000_000);
    expect(candles.count).toBe(findEntity('stocks', 'tickers').count * DAYS_PER_TICKER);
  });

  it.each(ENTITIES.filter((e) => e !== candles).map((e) => [`${e.pack}/${e.name}`, e] as const))(
    'when %s is counted, then it is a small realistic size',
    (_, entity) => {
      expect(entity.count).toBeGreaterThanOrEqual(10);
      expect(entity.count).toBeLessThanOrEqual(10_000);
    },
  );
});

describe('determinism', () => {
  it.each(ENTITIES.map((e) => [`${e.pack}/${e.name}`, e] as const))(
    'when rows of %s are generated in another order and by a fresh copy of the code, then they are identical',
    (_, entity) => {
      const indices = sampleIndices(entity, 300);
      const forward = indices.map((i) => entity.row(i));
      const backward = [...indices]
        .reverse()
        .map((i) => entity.row(i))
        .reverse();
      let fresh: EntityDefinition | undefined;
      jest.isolateModules(() => {
        // A fresh copy of the module: require() is the only synchronous way jest gives one.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        fresh = (require('../../src/domain/packs') as typeof import('../../src/domain/packs')).findEntity(entity.pack, entity.name);
      });
      expect(fresh).not.toBe(entity);
      expect(backward).toEqual(forward);
      expect(indices.map((i) => fresh!.row(i))).toEqual(forward);
    },
  );

  it.each(ENTITIES.map((e) => [`${e.pack}/${e.name}`, e] as const))('when %s rows are compared, then they differ from one another', (_, entity) => {
    const distinct = new Set(sampleIndices(entity, 200).map((i) => JSON.stringify(entity.row(i))));
    expect(distinct.size).toBe(sampleIndices(entity, 200).length);
  });
});

describe('fields', () => {
  const DATE = /^\d{4}-\d{2}-\d{2}$/;
  const DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
  const matchesType: Record<string, (v: unknown) => boolean> = {
    string: (v) => typeof v === 'string' && v.length > 0,
    integer: (v) => Number.isSafeInteger(v),
    number: (v) => typeof v === 'number' && Number.isFinite(v),
    boolean: (v) => typeof v === 'boolean',
    date: (v) => typeof v === 'string' && DATE.test(v) && !Number.isNaN(Date.parse(v)),
    datetime: (v) => typeof v === 'string' && DATETIME.test(v) && !Number.isNaN(Date.parse(v)),
  };

  it.each(ENTITIES.map((e) => [`${e.pack}/${e.name}`, e] as const))(
    'when %s rows are generated, then each has exactly its declared fields and types',
    (_, entity) => {
      const names = entity.fields.map((f) => f.name);
      for (const i of sampleIndices(entity, 1000)) {
        const row = entity.row(i);
        expect(Object.keys(row)).toEqual(names);
        for (const field of entity.fields) {
          const value = row[field.name];
          const ok = (field.nullable === true && value === null) || matchesType[field.type]!(value);
          if (!ok) throw new Error(`${entity.pack}/${entity.name} row ${i}: ${field.name}=${JSON.stringify(value)} is not a ${field.type}`);
        }
      }
      for (const field of entity.fields) expect(field.meaning.length).toBeGreaterThan(5);
    },
  );

  it.each(ENTITIES.map((e) => [`${e.pack}/${e.name}`, e] as const))('when %s is scanned, then its primary key is unique', (_, entity) => {
    const keys = sampleIndices(entity, 20_000).map((i) => {
      const row = entity.row(i);
      return entity.primaryKey.map((k) => row[k]).join('|');
    });
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe('foreign keys', () => {
  const relations = ENTITIES.flatMap((entity) =>
    entity.fields
      .filter((f) => f.references)
      .map((f) => [`${entity.pack}/${entity.name}.${f.name} -> ${f.references!.entity}.${f.references!.field}`, entity, f.name, f.references!] as const),
  );

  it('when the relations are listed, then every relation the spec names is declared', () => {
    const names = relations.map(([name]) => name);
    expect(names).toEqual(
      expect.arrayContaining([
        'hr/employees.department_id -> departments.id',
        'stocks/candles.ticker -> tickers.symbol',
        'stocks/holdings.ticker -> tickers.symbol',
        'cricket/innings.match_id -> matches.id',
        'cricket/players.team_id -> teams.id',
        'cricket/matches.home_team_id -> teams.id',
        'cricket/matches.away_team_id -> teams.id',
        'fpa/actuals.cost_center_id -> cost_centers.id',
        'fpa/cost_centers.department_id -> departments.id',
        'marketing/campaigns.channel_id -> channels.id',
        'marketing/daily.campaign_id -> campaigns.id',
      ]),
    );
  });

  it.each(relations)('when %s is followed, then it resolves for every sampled row', (_, entity, fieldName, reference) => {
    const target = findEntity(entity.pack, reference.entity);
    const keys = new Set(allRows(target).map((row) => row[reference.field]));
    for (const i of sampleIndices(entity, 5000)) {
      const value = entity.row(i)[fieldName];
      if (value === null) continue;
      if (!keys.has(value)) throw new Error(`${entity.pack}/${entity.name} row ${i}: ${fieldName}=${String(value)} does not resolve`);
    }
  });
});

describe('fpa consistency', () => {
  const departments = rows('fpa', 'departments');
  const costCenters = rows('fpa', 'cost_centers');
  const actuals = rows('fpa', 'actuals');
  const centerById = byId(costCenters);

  it('when actuals roll up, then each line carries the department of its cost center', () => {
    for (const line of actuals) expect(line['department_id']).toBe(centerById.get(line['cost_center_id'] as string)!['department_id']);
  });

  it('when a department budget is summed, then it equals the sum of its cost centers and its count matches', () => {
    for (const department of departments) {
      const own = costCenters.filter((c) => c['department_id'] === department['id']);
      expect(department['cost_center_count']).toBe(own.length);
      expect(department['annual_budget']).toBe(own.reduce((sum, c) => sum + (c['annual_budget'] as number), 0));
    }
  });

  it("when a cost center's monthly budgets are summed by year, then they equal its annual budget", () => {
    for (const center of costCenters) {
      const lines = actuals.filter((a) => a['cost_center_id'] === center['id'] && (a['period'] as string).startsWith('2025'));
      expect(lines).toHaveLength(12);
      expect(lines.reduce((sum, a) => sum + (a['budget'] as number), 0)).toBeCloseTo(center['annual_budget'] as number, 6);
    }
  });

  it('when variance is checked, then it is actual minus budget', () => {
    for (const line of actuals) expect(line['variance']).toBeCloseTo((line['actual'] as number) - (line['budget'] as number), 2);
  });
});

describe('stocks consistency', () => {
  const tickers = rows('stocks', 'tickers');
  const tickerBySymbol = byId(tickers, 'symbol');
  const dayIndex = new Map(Array.from({ length: DAYS_PER_TICKER }, (_, k) => [candles.row(k)['date'] as string, k]));

  it.each([0, 1, 137, 250, 498, 499])('when the candles of ticker %i are read in order, then they belong to it, dates ascend and OHLC is consistent', (t) => {
    let previous: Row | undefined;
    for (let k = 0; k < DAYS_PER_TICKER; k++) {
      const candle = candles.row(t * DAYS_PER_TICKER + k);
      expect(candle['ticker']).toBe(tickers[t]!['symbol']);
      const [open, high, low, close] = ['open', 'high', 'low', 'close'].map((f) => candle[f] as number) as [number, number, number, number];
      if (!(low > 0 && low <= open && low <= close && high >= open && high >= close)) throw new Error(`inconsistent OHLC ${JSON.stringify(candle)}`);
      if (previous) {
        expect((candle['date'] as string) > (previous['date'] as string)).toBe(true);
        expect(candle['change_pct']).toBeCloseTo((close / (previous['close'] as number) - 1) * 100, 1);
      } else {
        expect(candle['change_pct']).toBeNull();
      }
      previous = candle;
    }
    expect(previous!['date']).toBe('2025-12-31');
    expect(previous!['close']).toBe(tickers[t]!['last_close']);
  });

  it('when trading dates are listed, then they are weekdays only', () => {
    for (const date of dayIndex.keys()) expect([0, 6]).not.toContain(new Date(`${date}T00:00:00Z`).getUTCDay());
    expect(dayIndex.size).toBe(DAYS_PER_TICKER);
  });

  it('when prices move day to day, then the moves look like a market (mostly small, never absurd)', () => {
    const moves: number[] = [];
    for (let i = 1; i < candles.count; i += 997) {
      const change = candles.row(i)['change_pct'];
      if (typeof change === 'number') moves.push(Math.abs(change));
    }
    moves.sort((a, b) => a - b);
    expect(moves[Math.floor(moves.length / 2)]).toBeLessThan(3);
    expect(moves[moves.length - 1]).toBeLessThan(25);
    expect(moves[Math.floor(moves.length / 2)]).toBeGreaterThan(0);
  });

  it('when a holding is valued, then its cost is the candle close on the day it was opened and its value uses the last close', () => {
    for (const holding of rows('stocks', 'holdings')) {
      const t = tickers.indexOf(tickerBySymbol.get(holding['ticker'] as string)!);
      const opened = candles.row(t * DAYS_PER_TICKER + dayIndex.get(holding['opened_on'] as string)!);
      expect(holding['average_cost']).toBe(opened['close']);
      expect(holding['last_close']).toBe(tickers[t]!['last_close']);
      expect(holding['market_value']).toBeCloseTo((holding['quantity'] as number) * (holding['last_close'] as number), 2);
    }
  });
});

describe('marketing consistency', () => {
  const campaigns = byId(rows('marketing', 'campaigns'));
  const daily = rows('marketing', 'daily');

  it("when a daily row is read, then it belongs to its campaign's channel, falls within its dates and respects funnel and budget", () => {
    for (const day of daily) {
      const campaign = campaigns.get(day['campaign_id'] as string)!;
      expect(day['channel_id']).toBe(campaign['channel_id']);
      const date = day['date'] as string;
      expect(date >= (campaign['start_date'] as string) && date <= (campaign['end_date'] as string)).toBe(true);
      expect(day['clicks'] as number).toBeLessThanOrEqual(day['impressions'] as number);
      expect(day['conversions'] as number).toBeLessThanOrEqual(day['clicks'] as number);
      expect(day['spend'] as number).toBeLessThanOrEqual(campaign['daily_budget'] as number);
    }
  });

  it("when a campaign's daily rows are counted, then there is one per day it ran", () => {
    for (const campaign of campaigns.values()) {
      const days = (Date.parse(campaign['end_date'] as string) - Date.parse(campaign['start_date'] as string)) / 86_400_000 + 1;
      expect(daily.filter((d) => d['campaign_id'] === campaign['id'])).toHaveLength(days);
      expect(campaign['total_budget']).toBe((campaign['daily_budget'] as number) * days);
    }
  });
});

describe('hr consistency', () => {
  const departments = rows('hr', 'departments');
  const employees = rows('hr', 'employees');
  const employeeById = byId(employees);
  const headcount = rows('hr', 'headcount');

  it('when a manager is looked up, then they work in the same department', () => {
    for (const employee of employees) {
      if (employee['manager_id'] === null) continue;
      expect(employeeById.get(employee['manager_id'] as string)!['department_id']).toBe(employee['department_id']);
    }
  });

  it('when a department head is looked up, then they head that department and report to no one', () => {
    for (const department of departments) {
      const head = employeeById.get(department['head_employee_id'] as string)!;
      expect(head['department_id']).toBe(department['id']);
      expect(head['manager_id']).toBeNull();
      expect(head['job_title']).toBe(`Head of ${department['name']}`);
    }
  });

  it('when employees are counted, then department headcount and the last headcount row agree with them', () => {
    for (const department of departments) {
      const active = employees.filter((e) => e['department_id'] === department['id'] && e['active'] === true).length;
      const months = headcount.filter((h) => h['department_id'] === department['id']);
      expect(department['headcount']).toBe(active);
      expect(months[months.length - 1]!['headcount']).toBe(active);
    }
  });

  it('when consecutive months are compared, then headcount changes by hires minus leavers', () => {
    for (let i = 1; i < headcount.length; i++) {
      const [before, after] = [headcount[i - 1]!, headcount[i]!];
      if (before['department_id'] !== after['department_id']) continue;
      expect((after['headcount'] as number) - (before['headcount'] as number)).toBe((after['hires'] as number) - (after['leavers'] as number));
    }
  });

  it('when an employee left, then the dates are in order and they are not active', () => {
    for (const employee of employees) {
      expect(employee['active']).toBe(employee['termination_date'] === null);
      if (employee['termination_date'] !== null) expect(employee['termination_date']! > employee['hire_date']!).toBe(true);
    }
  });
});

describe('cricket consistency', () => {
  const teams = byId(rows('cricket', 'teams'));
  const players = rows('cricket', 'players');
  const matches = rows('cricket', 'matches');
  const innings = rows('cricket', 'innings');

  it('when a match is read, then it is between two different teams, Tests only between Test nations, in time order', () => {
    let previous = '';
    for (const match of matches) {
      expect(match['home_team_id']).not.toBe(match['away_team_id']);
      expect([match['home_team_id'], match['away_team_id']]).toContain(match['toss_winner_team_id']);
      expect([match['home_team_id'], match['away_team_id']]).toContain(match['batting_first_team_id']);
      if (match['format'] === 'Test') {
        expect(teams.get(match['home_team_id'] as string)!['plays_tests']).toBe(true);
        expect(teams.get(match['away_team_id'] as string)!['plays_tests']).toBe(true);
      }
      expect((match['starts_at'] as string) > previous).toBe(true);
      previous = match['starts_at'] as string;
    }
  });

  it('when innings are read, then they belong to their match and are batted by its two teams in turn', () => {
    for (const match of matches) {
      const own = innings.filter((i) => i['match_id'] === match['id']);
      expect(own).toHaveLength(match['innings_count'] as number);
      expect(own.map((i) => i['number'])).toEqual(own.map((_, n) => n + 1));
      expect(own[0]!['batting_team_id']).toBe(match['batting_first_team_id']);
      for (const i of own) {
        expect([match['home_team_id'], match['away_team_id']]).toContain(i['batting_team_id']);
        expect([match['home_team_id'], match['away_team_id']]).toContain(i['bowling_team_id']);
        expect(i['batting_team_id']).not.toBe(i['bowling_team_id']);
        expect(i['wickets'] as number).toBeLessThanOrEqual(10);
        expect(i['extras'] as number).toBeLessThanOrEqual(i['runs'] as number);
      }
    }
  });

  it('when the runs are added up, then the result and winner follow from them', () => {
    for (const match of matches) {
      const own = innings.filter((i) => i['match_id'] === match['id']);
      const totals = new Map<string, number>();
      for (const i of own) totals.set(i['batting_team_id'] as string, (totals.get(i['batting_team_id'] as string) ?? 0) + (i['runs'] as number));
      const [first, second] = [match['batting_first_team_id'] as string, own[1]!['batting_team_id'] as string];
      const last = own[own.length - 1]!;
      const chaseComplete = (totals.get(second) ?? 0) > (totals.get(first) ?? 0);
      const expectedWinner =
        last['batting_team_id'] === second && chaseComplete
          ? second
          : (totals.get(first) ?? 0) > (totals.get(second) ?? 0) && (last['all_out'] === true || match['format'] !== 'Test')
            ? first
            : null;
      expect(match['winner_team_id']).toBe(expectedWinner);
      expect(match['result']).toBe(
        expectedWinner === null ? (match['format'] === 'Test' ? 'draw' : 'tie') : expectedWinner === match['home_team_id'] ? 'home_win' : 'away_win',
      );
    }
  });

  it('when squads are read, then each team has its captain among its players', () => {
    for (const team of teams.values()) {
      const squad = players.filter((p) => p['team_id'] === team['id']);
      expect(squad.length).toBeGreaterThanOrEqual(11);
      expect(squad.map((p) => p['id'])).toContain(team['captain_player_id']);
    }
  });
});
