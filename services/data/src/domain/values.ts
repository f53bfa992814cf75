import type { Rng } from './rng';

export function round2(value: number): number {
  // `|| 0` turns -0 into 0: the two differ to a deep comparison but not in JSON.
  return Math.round(value * 100) / 100 || 0;
}

/** A readable identifier such as 'CC-0042' for the 1-based `n`. */
export function idOf(prefix: string, n: number, width: number): string {
  return prefix + String(n).padStart(width, '0');
}

const FIRST_NAMES = [
  'Amelia',
  'Noah',
  'Priya',
  'Mateo',
  'Aisha',
  'Liam',
  'Sofia',
  'Hiroshi',
  'Chloe',
  'Kwame',
  'Elena',
  'Omar',
  'Grace',
  'Lucas',
  'Mei',
  'Daniel',
  'Fatima',
  'Jonas',
  'Isabel',
  'Arjun',
  'Olivia',
  'Ethan',
  'Zara',
  'Mohammed',
  'Hannah',
  'Diego',
  'Yuki',
  'Samuel',
  'Leila',
  'Oscar',
  'Nina',
  'Tomás',
  'Ava',
  'Ravi',
  'Freya',
  'Kofi',
  'Maya',
  'Felix',
  'Ingrid',
  'Wei',
];
const LAST_NAMES = [
  'Khan',
  'Smith',
  'Patel',
  'García',
  'Okafor',
  'Müller',
  'Nguyen',
  'Rossi',
  'Tanaka',
  'Silva',
  'Johnson',
  'Kowalski',
  'Haddad',
  'Larsen',
  'Chen',
  'Brown',
  'Mensah',
  'Dubois',
  'Fernández',
  'Singh',
  'Andersson',
  'Kim',
  'Murphy',
  'Novak',
  'Ibrahim',
  'Costa',
  'Walker',
  'Ito',
  'Schmidt',
  'Reyes',
];

export interface PersonName {
  first: string;
  last: string;
}

export function personName(rng: Rng): PersonName {
  return { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
}

export function fullName(rng: Rng): string {
  const { first, last } = personName(rng);
  return `${first} ${last}`;
}

const folded = new Map<string, string>();

/** Lower-case ASCII for emails ('García' -> 'garcia'); names come from small lists, so the results are kept. */
export function asciiLower(name: string): string {
  let result = folded.get(name);
  if (result === undefined) {
    result = name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase();
    folded.set(name, result);
  }
  return result;
}
