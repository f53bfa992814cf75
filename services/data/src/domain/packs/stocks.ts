import { dayOf, formatDate } from '../calendar';
import type { EntityDefinition, PackDefinition, Row } from '../entity';
import { Partition } from '../partition';
import { mixKey, Rng, rowRng, streamKey, unit } from '../rng';
import { idOf, round2 } from '../values';

const PACK = 'stocks';
const TICKERS = 500;
/** Trading days per ticker: weekdays (holidays ignored) ending on 2025-12-31. */
const DAYS = 2000;
const ACCOUNTS = 150;
const CURRENCY = 'USD';

// Trading day k falls on weekday (k + 3) % 5 of week (k + 3) / 5 counted from
// FIRST_MONDAY; the offset of 3 makes day DAYS - 1 land on Wednesday 2025-12-31.
const FIRST_MONDAY = dayOf(2025, 12, 31) - 2802;
const tradingDayOf = (k: number) => FIRST_MONDAY + Math.floor((k + 3) / 5) * 7 + ((k + 3) % 5);
/** 2,000 short strings, formatted once: cheaper than formatting a date per candle. */
const TRADING_DATES: readonly string[] = Array.from({ length: DAYS }, (_, k) => formatDate(tradingDayOf(k)));

const PREFIXES = [
  'Apex',
  'Bluewater',
  'Cedar',
  'Delta',
  'Evergreen',
  'Fusion',
  'Granite',
  'Harbor',
  'Ironwood',
  'Juniper',
  'Keystone',
  'Lumen',
  'Meridian',
  'Northstar',
  'Orion',
  'Pioneer',
  'Quantum',
  'Riverside',
  'Summit',
  'Terra',
  'Unity',
  'Vertex',
  'Willow',
  'Zenith',
];
const BUSINESSES: ReadonlyArray<readonly [string, string]> = [
  ['Systems', 'Technology'],
  ['Energy', 'Energy'],
  ['Biotech', 'Health Care'],
  ['Foods', 'Consumer Staples'],
  ['Motors', 'Consumer Discretionary'],
  ['Logistics', 'Industrials'],
  ['Capital', 'Financials'],
  ['Networks', 'Communication Services'],
  ['Pharma', 'Health Care'],
  ['Retail', 'Consumer Discretionary'],
  ['Materials', 'Materials'],
  ['Media', 'Communication Services'],
  ['Robotics', 'Industrials'],
  ['Power', 'Utilities'],
  ['Semiconductors', 'Technology'],
];
const SUFFIXES = ['Inc.', 'Holdings'];

const tickerKey = streamKey(PACK, 'tickers');
const priceKey = streamKey(PACK, 'candles', 'price');
const candleKey = streamKey(PACK, 'candles');
const holdingKey = streamKey(PACK, 'holdings');
const holdingCountKey = streamKey(PACK, 'holdings', 'count');

/** Three-letter symbols from a bijection on 26^3 (7919 is coprime to it), so they never collide. */
function symbolOf(ticker: number): string {
  let code = (ticker * 7919 + 1234) % 17576;
  let symbol = '';
  for (let i = 0; i < 3; i++) {
    symbol = String.fromCharCode(65 + (code % 26)) + symbol;
    code = Math.floor(code / 26);
  }
  return symbol;
}

// Per-ticker price parameters, one small table: log of base price, drift over
// the whole period, volatility, typical daily volume.
const PARAMS_PER_TICKER = 4;
const tickerParams = new Float64Array(TICKERS * PARAMS_PER_TICKER);
for (let t = 0; t < TICKERS; t++) {
  const rng = new Rng(mixKey(priceKey, t));
  tickerParams[t * 4] = Math.log(5) + rng.next() * Math.log(120); // 5 .. 600
  tickerParams[t * 4 + 1] = rng.float(-0.6, 1.2);
  tickerParams[t * 4 + 2] = rng.float(0.15, 0.45);
  tickerParams[t * 4 + 3] = Math.exp(Math.log(2e5) + rng.next() * Math.log(100)); // 2e5 .. 2e7
}

// Multi-scale value noise: smoothly interpolated seeded values at several
// periods. It looks like a random walk but is a closed form in the day, so
// any candle is computed without walking from day 0.
const PERIODS = [400, 130, 45, 15, 5];
const AMPLITUDES = [1.0, 0.55, 0.3, 0.16, 0.08];

function smoothNoise(key: number, octave: number, x: number): number {
  const cell = Math.floor(x);
  const f = x - cell;
  const a = unit(mixKey(key, cell, octave));
  const b = unit(mixKey(key, cell + 1, octave));
  return (a + (b - a) * f * f * (3 - 2 * f)) * 2 - 1;
}

