import { dayOf, formatDate } from '../calendar';
import type { EntityDefinition, PackDefinition, Row } from '../entity';
import { Partition } from '../partition';
import { mixKey, Rng, rowRng, streamKey, unit } from '../rng';
import { idOf, round2 } from '../values';

const PACK = 'marketing';
const CURRENCY = 'USD';
const LAST_DAY = dayOf(2025, 12, 31);

// [name, type, cost model, typical click-through rate, typical conversion rate, typical cost per click]
const CHANNELS: ReadonlyArray<readonly [string, string, string, number, number, number]> = [
  ['Google Search', 'paid_search', 'CPC', 0.045, 0.06, 2.1],
  ['Bing Search', 'paid_search', 'CPC', 0.035, 0.05, 1.5],
  ['Meta Ads', 'paid_social', 'CPM', 0.012, 0.025, 0.9],
  ['LinkedIn Ads', 'paid_social', 'CPC', 0.006, 0.04, 5.5],
  ['TikTok Ads', 'paid_social', 'CPM', 0.01, 0.015, 0.6],
  ['YouTube', 'video', 'CPM', 0.008, 0.012, 0.5],
  ['Programmatic Display', 'display', 'CPM', 0.002, 0.01, 0.7],
  ['Newsletter', 'email', 'flat', 0.03, 0.05, 0.3],
  ['Lifecycle Email', 'email', 'flat', 0.05, 0.07, 0.15],
  ['Affiliate Network', 'affiliate', 'CPA', 0.015, 0.08, 1.2],
  ['Podcast Sponsorship', 'audio', 'flat', 0.003, 0.02, 3.0],
  ['Reddit Ads', 'paid_social', 'CPC', 0.009, 0.02, 0.8],
];
const OBJECTIVES = ['awareness', 'traffic', 'leads', 'sales', 'retention'];
const THEMES = [
  'Spring Launch',
  'Summer Sale',
  'Back to School',
  'Black Friday',
  'Holiday Gifts',
  'Brand Always-On',
  'Product Webinar',
  'Free Trial',
  'Win-Back',
  'New Market',
  'Loyalty Rewards',
  'Referral Push',
];

const channelKey = streamKey(PACK, 'channels');
const campaignKey = streamKey(PACK, 'campaigns');
const campaignCountKey = streamKey(PACK, 'campaigns', 'count');
const campaignPlanKey = streamKey(PACK, 'campaigns', 'plan');
const dailyKey = streamKey(PACK, 'daily');

const campaignsByChannel = new Partition(CHANNELS.length, (c) => 10 + Math.floor(unit(mixKey(campaignCountKey, c)) * 21));
/** Days a campaign runs: also its number of daily rows. */
const durationOf = (campaign: number) => 14 + Math.floor(unit(mixKey(campaignPlanKey, campaign)) * 29);
const dailyByCampaign = new Partition(campaignsByChannel.total, durationOf);

interface CampaignPlan {
  start: number;
  days: number;
  dailyBudget: number;
}

/** What the campaign row and its daily rows must agree on, from one sub-stream. */
function planOf(campaign: number): CampaignPlan {
  const days = durationOf(campaign);
  const rng = new Rng(mixKey(campaignPlanKey, campaign, 1));
  // About one in eight is still running on the last day of the data.
  const start = rng.chance(0.125) ? LAST_DAY - days + 1 : dayOf(2025, 1, 1) + rng.int(0, 365 - days);
  return { start, days, dailyBudget: rng.int(4, 400) * 25 };
}

function channelRow(index: number): Row {
  const rng = rowRng(channelKey, index);
  const [name, type, costModel] = CHANNELS[index]!;
  return {
    id: idOf('CH-', index + 1, 2),
    name,
    type,
    cost_model: costModel,
    owner_team: rng.pick(['Growth', 'Brand', 'Performance', 'Lifecycle']),
    active: index !== 10 && index !== 1,
  };
}

function campaignRow(index: number): Row {
  const rng = rowRng(campaignKey, index);
  const channel = campaignsByChannel.parentOf(index);
  const plan = planOf(index);
  const end = plan.start + plan.days - 1;
  return {
    id: idOf('CMP-', index + 1, 4),
    name: `${rng.pick(THEMES)} ${formatDate(plan.start).slice(0, 4)} - ${CHANNELS[channel]![0]}`,
    channel_id: idOf('CH-', channel + 1, 2),
    channel_name: CHANNELS[channel]![0],
    objective: rng.pick(OBJECTIVES),
    status: end >= LAST_DAY ? 'active' : 'completed',
    start_date: formatDate(plan.start),
    end_date: formatDate(end),
    daily_budget: plan.dailyBudget,
    total_budget: plan.dailyBudget * plan.days,
    currency: CURRENCY,
  };
}

function dailyRow(index: number): Row {
  const rng = rowRng(dailyKey, index);
  const campaign = dailyByCampaign.parentOf(index);
  const day = index - dailyByCampaign.startOf(campaign);
  const channel = campaignsByChannel.parentOf(campaign);
  const plan = planOf(campaign);
  const [, , , ctr, conversionRate, costPerClick] = CHANNELS[channel]!;
  // Spend paces at or under the daily budget; clicks follow from spend, impressions from clicks.
  const spend = round2(plan.dailyBudget * rng.float(0.55, 1));
  const clicks = Math.round(spend / (costPerClick * rng.float(0.7, 1.4)));
  const impressions = Math.max(clicks, Math.round(clicks / (ctr * rng.float(0.7, 1.3))));
  const conversions = Math.min(clicks, Math.round(clicks * conversionRate * rng.float(0.5, 1.5)));
  const revenue = round2(conversions * rng.float(40, 160));
  return {
    id: idOf('DLY-', index + 1, 6),
    date: formatDate(plan.start + day),
    campaign_id: idOf('CMP-', campaign + 1, 4),
    channel_id: idOf('CH-', channel + 1, 2),
    impressions,
    clicks,
    conversions,
    ctr_pct: impressions === 0 ? 0 : round2((clicks / impressions) * 100),
    spend,
    cpc: clicks === 0 ? null : round2(spend / clicks),
    revenue,
    roas: spend === 0 ? 0 : round2(revenue / spend),
    currency: CURRENCY,
  };
}

