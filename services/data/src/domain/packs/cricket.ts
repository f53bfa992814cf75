import { dayOf, formatDate, formatDateTime } from '../calendar';
import type { EntityDefinition, PackDefinition, Row } from '../entity';
import { Partition } from '../partition';
import { mixKey, Rng, rowRng, streamKey } from '../rng';
import { fullName, idOf } from '../values';

const PACK = 'cricket';
const PLAYERS_PER_TEAM = 18;
const MATCHES = 600;
const FIRST_MATCH_DAY = dayOf(2019, 1, 1);
const LAST_MATCH_DAY = dayOf(2025, 12, 20);

// [name, short name, home ground, city, plays Test cricket]
const TEAMS: ReadonlyArray<readonly [string, string, string, string, boolean]> = [
  ['India', 'IND', 'Wankhede Stadium', 'Mumbai', true],
  ['Australia', 'AUS', 'Melbourne Cricket Ground', 'Melbourne', true],
  ['England', 'ENG', "Lord's", 'London', true],
  ['South Africa', 'SA', 'Newlands', 'Cape Town', true],
  ['New Zealand', 'NZ', 'Basin Reserve', 'Wellington', true],
  ['Pakistan', 'PAK', 'Gaddafi Stadium', 'Lahore', true],
  ['Sri Lanka', 'SL', 'Galle International Stadium', 'Galle', true],
  ['West Indies', 'WI', 'Kensington Oval', 'Bridgetown', true],
  ['Bangladesh', 'BAN', 'Shere Bangla National Stadium', 'Dhaka', true],
  ['Afghanistan', 'AFG', 'Sharjah Cricket Stadium', 'Sharjah', true],
  ['Zimbabwe', 'ZIM', 'Harare Sports Club', 'Harare', true],
  ['Ireland', 'IRE', 'Malahide', 'Dublin', true],
  ['Netherlands', 'NED', 'VRA Ground', 'Amstelveen', false],
  ['Scotland', 'SCO', 'The Grange', 'Edinburgh', false],
  ['Nepal', 'NEP', 'Tribhuvan University Ground', 'Kirtipur', false],
  ['United Arab Emirates', 'UAE', 'Dubai International Stadium', 'Dubai', false],
];
const FORMATS = { Test: 0, ODI: 50, T20I: 20 } as const;
type Format = keyof typeof FORMATS;
/** By position in the squad: a balanced eighteen, captain first. */
const ROLES = [
  'batter',
  'batter',
  'batter',
  'batter',
  'batter',
  'batter',
  'batter',
  'wicketkeeper',
  'wicketkeeper',
  'all-rounder',
  'all-rounder',
  'all-rounder',
  'bowler',
  'bowler',
  'bowler',
  'bowler',
  'bowler',
  'bowler',
];
const BOWLING_STYLES = ['right-arm fast', 'left-arm fast', 'right-arm medium', 'right-arm off-break', 'right-arm leg-break', 'left-arm orthodox'];

const teamKey = streamKey(PACK, 'teams');
const playerKey = streamKey(PACK, 'players');
const matchKey = streamKey(PACK, 'matches');
const outlineKey = streamKey(PACK, 'matches', 'outline');

const plural = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;

interface Innings {
  batting: number;
  bowling: number;
  runs: number;
  wickets: number;
  balls: number;
  extras: number;
  declared: boolean;
}

interface Outline {
  format: Format;
  home: number;
  away: number;
  tossWinner: number;
  battingFirst: number;
  innings: Innings[];
  /** Winning team index, -1 for a draw or tie. */
  winner: number;
  result: 'home_win' | 'away_win' | 'draw' | 'tie';
  margin: string | null;
}

function innings(rng: Rng, batting: number, bowling: number, runs: number, wickets: number, balls: number, declared = false): Innings {
  return { batting, bowling, runs, wickets, balls, extras: Math.min(runs, rng.int(2, 24)), declared };
}

/** Test overs follow from runs at a Test scoring rate. */
const testBalls = (rng: Rng, runs: number) => Math.max(30, Math.round((runs / rng.float(2.7, 3.9)) * 6));

