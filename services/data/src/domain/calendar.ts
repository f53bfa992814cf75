// Dates are handled as whole days since 1970-01-01 (UTC), converted with
// Hinnant's civil-calendar formulas: no Date objects on the hot path.

export function dayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = (month + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export interface CivilDate {
  year: number;
  month: number;
  day: number;
}

export function civilOf(epochDay: number): CivilDate {
  const z = epochDay + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** 'YYYY-MM-DD' */
export function formatDate(epochDay: number): string {
  const { year, month, day } = civilOf(epochDay);
  return `${year}-${pad2(month)}-${pad2(day)}`;
}

/** 'YYYY-MM-DDTHH:MM:SSZ' */
export function formatDateTime(epochDay: number, secondOfDay: number): string {
  const hours = Math.floor(secondOfDay / 3600);
  const minutes = Math.floor((secondOfDay % 3600) / 60);
  return `${formatDate(epochDay)}T${pad2(hours)}:${pad2(minutes)}:${pad2(secondOfDay % 60)}Z`;
}

/** First day of the month `monthsAfter` months after the month starting on `firstOfMonth`. */
export function addMonths(firstOfMonth: number, monthsAfter: number): number {
  const { year, month } = civilOf(firstOfMonth);
  const total = year * 12 + (month - 1) + monthsAfter;
  return dayOf(Math.floor(total / 12), (total % 12) + 1, 1);
}