export const channels: EntityDefinition = {
  pack: PACK,
  name: 'channels',
  description: 'Acquisition channels campaigns run on.',
  count: CHANNELS.length,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Channel identifier.' },
    { name: 'name', type: 'string', meaning: 'Channel name.' },
    { name: 'type', type: 'string', meaning: 'Channel family, e.g. paid_search, paid_social, email.' },
    { name: 'cost_model', type: 'string', meaning: 'How the channel bills: CPC, CPM, CPA or flat.' },
    { name: 'owner_team', type: 'string', meaning: 'Team that manages the channel.' },
    { name: 'active', type: 'boolean', meaning: 'False when the channel is no longer used for new campaigns.' },
  ],
  row: channelRow,
  nestedList: { kind: 'children', key: 'campaigns', child: () => campaigns, childrenOf: (i) => campaignsByChannel.rangeOf(i) },
};

export const campaigns: EntityDefinition = {
  pack: PACK,
  name: 'campaigns',
  description: 'Campaigns of 2025, each on one channel; ordered by channel.',
  count: campaignsByChannel.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Campaign identifier.' },
    { name: 'name', type: 'string', meaning: 'Campaign name.' },
    {
      name: 'channel_id',
      type: 'string',
      meaning: 'Channel the campaign runs on.',
      references: { entity: 'channels', field: 'id' },
      nest: { in: 'channel', as: 'id' },
    },
    { name: 'channel_name', type: 'string', meaning: 'Name of that channel.', nest: { in: 'channel', as: 'name' } },
    { name: 'objective', type: 'string', meaning: 'Goal: awareness, traffic, leads, sales or retention.' },
    { name: 'status', type: 'string', meaning: 'active if it runs on 2025-12-31, otherwise completed.' },
    { name: 'start_date', type: 'date', meaning: 'First day; the first daily row.', nest: { in: 'flight', as: 'start_date' } },
    { name: 'end_date', type: 'date', meaning: 'Last day; the last daily row.', nest: { in: 'flight', as: 'end_date' } },
    { name: 'daily_budget', type: 'number', meaning: 'Spend cap per day.', nest: { in: 'budget', as: 'daily' } },
    { name: 'total_budget', type: 'number', meaning: 'daily_budget times the days the campaign runs.', nest: { in: 'budget', as: 'total' } },
    { name: 'currency', type: 'string', meaning: 'Currency of the budgets.', nest: { in: 'budget', as: 'currency' } },
  ],
  row: campaignRow,
  nestedList: { kind: 'children', key: 'daily', child: () => daily, childrenOf: (i) => dailyByCampaign.rangeOf(i) },
};

export const daily: EntityDefinition = {
  pack: PACK,
  name: 'daily',
  description: 'One performance row per campaign per day it ran; ordered by campaign, then date.',
  count: dailyByCampaign.total,
  primaryKey: ['id'],
  fields: [
    { name: 'id', type: 'string', meaning: 'Row identifier.' },
    { name: 'date', type: 'date', meaning: 'Day reported, within the campaign dates.' },
    {
      name: 'campaign_id',
      type: 'string',
      meaning: 'Campaign reported.',
      references: { entity: 'campaigns', field: 'id' },
      nest: { in: 'campaign', as: 'id' },
    },
    {
      name: 'channel_id',
      type: 'string',
      meaning: 'Channel of that campaign.',
      references: { entity: 'channels', field: 'id' },
      nest: { in: 'channel', as: 'id' },
    },
    { name: 'impressions', type: 'integer', meaning: 'Times an ad was shown.', nest: { in: 'delivery', as: 'impressions' } },
    { name: 'clicks', type: 'integer', meaning: 'Clicks; never more than impressions.', nest: { in: 'delivery', as: 'clicks' } },
    { name: 'conversions', type: 'integer', meaning: 'Conversions; never more than clicks.', nest: { in: 'delivery', as: 'conversions' } },
    { name: 'ctr_pct', type: 'number', meaning: 'clicks / impressions, percent.', nest: { in: 'delivery', as: 'ctr_pct' } },
    { name: 'spend', type: 'number', meaning: 'Amount spent; at most the daily budget.', nest: { in: 'cost', as: 'spend' } },
    { name: 'cpc', type: 'number', nullable: true, meaning: 'spend / clicks; null without clicks.', nest: { in: 'cost', as: 'cpc' } },
    { name: 'revenue', type: 'number', meaning: 'Revenue attributed to the conversions.', nest: { in: 'outcome', as: 'revenue' } },
    { name: 'roas', type: 'number', meaning: 'Return on ad spend: revenue / spend.', nest: { in: 'outcome', as: 'roas' } },
    { name: 'currency', type: 'string', meaning: 'Currency of spend and revenue.', nest: { in: 'cost', as: 'currency' } },
  ],
  row: dailyRow,
  nestedList: { kind: 'grouped', key: 'daily', parent: () => campaigns, parentOf: (i) => dailyByCampaign.parentOf(i) },
};

export const marketing: PackDefinition = {
  name: PACK,
  scope: 'marketing:read',
  description: 'Marketing performance: channels, their 2025 campaigns and daily delivery, spend and revenue.',
  entities: [channels, campaigns, daily],
};