function limitedOvers(rng: Rng, overs: number, a: number, b: number): { innings: Innings[]; winner: number; margin: string | null } {
  const maxBalls = overs * 6;
  const rate = overs === 50 ? rng.float(4.4, 6.9) : rng.float(6.6, 10.2);
  const w1 = rng.chance(0.35) ? 10 : rng.int(3, 9);
  const b1 = w1 === 10 ? rng.int(Math.round(maxBalls * 0.6), maxBalls) : maxBalls;
  const r1 = Math.round((b1 / 6) * rate);
  const first = innings(rng, a, b, r1, w1, b1);
  const chase = rng.next();
  if (chase < 0.48) {
    const wickets = rng.int(1, 9);
    return {
      innings: [first, innings(rng, b, a, r1 + 1 + rng.int(0, 5), wickets, rng.int(Math.round(maxBalls * 0.55), maxBalls))],
      winner: b,
      margin: plural(10 - wickets, 'wicket'),
    };
  }
  if (chase < 0.49) {
    return { innings: [first, innings(rng, b, a, r1, rng.int(5, 9), maxBalls)], winner: -1, margin: null };
  }
  const runs = rng.int(Math.round(r1 * 0.45), r1 - 1);
  const allOut = rng.chance(0.6);
  const second = innings(rng, b, a, runs, allOut ? 10 : rng.int(4, 9), allOut ? rng.int(Math.round(maxBalls * 0.4), maxBalls - 1) : maxBalls);
  return { innings: [first, second], winner: a, margin: plural(r1 - runs, 'run') };
}

function test(rng: Rng, a: number, b: number): { innings: Innings[]; winner: number; margin: string | null } {
  if (rng.chance(0.2)) {
    // Innings victory: b follows on and is bowled out twice short of a's score.
    const declared = rng.chance(0.6);
    const r1 = rng.int(380, 620);
    const r2 = rng.int(120, 260);
    const r3 = rng.int(60, r1 - r2 - 1);
    return {
      innings: [
        innings(rng, a, b, r1, declared ? rng.int(5, 9) : 10, testBalls(rng, r1), declared),
        innings(rng, b, a, r2, 10, testBalls(rng, r2)),
        innings(rng, b, a, r3, 10, testBalls(rng, r3)),
      ],
      winner: a,
      margin: `an innings and ${plural(r1 - r2 - r3, 'run')}`,
    };
  }
  const r1 = rng.int(200, 500);
  const r2 = rng.int(180, 480);
  const r3 = Math.max(rng.int(120, 380), r2 - r1 + rng.int(50, 200));
  const declared = rng.chance(0.4);
  const target = r1 + r3 - r2 + 1;
  const played = [
    innings(rng, a, b, r1, 10, testBalls(rng, r1)),
    innings(rng, b, a, r2, 10, testBalls(rng, r2)),
    innings(rng, a, b, r3, declared ? rng.int(3, 9) : 10, testBalls(rng, r3), declared),
  ];
  const outcome = rng.next();
  if (outcome < 0.38) {
    const wickets = rng.int(1, 9);
    const runs = target + rng.int(0, 3);
    return { innings: [...played, innings(rng, b, a, runs, wickets, testBalls(rng, runs))], winner: b, margin: plural(10 - wickets, 'wicket') };
  }
  const allOut = outcome < 0.75;
  // All out one short of the target would be a tie, which this data leaves out.
  const runs = rng.int(Math.round(target * 0.3), allOut ? target - 2 : target - 1);
  const fourth = innings(rng, b, a, runs, allOut ? 10 : rng.int(3, 9), testBalls(rng, runs));
  return allOut
    ? { innings: [...played, fourth], winner: a, margin: plural(target - 1 - runs, 'run') }
    : { innings: [...played, fourth], winner: -1, margin: null };
}

