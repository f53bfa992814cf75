import { addMonths, dayOf, formatDate } from '../calendar';
import type { EntityDefinition, PackDefinition, Row } from '../entity';
import { Partition } from '../partition';
import { mixKey, Rng, rowRng, streamKey, unit } from '../rng';
import { asciiLower, idOf, personName, round2 } from '../values';

const PACK = 'hr';
const LAST_DAY = dayOf(2025, 12, 31);
/** Headcount covers the 36 months to December 2025. */
const FIRST_MONTH = dayOf(2023, 1, 1);
const MONTHS = 36;
/** The first few employees of a department are its managers; the very first is its head. */
const MANAGERS = 6;

// [department, the role its people mostly hold, typical base salary in USD]
const DEPARTMENTS: ReadonlyArray<readonly [string, string, number]> = [
  ['Engineering', 'Software Engineer', 135000],
  ['Sales', 'Account Executive', 90000],
  ['Marketing', 'Marketing Specialist', 80000],
  ['Finance', 'Financial Analyst', 85000],
  ['People', 'People Partner', 75000],
  ['Customer Support', 'Support Specialist', 55000],
  ['Product', 'Product Manager', 130000],
  ['Design', 'Product Designer', 110000],
  ['Legal', 'Counsel', 140000],
  ['Operations', 'Operations Analyst', 70000],
  ['Data', 'Data Scientist', 125000],
  ['Security', 'Security Engineer', 140000],
  ['Facilities', 'Facilities Coordinator', 50000],
  ['Procurement', 'Buyer', 65000],
];
// [office, currency, salary factor against USD-based pay]
const LOCATIONS: ReadonlyArray<readonly [string, string, number]> = [
  ['New York', 'USD', 1.15],
  ['Austin', 'USD', 1.0],
  ['London', 'GBP', 0.72],
  ['Berlin', 'EUR', 0.78],
  ['Toronto', 'CAD', 1.2],
  ['Singapore', 'SGD', 1.25],
  ['Bangalore', 'INR', 30],
  ['Remote', 'USD', 0.95],
];
const SENIORITY = ['Associate', '', 'Senior', 'Staff'];

const departmentKey = streamKey(PACK, 'departments');
const employeeKey = streamKey(PACK, 'employees');
const employeeCountKey = streamKey(PACK, 'employees', 'count');
const employeeDatesKey = streamKey(PACK, 'employees', 'dates');
const headcountKey = streamKey(PACK, 'headcount');

const employeesByDepartment = new Partition(DEPARTMENTS.length, (d) => 60 + Math.floor(unit(mixKey(employeeCountKey, d)) * 201));
const headcountByDepartment = new Partition(DEPARTMENTS.length, () => MONTHS);

interface Tenure {
  hire: number;
  /** Last day employed, or -1 while still employed. */
  termination: number;
}

/** Its own stream, because headcount is counted from it. */
function tenureOf(employee: number): Tenure {
  const rng = new Rng(mixKey(employeeDatesKey, employee));
  const local = employee - employeesByDepartment.startOf(employeesByDepartment.parentOf(employee));
  const hire = dayOf(2012, 1, 1) + rng.int(0, LAST_DAY - dayOf(2012, 1, 1) - 14);
  const leaves = local >= MANAGERS && rng.chance(0.18);
  return { hire, termination: leaves ? rng.int(Math.min(hire + 45, LAST_DAY), LAST_DAY) : -1 };
}

/** On the books at the end of `day`: someone whose last day it is has gone, so month-end counts change by hires minus leavers. */
const onBooksAfter = (t: Tenure, day: number) => t.hire <= day && (t.termination < 0 || t.termination > day);

