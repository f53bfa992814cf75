import { addMonths, civilOf, dayOf, formatDate, formatDateTime } from '../../src/domain/calendar';
import { Partition } from '../../src/domain/partition';
import { hashString, mixKey, Rng } from '../../src/domain/rng';

describe('hashing and the seeded generator', () => {
  it('when strings are hashed, then the result is FNV-1a', () => {
    expect(hashString('')).toBe(0x811c9dc5);
    expect(hashString('a')).toBe(0xe40c292c);
    expect(hashString('foobar')).toBe(0xbf9cf968);
  });

  it('when the same seed is used twice, then the same sequence comes out; another seed gives another', () => {
    const draw = (seed: number) =>
      Array.from(
        { length: 5 },
        (
          (rng) => () =>
            rng.next()
        )(new Rng(seed)),
      );
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('when integers are drawn, then they stay within bounds and cover them', () => {
    const rng = new Rng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const value = rng.int(3, 9);
      expect(value).toBeGreaterThanOrEqual(3);
      expect(value).toBeLessThanOrEqual(9);
      seen.add(value);
    }
    expect(seen.size).toBe(7);
  });

  it('when neighbouring keys are mixed, then the outputs look unrelated', () => {
    const outputs = Array.from({ length: 1000 }, (_, i) => mixKey(1, i));
    expect(new Set(outputs).size).toBe(1000);
    const high = outputs.filter((o) => o >= 2 ** 31).length;
    expect(high).toBeGreaterThan(400);
    expect(high).toBeLessThan(600);
  });
});

describe('calendar', () => {
  it.each(['1970-01-01', '2000-02-29', '2024-12-31', '2025-12-31', '2026-01-01', '2018-05-03'])(
    'when %s goes to a day number and back, then it is unchanged and agrees with Date',
    (iso) => {
      const [y, m, d] = iso.split('-').map(Number) as [number, number, number];
      const day = dayOf(y, m, d);
      expect(day).toBe(Date.UTC(y, m - 1, d) / 86_400_000);
      expect(formatDate(day)).toBe(iso);
      expect(civilOf(day)).toEqual({ year: y, month: m, day: d });
    },
  );

  it('when months are added and a time is formatted, then the result is a valid date and time', () => {
    expect(formatDate(addMonths(dayOf(2024, 11, 1), 3))).toBe('2025-02-01');
    expect(formatDateTime(dayOf(2025, 1, 2), 3 * 3600 + 4 * 60 + 5)).toBe('2025-01-02T03:04:05Z');
  });
});

describe('partition', () => {
  it('when children are split among parents, including empty ones, then both directions agree', () => {
    const counts = [0, 3, 0, 0, 2, 5, 0];
    const partition = new Partition(counts.length, (p) => counts[p]!);
    expect(partition.total).toBe(10);
    const owners: number[] = [];
    counts.forEach((count, p) => {
      expect(partition.rangeOf(p).count).toBe(count);
      for (let c = 0; c < count; c++) owners.push(p);
    });
    expect(Array.from({ length: 10 }, (_, i) => partition.parentOf(i))).toEqual(owners);
  });
});