/** Everything the match row and its innings rows must agree on, from one sub-stream. */
function outlineOf(match: number): Outline {
  const rng = new Rng(mixKey(outlineKey, match));
  const home = rng.int(0, TEAMS.length - 1);
  const away = (home + rng.int(1, TEAMS.length - 1)) % TEAMS.length;
  const testNations = TEAMS[home]![4] && TEAMS[away]![4];
  const pick = rng.next();
  const format: Format = testNations && pick < 0.25 ? 'Test' : pick < 0.6 ? 'ODI' : 'T20I';
  const tossWinner = rng.chance(0.5) ? home : away;
  const battingFirst = rng.chance(0.55) ? tossWinner : tossWinner === home ? away : home;
  const fieldingFirst = battingFirst === home ? away : home;
  const played = format === 'Test' ? test(rng, battingFirst, fieldingFirst) : limitedOvers(rng, FORMATS[format], battingFirst, fieldingFirst);
  const result = played.winner < 0 ? (format === 'Test' ? 'draw' : 'tie') : played.winner === home ? 'home_win' : 'away_win';
  return { format, home, away, tossWinner, battingFirst, innings: played.innings, winner: played.winner, result, margin: played.margin };
}

const inningsByMatch = new Partition(MATCHES, (m) => outlineOf(m).innings.length);

const teamId = (team: number) => idOf('T', team + 1, 2);
const playerId = (player: number) => idOf('P', player + 1, 4);
const matchId = (match: number) => idOf('M', match + 1, 4);
const oversOf = (balls: number) => Math.floor(balls / 6) + (balls % 6) / 10;

function teamRow(index: number): Row {
  const rng = rowRng(teamKey, index);
  const [name, short, ground, city, tests] = TEAMS[index]!;
  return {
    id: teamId(index),
    name,
    short_name: short,
    home_ground: ground,
    city,
    captain_player_id: playerId(index * PLAYERS_PER_TEAM),
    coach: fullName(rng),
    plays_tests: tests,
  };
}

function playerRow(index: number): Row {
  const rng = rowRng(playerKey, index);
  const team = Math.floor(index / PLAYERS_PER_TEAM);
  const role = ROLES[index % PLAYERS_PER_TEAM]!;
  const born = dayOf(1986, 1, 1) + rng.int(0, 6800);
  const debut = born + rng.int(18 * 365, 22 * 365);
  const matches = rng.int(5, Math.max(6, Math.round((dayOf(2025, 12, 31) - debut) / 30)));
  const batting = role === 'bowler' ? rng.float(6, 18) : role === 'all-rounder' ? rng.float(18, 35) : rng.float(25, 52);
  const bowls = role === 'bowler' || role === 'all-rounder' || (role === 'batter' && rng.chance(0.3));
  return {
    id: playerId(index),
    full_name: fullName(rng),
    team_id: teamId(team),
    role,
    batting_style: rng.chance(0.7) ? 'right-hand bat' : 'left-hand bat',
    bowling_style: bowls ? rng.pick(BOWLING_STYLES) : null,
    born_on: formatDate(born),
    debut_on: formatDate(debut),
    matches,
    runs: Math.round(matches * batting * rng.float(1.1, 1.6)),
    wickets:
      role === 'bowler'
        ? Math.round(matches * rng.float(1.1, 2.2))
        : role === 'all-rounder'
          ? Math.round(matches * rng.float(0.5, 1.2))
          : bowls
            ? rng.int(0, Math.round(matches * 0.2))
            : 0,
  };
}

function matchRow(index: number): Row {
  const rng = rowRng(matchKey, index);
  const o = outlineOf(index);
  const day = FIRST_MATCH_DAY + Math.floor((index * (LAST_MATCH_DAY - FIRST_MATCH_DAY)) / MATCHES);
  const hour = o.format === 'Test' ? rng.int(4, 10) : o.format === 'ODI' ? rng.int(8, 12) : rng.int(12, 18);
  return {
    id: matchId(index),
    format: o.format,
    starts_at: formatDateTime(day, hour * 3600 + (rng.chance(0.5) ? 1800 : 0)),
    venue: TEAMS[o.home]![2],
    city: TEAMS[o.home]![3],
    home_team_id: teamId(o.home),
    away_team_id: teamId(o.away),
    toss_winner_team_id: teamId(o.tossWinner),
    batting_first_team_id: teamId(o.battingFirst),
    result: o.result,
    winner_team_id: o.winner < 0 ? null : teamId(o.winner),
    margin: o.margin,
    innings_count: o.innings.length,
  };
}