/** Unrounded close of ticker `t` on trading day `k`; always positive (an exponential). */
function rawClose(t: number, k: number): number {
  const key = mixKey(priceKey, t, 1);
  const volatility = tickerParams[t * 4 + 2]!;
  let noise = 0;
  for (let o = 0; o < PERIODS.length; o++) noise += AMPLITUDES[o]! * smoothNoise(key, o, k / PERIODS[o]!);
  const daily = unit(mixKey(key, k, 99)) * 2 - 1;
  return Math.exp(tickerParams[t * 4]! + tickerParams[t * 4 + 1]! * (k / DAYS) + volatility * (noise + 0.06 * daily));
}

/** The published close: what candles, tickers and holdings all agree on. */
function closeOf(t: number, k: number): number {
  return round2(rawClose(t, k));
}

const lastCloseOf = (t: number) => closeOf(t, DAYS - 1);

function tickerRow(index: number): Row {
  const rng = rowRng(tickerKey, index);
  // A scrambled mixed-radix index: unique names, without neighbours looking alike.
  const j = (index * 337 + 101) % 720;
  const [business, sector] = BUSINESSES[Math.floor(j / 24) % 15]!;
  const shares = rng.int(20, 4000) * 1_000_000;
  const lastClose = lastCloseOf(index);
  return {
    symbol: symbolOf(index),
    name: `${PREFIXES[j % 24]} ${business} ${SUFFIXES[Math.floor(j / 360)]}`,
    exchange: rng.chance(0.55) ? 'NYSE' : 'NASDAQ',
    sector,
    currency: CURRENCY,
    listed_on: formatDate(dayOf(1985, 1, 1) + rng.int(0, 11800)),
    shares_outstanding: shares,
    last_close: lastClose,
    market_cap: Math.round(shares * lastClose),
  };
}

function candleRow(index: number): Row {
  const t = Math.floor(index / DAYS);
  const k = index - t * DAYS;
  const key = mixKey(candleKey, t);
  const volatility = tickerParams[t * 4 + 2]!;
  const close = rawClose(t, k);
  const previous = k > 0 ? rawClose(t, k - 1) : close;
  const open = previous * Math.exp((unit(mixKey(key, k, 1)) - 0.5) * 0.02 * volatility);
  const high = Math.max(open, close) * (1 + unit(mixKey(key, k, 2)) * 0.05 * volatility);
  const low = Math.min(open, close) * (1 - unit(mixKey(key, k, 3)) * 0.05 * volatility);
  const move = Math.abs(close / previous - 1);
  const closeRounded = round2(close);
  // Rounding is monotonic, so low <= open, close <= high survives it.
  return {
    ticker: symbolOf(t),
    date: TRADING_DATES[k]!,
    open: round2(open),
    high: round2(high),
    low: round2(low),
    close: closeRounded,
    volume: Math.round(tickerParams[t * 4 + 3]! * (0.4 + 1.2 * unit(mixKey(key, k, 4))) * (1 + 12 * move)),
    change_pct: k > 0 ? round2((closeRounded / round2(previous) - 1) * 100) : null,
  };
}

const holdingsByTicker = new Partition(TICKERS, (t) => Math.floor(unit(mixKey(holdingCountKey, t)) * 9));

function holdingRow(index: number): Row {
  const rng = rowRng(holdingKey, index);
  const t = holdingsByTicker.parentOf(index);
  const openedDay = rng.int(0, DAYS - 1);
  const quantity = rng.int(1, 500) * 10;
  const averageCost = closeOf(t, openedDay);
  const lastClose = lastCloseOf(t);
  return {
    id: idOf('H-', index + 1, 5),
    account_id: idOf('ACC-', rng.int(1, ACCOUNTS), 3),
    ticker: symbolOf(t),
    quantity,
    average_cost: averageCost,
    last_close: lastClose,
    market_value: round2(quantity * lastClose),
    unrealized_pnl: round2(quantity * (lastClose - averageCost)),
    currency: CURRENCY,
    opened_on: TRADING_DATES[openedDay]!,
  };
}