/** Per department: [headcount, hires, leavers] per month, counted once from the employees' tenures. */
const monthlyCounts: Array<Int32Array | undefined> = [];
function countsOf(department: number): Int32Array {
  const cached = monthlyCounts[department];
  if (cached) return cached;
  const counts = new Int32Array(MONTHS * 3);
  const { start, count } = employeesByDepartment.rangeOf(department);
  for (let e = start; e < start + count; e++) {
    const tenure = tenureOf(e);
    for (let m = 0; m < MONTHS; m++) {
      const first = addMonths(FIRST_MONTH, m);
      const last = addMonths(FIRST_MONTH, m + 1) - 1;
      if (onBooksAfter(tenure, last)) counts[m * 3]!++;
      if (tenure.hire >= first && tenure.hire <= last) counts[m * 3 + 1]!++;
      if (tenure.termination >= first && tenure.termination <= last) counts[m * 3 + 2]!++;
    }
  }
  monthlyCounts[department] = counts;
  return counts;
}

const employeeId = (employee: number) => idOf('E', 10001 + employee, 5);

function departmentRow(index: number): Row {
  const rng = rowRng(departmentKey, index);
  const [name] = DEPARTMENTS[index]!;
  return {
    id: idOf('DEPT-', index + 1, 2),
    name,
    location: rng.pick(LOCATIONS)[0],
    head_employee_id: employeeId(employeesByDepartment.startOf(index)),
    headcount: countsOf(index)[(MONTHS - 1) * 3]!,
    founded_on: formatDate(dayOf(2008, 1, 1) + rng.int(0, 1500)),
  };
}

function employeeRow(index: number): Row {
  const rng = rowRng(employeeKey, index);
  const department = employeesByDepartment.parentOf(index);
  const local = index - employeesByDepartment.startOf(department);
  const [departmentName, role, baseSalary] = DEPARTMENTS[department]!;
  const { first, last } = personName(rng);
  const [location, currency, factor] = rng.pick(LOCATIONS);
  const tenure = tenureOf(index);
  const seniority = local === 0 ? 2.2 : local < MANAGERS ? 1.6 : 0.75 + rng.int(0, 3) * 0.2;
  const title =
    local === 0 ? `Head of ${departmentName}` : local < MANAGERS ? `${role} Manager` : `${SENIORITY[Math.round((seniority - 0.75) / 0.2)]} ${role}`.trim();
  const manager = local === 0 ? -1 : local < MANAGERS ? 0 : rng.int(0, MANAGERS - 1);
  return {
    id: employeeId(index),
    first_name: first,
    last_name: last,
    email: `${asciiLower(first)}.${asciiLower(last)}.${10001 + index}@example.com`,
    job_title: title,
    department_id: idOf('DEPT-', department + 1, 2),
    department_name: departmentName,
    manager_id: manager < 0 ? null : employeeId(employeesByDepartment.startOf(department) + manager),
    location,
    hire_date: formatDate(tenure.hire),
    termination_date: tenure.termination < 0 ? null : formatDate(tenure.termination),
    active: tenure.termination < 0,
    salary: Math.round((baseSalary * seniority * factor * rng.float(0.9, 1.12)) / 100) * 100,
    currency,
  };
}

function headcountRow(index: number): Row {
  const rng = rowRng(headcountKey, index);
  const department = headcountByDepartment.parentOf(index);
  const month = index - headcountByDepartment.startOf(department);
  const counts = countsOf(department);
  const headcount = counts[month * 3]!;
  const leavers = counts[month * 3 + 2]!;
  return {
    id: idOf('HC-', index + 1, 4),
    department_id: idOf('DEPT-', department + 1, 2),
    month: formatDate(addMonths(FIRST_MONTH, month)),
    headcount,
    hires: counts[month * 3 + 1]!,
    leavers,
    attrition_pct: headcount === 0 ? 0 : round2((leavers / headcount) * 100),
    open_roles: rng.int(0, 6),
  };
}

export const departments: EntityDefinition = {
  pack: PACK,
  name: 'departments',
  description: 'Organisational departments.',
  count: DEPARTMENTS.length,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Department identifier.' },
    { name: 'name', type: 'string', meaning: 'Department name.' },
    { name: 'location', type: 'string', meaning: 'Main office of the department.' },
    {
      name: 'head_employee_id',
      type: 'string',
      meaning: 'Employee who heads the department.',
      references: { entity: 'employees', field: 'id' },
      nest: { in: 'head', as: 'employee_id' },
    },
    { name: 'headcount', type: 'integer', meaning: 'Employees still employed at the end of 2025: the active employees, and the last headcount row.' },
    { name: 'founded_on', type: 'date', meaning: 'Date the department was created.' },
  ],
  row: departmentRow,
  nestedList: { kind: 'children', key: 'employees', child: () => employees, childrenOf: (i) => employeesByDepartment.rangeOf(i) },
};