function inningsRow(index: number): Row {
  const match = inningsByMatch.parentOf(index);
  const number = index - inningsByMatch.startOf(match);
  const i = outlineOf(match).innings[number]!;
  return {
    id: idOf('INN-', index + 1, 5),
    match_id: matchId(match),
    number: number + 1,
    batting_team_id: teamId(i.batting),
    bowling_team_id: teamId(i.bowling),
    runs: i.runs,
    wickets: i.wickets,
    overs: oversOf(i.balls),
    extras: i.extras,
    all_out: i.wickets === 10,
    declared: i.declared,
  };
}

export const teams: EntityDefinition = {
  pack: PACK,
  name: 'teams',
  description: 'International teams (real names, fictional squads).',
  count: TEAMS.length,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Team identifier.' },
    { name: 'name', type: 'string', meaning: 'Team name.' },
    { name: 'short_name', type: 'string', meaning: 'Scorecard abbreviation.' },
    { name: 'home_ground', type: 'string', meaning: 'Ground of its home matches.', nest: { in: 'home', as: 'ground' } },
    { name: 'city', type: 'string', meaning: 'City of the home ground.', nest: { in: 'home', as: 'city' } },
    {
      name: 'captain_player_id',
      type: 'string',
      meaning: 'Captain, one of its players.',
      references: { entity: 'players', field: 'id' },
      nest: { in: 'staff', as: 'captain_player_id' },
    },
    { name: 'coach', type: 'string', meaning: 'Head coach.', nest: { in: 'staff', as: 'coach' } },
    { name: 'plays_tests', type: 'boolean', meaning: 'True for Test-playing nations; only they meet in Tests.' },
  ],
  row: teamRow,
  nestedList: { kind: 'children', key: 'players', child: () => players, childrenOf: (i) => ({ start: i * PLAYERS_PER_TEAM, count: PLAYERS_PER_TEAM }) },
};

export const players: EntityDefinition = {
  pack: PACK,
  name: 'players',
  description: `Squads of ${PLAYERS_PER_TEAM} players per team; ordered by team, captain first.`,
  count: TEAMS.length * PLAYERS_PER_TEAM,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Player identifier.' },
    { name: 'full_name', type: 'string', meaning: 'Player name.' },
    { name: 'team_id', type: 'string', meaning: 'Team the player is in.', references: { entity: 'teams', field: 'id' } },
    { name: 'role', type: 'string', meaning: 'batter, wicketkeeper, all-rounder or bowler.' },
    { name: 'batting_style', type: 'string', meaning: 'right-hand bat or left-hand bat.', nest: { in: 'style', as: 'batting' } },
    { name: 'bowling_style', type: 'string', nullable: true, meaning: 'Bowling style; null for those who do not bowl.', nest: { in: 'style', as: 'bowling' } },
    { name: 'born_on', type: 'date', meaning: 'Date of birth.' },
    { name: 'debut_on', type: 'date', meaning: 'Date of international debut.', nest: { in: 'career', as: 'debut_on' } },
    { name: 'matches', type: 'integer', meaning: 'International matches played.', nest: { in: 'career', as: 'matches' } },
    { name: 'runs', type: 'integer', meaning: 'Career runs.', nest: { in: 'career', as: 'runs' } },
    { name: 'wickets', type: 'integer', meaning: 'Career wickets.', nest: { in: 'career', as: 'wickets' } },
  ],
  row: playerRow,
  nestedList: { kind: 'grouped', key: 'players', parent: () => teams, parentOf: (i) => Math.floor(i / PLAYERS_PER_TEAM) },
};