export const tickers: EntityDefinition = {
  pack: PACK,
  name: 'tickers',
  description: 'Listed companies (fictional), one per symbol.',
  count: TICKERS,
  primaryKey: ['symbol'],
  fields: [
    { name: 'symbol', type: 'string', meaning: 'Ticker symbol, unique.' },
    { name: 'name', type: 'string', meaning: 'Company name.', nest: { in: 'company', as: 'name' } },
    { name: 'exchange', type: 'string', meaning: 'Listing exchange: NYSE or NASDAQ.', nest: { in: 'listing', as: 'exchange' } },
    { name: 'sector', type: 'string', meaning: 'GICS-style sector.', nest: { in: 'company', as: 'sector' } },
    { name: 'currency', type: 'string', meaning: 'Trading currency.', nest: { in: 'listing', as: 'currency' } },
    { name: 'listed_on', type: 'date', meaning: 'Listing date.', nest: { in: 'listing', as: 'listed_on' } },
    { name: 'shares_outstanding', type: 'integer', meaning: 'Number of shares issued.', nest: { in: 'market', as: 'shares_outstanding' } },
    {
      name: 'last_close',
      type: 'number',
      meaning: 'Close on the last trading day, 2025-12-31 (equals the last candle).',
      nest: { in: 'market', as: 'last_close' },
    },
    { name: 'market_cap', type: 'number', meaning: 'shares_outstanding times last_close.', nest: { in: 'market', as: 'cap' } },
  ],
  row: tickerRow,
  nestedList: { kind: 'children', key: 'holdings', child: () => holdings, childrenOf: (i) => holdingsByTicker.rangeOf(i) },
};

export const candles: EntityDefinition = {
  pack: PACK,
  name: 'candles',
  description: `Daily OHLCV candles: ${DAYS} trading days (weekdays to 2025-12-31) for each of the ${TICKERS} tickers; ordered by ticker, then date ascending.`,
  count: TICKERS * DAYS,
  primaryKey: ['ticker', 'date'],
  fields: [
    { name: 'ticker', type: 'string', meaning: 'Ticker symbol.', references: { entity: 'tickers', field: 'symbol' } },
    { name: 'date', type: 'date', meaning: 'Trading day.' },
    { name: 'open', type: 'number', meaning: 'Opening price.', nest: { in: 'price', as: 'open' } },
    { name: 'high', type: 'number', meaning: 'Highest price of the day; at least open and close.', nest: { in: 'price', as: 'high' } },
    { name: 'low', type: 'number', meaning: 'Lowest price of the day; at most open and close.', nest: { in: 'price', as: 'low' } },
    { name: 'close', type: 'number', meaning: 'Closing price.', nest: { in: 'price', as: 'close' } },
    { name: 'volume', type: 'integer', meaning: 'Shares traded.' },
    { name: 'change_pct', type: 'number', nullable: true, meaning: 'Close against the previous close, percent; null on the first day.' },
  ],
  row: candleRow,
  nestedList: { kind: 'grouped', key: 'candles', parent: () => tickers, parentOf: (i) => Math.floor(i / DAYS) },
};

export const holdings: EntityDefinition = {
  pack: PACK,
  name: 'holdings',
  description: 'Positions held by brokerage accounts, valued at the last close; ordered by ticker.',
  count: holdingsByTicker.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Position identifier.' },
    { name: 'account_id', type: 'string', meaning: 'Brokerage account holding the position.' },
    { name: 'ticker', type: 'string', meaning: 'Ticker symbol held.', references: { entity: 'tickers', field: 'symbol' } },
    { name: 'quantity', type: 'integer', meaning: 'Shares held.', nest: { in: 'position', as: 'quantity' } },
    {
      name: 'average_cost',
      type: 'number',
      meaning: 'Price paid per share: the close on the day the position was opened.',
      nest: { in: 'position', as: 'average_cost' },
    },
    { name: 'last_close', type: 'number', meaning: 'Close on 2025-12-31.', nest: { in: 'valuation', as: 'last_close' } },
    { name: 'market_value', type: 'number', meaning: 'quantity times last_close.', nest: { in: 'valuation', as: 'market_value' } },
    { name: 'unrealized_pnl', type: 'number', meaning: 'Gain or loss against average_cost.', nest: { in: 'valuation', as: 'unrealized_pnl' } },
    { name: 'currency', type: 'string', meaning: 'Currency of the amounts.', nest: { in: 'valuation', as: 'currency' } },
    { name: 'opened_on', type: 'date', meaning: 'Trading day the position was opened.', nest: { in: 'position', as: 'opened_on' } },
  ],
  row: holdingRow,
  nestedList: { kind: 'grouped', key: 'holdings', parent: () => tickers, parentOf: (i) => holdingsByTicker.parentOf(i) },
};

export const stocks: PackDefinition = {
  name: PACK,
  scope: 'stocks:read',
  description: 'Equity market data: tickers, one million daily candles and account holdings.',
  entities: [tickers, candles, holdings],
};