export const employees: EntityDefinition = {
  pack: PACK,
  name: 'employees',
  description: 'Current and former employees; ordered by department, heads and managers first.',
  count: employeesByDepartment.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Employee identifier.' },
    { name: 'first_name', type: 'string', meaning: 'Given name.', nest: { in: 'name', as: 'first' } },
    { name: 'last_name', type: 'string', meaning: 'Family name.', nest: { in: 'name', as: 'last' } },
    { name: 'email', type: 'string', meaning: 'Work email, unique.' },
    { name: 'job_title', type: 'string', meaning: 'Job title.' },
    {
      name: 'department_id',
      type: 'string',
      meaning: 'Department the employee belongs to.',
      references: { entity: 'departments', field: 'id' },
      nest: { in: 'department', as: 'id' },
    },
    { name: 'department_name', type: 'string', meaning: 'Name of that department.', nest: { in: 'department', as: 'name' } },
    {
      name: 'manager_id',
      type: 'string',
      nullable: true,
      meaning: 'Line manager, in the same department; null for the department head.',
      references: { entity: 'employees', field: 'id' },
    },
    { name: 'location', type: 'string', meaning: 'Office the employee works from.' },
    { name: 'hire_date', type: 'date', meaning: 'First day employed.', nest: { in: 'employment', as: 'hire_date' } },
    {
      name: 'termination_date',
      type: 'date',
      nullable: true,
      meaning: 'Last day employed; null while employed.',
      nest: { in: 'employment', as: 'termination_date' },
    },
    { name: 'active', type: 'boolean', meaning: 'True while employed.', nest: { in: 'employment', as: 'active' } },
    { name: 'salary', type: 'integer', meaning: 'Annual base salary.', nest: { in: 'compensation', as: 'salary' } },
    { name: 'currency', type: 'string', meaning: 'Currency of the salary, from the location.', nest: { in: 'compensation', as: 'currency' } },
  ],
  row: employeeRow,
  nestedList: { kind: 'grouped', key: 'employees', parent: () => departments, parentOf: (i) => employeesByDepartment.parentOf(i) },
};

export const headcount: EntityDefinition = {
  pack: PACK,
  name: 'headcount',
  description: `Month-end headcount per department for the ${MONTHS} months to December 2025, counted from the employees; ordered by department, then month.`,
  count: headcountByDepartment.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Row identifier.' },
    { name: 'department_id', type: 'string', meaning: 'Department counted.', references: { entity: 'departments', field: 'id' } },
    { name: 'month', type: 'date', meaning: 'First day of the month counted.' },
    { name: 'headcount', type: 'integer', meaning: 'Employees still employed at the end of the month.', nest: { in: 'counts', as: 'headcount' } },
    { name: 'hires', type: 'integer', meaning: 'Employees whose hire date falls in the month.', nest: { in: 'counts', as: 'hires' } },
    { name: 'leavers', type: 'integer', meaning: 'Employees whose last day falls in the month.', nest: { in: 'counts', as: 'leavers' } },
    { name: 'attrition_pct', type: 'number', meaning: 'leavers / headcount, percent.', nest: { in: 'counts', as: 'attrition_pct' } },
    { name: 'open_roles', type: 'integer', meaning: 'Vacancies open at month end.' },
  ],
  row: headcountRow,
  nestedList: { kind: 'grouped', key: 'monthly_headcount', parent: () => departments, parentOf: (i) => headcountByDepartment.parentOf(i) },
};

export const hr: PackDefinition = {
  name: PACK,
  scope: 'hr:read',
  description: 'Human resources: departments, current and former employees, and monthly headcount that adds up from them.',
  entities: [departments, employees, headcount],
};