export const matches: EntityDefinition = {
  pack: PACK,
  name: 'matches',
  description: 'Tests, ODIs and T20Is from 2019 to 2025 between two different teams; ordered by start time. Results agree with the innings.',
  count: MATCHES,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Match identifier.' },
    { name: 'format', type: 'string', meaning: 'Test, ODI or T20I.' },
    { name: 'starts_at', type: 'datetime', meaning: 'Scheduled start (UTC).' },
    { name: 'venue', type: 'string', meaning: "Ground: the home team's.", nest: { in: 'venue', as: 'ground' } },
    { name: 'city', type: 'string', meaning: 'City of the ground.', nest: { in: 'venue', as: 'city' } },
    { name: 'home_team_id', type: 'string', meaning: 'Home team.', references: { entity: 'teams', field: 'id' }, nest: { in: 'teams', as: 'home_id' } },
    {
      name: 'away_team_id',
      type: 'string',
      meaning: 'Visiting team, never the home team.',
      references: { entity: 'teams', field: 'id' },
      nest: { in: 'teams', as: 'away_id' },
    },
    {
      name: 'toss_winner_team_id',
      type: 'string',
      meaning: 'Team that won the toss.',
      references: { entity: 'teams', field: 'id' },
      nest: { in: 'toss', as: 'winner_team_id' },
    },
    {
      name: 'batting_first_team_id',
      type: 'string',
      meaning: 'Team that batted first.',
      references: { entity: 'teams', field: 'id' },
      nest: { in: 'toss', as: 'batting_first_team_id' },
    },
    { name: 'result', type: 'string', meaning: 'home_win, away_win, draw (Tests) or tie.', nest: { in: 'outcome', as: 'result' } },
    {
      name: 'winner_team_id',
      type: 'string',
      nullable: true,
      meaning: 'Winning team; null for a draw or tie.',
      references: { entity: 'teams', field: 'id' },
      nest: { in: 'outcome', as: 'winner_team_id' },
    },
    {
      name: 'margin',
      type: 'string',
      nullable: true,
      meaning: 'Winning margin, e.g. "6 wickets"; null for a draw or tie.',
      nest: { in: 'outcome', as: 'margin' },
    },
    { name: 'innings_count', type: 'integer', meaning: 'Number of innings rows of the match.' },
  ],
  row: matchRow,
  nestedList: { kind: 'children', key: 'innings', child: () => inningsEntity, childrenOf: (i) => inningsByMatch.rangeOf(i) },
};

const inningsEntity: EntityDefinition = {
  pack: PACK,
  name: 'innings',
  description: 'Innings of each match, in batting order; ordered by match.',
  count: inningsByMatch.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Innings identifier.' },
    { name: 'match_id', type: 'string', meaning: 'Match the innings belongs to.', references: { entity: 'matches', field: 'id' } },
    { name: 'number', type: 'integer', meaning: 'Innings number within the match, from 1.' },
    { name: 'batting_team_id', type: 'string', meaning: 'Batting team, one of the two in the match.', references: { entity: 'teams', field: 'id' } },
    { name: 'bowling_team_id', type: 'string', meaning: 'Fielding team, the other one.', references: { entity: 'teams', field: 'id' } },
    { name: 'runs', type: 'integer', meaning: 'Runs scored, extras included.', nest: { in: 'score', as: 'runs' } },
    { name: 'wickets', type: 'integer', meaning: 'Wickets lost, 0 to 10.', nest: { in: 'score', as: 'wickets' } },
    { name: 'overs', type: 'number', meaning: 'Overs faced in cricket notation: 49.3 is 49 overs and 3 balls.', nest: { in: 'score', as: 'overs' } },
    { name: 'extras', type: 'integer', meaning: 'Runs from extras.', nest: { in: 'score', as: 'extras' } },
    { name: 'all_out', type: 'boolean', meaning: 'True when ten wickets fell.' },
    { name: 'declared', type: 'boolean', meaning: 'True when the batting side declared (Tests only).' },
  ],
  row: inningsRow,
  nestedList: { kind: 'grouped', key: 'innings', parent: () => matches, parentOf: (i) => inningsByMatch.parentOf(i) },
};

export { inningsEntity as innings };

export const cricket: PackDefinition = {
  name: PACK,
  scope: 'cricket:read',
  description: 'International cricket: teams, squads, matches and their innings, with results that follow from the scores.',
  entities: [teams, players, matches, inningsEntity],
};
