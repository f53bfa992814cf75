import { addMonths, dayOf, formatDate, formatDateTime } from '../calendar';
import type { EntityDefinition, PackDefinition, Row } from '../entity';
import { Partition } from '../partition';
import { mixKey, rowRng, streamKey, unit } from '../rng';
import { fullName, idOf, round2 } from '../values';

const PACK = 'fpa';

const DEPARTMENTS = [
  ['Finance', 'FIN'],
  ['Sales', 'SAL'],
  ['Marketing', 'MKT'],
  ['Engineering', 'ENG'],
  ['Product', 'PRD'],
  ['Operations', 'OPS'],
  ['Customer Success', 'CSM'],
  ['People', 'PPL'],
  ['Legal', 'LEG'],
  ['IT', 'ITS'],
  ['Facilities', 'FAC'],
  ['Research', 'RND'],
] as const;
const REGIONS = ['North America', 'EMEA', 'APAC', 'LATAM'];
const LOCATIONS = ['New York', 'London', 'Singapore', 'Berlin', 'Toronto', 'Sydney', 'São Paulo', 'Bangalore', 'Austin', 'Dublin'];
const COST_CENTER_PURPOSES = [
  'Payroll',
  'Travel',
  'Software',
  'Contractors',
  'Training',
  'Equipment',
  'Events',
  'Consulting',
  'Recruiting',
  'Rent',
  'Cloud Hosting',
  'Programs',
  'Subscriptions',
  'Research Grants',
];
const CURRENCY = 'USD';
/** Actuals cover the 24 months before the reference date. */
const FIRST_PERIOD = dayOf(2024, 1, 1);
const PERIODS = 24;

const departmentKey = streamKey(PACK, 'departments');
const costCenterKey = streamKey(PACK, 'cost_centers');
const costCenterCountKey = streamKey(PACK, 'cost_centers', 'count');
const costCenterBudgetKey = streamKey(PACK, 'cost_centers', 'budget');
const actualKey = streamKey(PACK, 'actuals');

const costCentersByDepartment = new Partition(DEPARTMENTS.length, (d) => 12 + Math.floor(unit(mixKey(costCenterCountKey, d)) * 17));
const actualsByCostCenter = new Partition(costCentersByDepartment.total, () => PERIODS);

/** Its own stream, because the department total and each month's budget are derived from it. */
function annualBudget(costCenter: number): number {
  // A multiple of 1,200 so that twelve equal monthly budgets sum to it exactly.
  return 1200 * (20 + Math.floor(unit(mixKey(costCenterBudgetKey, costCenter)) * 2480));
}

function departmentRow(index: number): Row {
  const rng = rowRng(departmentKey, index);
  const [name, code] = DEPARTMENTS[index]!;
  const { start, count } = costCentersByDepartment.rangeOf(index);
  let budget = 0;
  for (let c = start; c < start + count; c++) budget += annualBudget(c);
  return {
    id: idOf('D', index + 1, 2),
    name,
    code,
    region: rng.pick(REGIONS),
    head: fullName(rng),
    annual_budget: budget,
    cost_center_count: count,
    currency: CURRENCY,
  };
}

function costCenterRow(index: number): Row {
  const rng = rowRng(costCenterKey, index);
  const department = costCentersByDepartment.parentOf(index);
  const departmentName = DEPARTMENTS[department]![0];
  const purpose = rng.pick(COST_CENTER_PURPOSES);
  const location = rng.pick(LOCATIONS);
  return {
    id: idOf('CC-', 1001 + index, 4),
    name: `${departmentName} ${purpose} ${location}`,
    department_id: idOf('D', department + 1, 2),
    department_name: departmentName,
    location,
    owner: fullName(rng),
    annual_budget: annualBudget(index),
    currency: CURRENCY,
    capital: purpose === 'Equipment' || purpose === 'Research Grants',
    opened_on: formatDate(dayOf(2012, 1, 1) + rng.int(0, 4000)),
  };
}

function actualRow(index: number): Row {
  const rng = rowRng(actualKey, index);
  const costCenter = actualsByCostCenter.parentOf(index);
  const month = index - actualsByCostCenter.startOf(costCenter);
  const department = costCentersByDepartment.parentOf(costCenter);
  const period = addMonths(FIRST_PERIOD, month);
  const budget = annualBudget(costCenter) / 12;
  // Mostly close to plan, with the odd large overrun or underspend.
  const drift = rng.chance(0.1) ? rng.float(-0.45, 0.6) : rng.normal() * 0.06;
  const actual = round2(Math.max(0, budget * (1 + drift)));
  const variance = round2(actual - budget);
  return {
    id: idOf('ACT-', index + 1, 6),
    cost_center_id: idOf('CC-', 1001 + costCenter, 4),
    department_id: idOf('D', department + 1, 2),
    period: formatDate(period),
    budget,
    actual,
    variance,
    variance_pct: budget === 0 ? 0 : round2((variance / budget) * 100),
    currency: CURRENCY,
    posted_at: formatDateTime(addMonths(period, 1) + rng.int(2, 7), rng.int(8 * 3600, 19 * 3600)),
  };
}

export const departments: EntityDefinition = {
  pack: PACK,
  name: 'departments',
  description: 'Budget-holding departments; each owns a set of cost centers.',
  count: DEPARTMENTS.length,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Department identifier.' },
    { name: 'name', type: 'string', meaning: 'Department name.' },
    { name: 'code', type: 'string', meaning: 'Three-letter ledger code.' },
    { name: 'region', type: 'string', meaning: 'Region the department reports into.' },
    { name: 'head', type: 'string', meaning: 'Name of the budget holder.' },
    { name: 'annual_budget', type: 'number', meaning: 'Sum of the annual budgets of its cost centers.', nest: { in: 'budget', as: 'annual' } },
    { name: 'cost_center_count', type: 'integer', meaning: 'Number of cost centers it owns.', nest: { in: 'budget', as: 'cost_centers' } },
    { name: 'currency', type: 'string', meaning: 'ISO 4217 currency of the amounts.', nest: { in: 'budget', as: 'currency' } },
  ],
  row: departmentRow,
  nestedList: { kind: 'children', key: 'cost_centers', child: () => costCenters, childrenOf: (i) => costCentersByDepartment.rangeOf(i) },
};

export const costCenters: EntityDefinition = {
  pack: PACK,
  name: 'cost_centers',
  description: 'Cost centers, each belonging to one department; actuals are booked against them.',
  count: costCentersByDepartment.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Cost center code.' },
    { name: 'name', type: 'string', meaning: 'Descriptive name: department, purpose and location.' },
    {
      name: 'department_id',
      type: 'string',
      meaning: 'Owning department.',
      references: { entity: 'departments', field: 'id' },
      nest: { in: 'department', as: 'id' },
    },
    { name: 'department_name', type: 'string', meaning: 'Name of the owning department.', nest: { in: 'department', as: 'name' } },
    { name: 'location', type: 'string', meaning: 'Office the spending belongs to.' },
    { name: 'owner', type: 'string', meaning: 'Person accountable for the spending.' },
    { name: 'annual_budget', type: 'number', meaning: 'Budget for the year; each month is one twelfth.', nest: { in: 'budget', as: 'annual' } },
    { name: 'currency', type: 'string', meaning: 'ISO 4217 currency of the budget.', nest: { in: 'budget', as: 'currency' } },
    { name: 'capital', type: 'boolean', meaning: 'True when spending here is capital expenditure.' },
    { name: 'opened_on', type: 'date', meaning: 'Date the cost center was opened.' },
  ],
  row: costCenterRow,
  nestedList: { kind: 'children', key: 'actuals', child: () => actuals, childrenOf: (i) => actualsByCostCenter.rangeOf(i) },
};

export const actuals: EntityDefinition = {
  pack: PACK,
  name: 'actuals',
  description: `Monthly budget against actual spend per cost center, ${PERIODS} months to December 2025; ordered by cost center, then month.`,
  count: actualsByCostCenter.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Ledger line identifier.' },
    {
      name: 'cost_center_id',
      type: 'string',
      meaning: 'Cost center the spending is booked to.',
      references: { entity: 'cost_centers', field: 'id' },
      nest: { in: 'cost_center', as: 'id' },
    },
    {
      name: 'department_id',
      type: 'string',
      meaning: 'Department owning that cost center (the roll-up).',
      references: { entity: 'departments', field: 'id' },
      nest: { in: 'department', as: 'id' },
    },
    { name: 'period', type: 'date', meaning: 'First day of the month the line covers.' },
    { name: 'budget', type: 'number', meaning: 'Planned spend for the month.', nest: { in: 'amounts', as: 'budget' } },
    { name: 'actual', type: 'number', meaning: 'Actual spend for the month.', nest: { in: 'amounts', as: 'actual' } },
    { name: 'variance', type: 'number', meaning: 'Actual minus budget; positive is an overspend.', nest: { in: 'amounts', as: 'variance' } },
    { name: 'variance_pct', type: 'number', meaning: 'Variance as a percentage of budget.', nest: { in: 'amounts', as: 'variance_pct' } },
    { name: 'currency', type: 'string', meaning: 'ISO 4217 currency of the amounts.', nest: { in: 'amounts', as: 'currency' } },
    { name: 'posted_at', type: 'datetime', meaning: 'When the month was closed in the ledger (UTC).' },
  ],
  row: actualRow,
  nestedList: { kind: 'grouped', key: 'actuals', parent: () => costCenters, parentOf: (i) => actualsByCostCenter.parentOf(i) },
};

export const fpa: PackDefinition = {
  name: PACK,
  scope: 'fpa:read',
  description: 'Financial planning and analysis: departments, their cost centers and monthly budget-versus-actual lines.',
  entities: [departments, costCenters, actuals],
};
