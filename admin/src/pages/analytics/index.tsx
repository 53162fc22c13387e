/** #/analytics: totals for a chosen period and bot, per-day charts, tool use, provider usage and cost, and unanswered questions. */
import { useState } from 'preact/hooks';
import { api, query } from '../../api.js';
import type { BotSummary, Page } from '../../types.js';
import { EmptyState, PageHeader } from '../../ui/layout.js';
import { ErrorText, Loading, useLoad } from '../../ui.js';
import { GapsTable } from '../knowledge/gaps.js';
import type { Gap } from '../knowledge/types.js';
import { DayChart } from './chart.js';
import { Totals } from './totals.js';
import { ToolsTable, UsageTable } from './tables.js';
import type { Summary, Timeseries, ToolUse, Usage } from './types.js';

const PERIODS: Array<[string, string]> = [['7', 'Last 7 days'], ['30', 'Last 30 days'], ['90', 'Last 90 days'], ['365', 'Last 12 months'], ['custom', 'Custom…']];
const COLORS = { a: '#2557d6', b: '#0e9384', c: '#c4320a', d: '#7a5af8' };

export default function AnalyticsArea() {
  const [period, setPeriod] = useState('30');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [botId, setBotId] = useState('');
  const bots = useLoad(() => api<Page<BotSummary>>('GET', '/bots?limit=100').catch(() => ({ items: [], nextBefore: null })));
  const q = query(period === 'custom' ? { from, to, botId } : { days: period, botId });
  const ready = period !== 'custom' || (from && to);
  const data = useLoad(async () => {
    if (!ready) return null;
    const [summary, series, tools, usage, gaps] = await Promise.all([
      api<Summary>('GET', `/analytics/summary${q}`), api<Timeseries>('GET', `/analytics/timeseries${q}`),
      api<ToolUse>('GET', `/analytics/tools${q}`), api<Usage>('GET', `/analytics/usage${q}`),
      api<Page<Gap>>('GET', '/knowledge/gaps?limit=10'),
    ]);
    return { summary, series, tools, usage, gaps };
  }, [q, ready]);
  const d = data.data;
  const days = d?.series.items.map((i) => i.day) ?? [];
  const col = (f: (i: Timeseries['items'][number]) => number) => d?.series.items.map(f) ?? [];
  return (
    <section class="k-area analytics">
      <PageHeader title="Analytics" description="How your bots are doing: conversations, leads, handoffs, ratings, tool use and what the providers cost." />
      <div class="toolbar card period">
        <label class="field"><span>Period</span>
          <select name="period" value={period} onChange={(e) => setPeriod(e.currentTarget.value)}>{PERIODS.map(([v, t]) => <option key={v} value={v}>{t}</option>)}</select>
        </label>
        {period === 'custom' && <>
          <label class="field"><span>From</span><input type="date" name="from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} /></label>
          <label class="field"><span>To</span><input type="date" name="to" value={to} onInput={(e) => setTo(e.currentTarget.value)} /></label>
        </>}
        <label class="field"><span>Bot</span>
          <select name="botId" value={botId} onChange={(e) => setBotId(e.currentTarget.value)}>
            <option value="">All bots</option>
            {bots.data?.items.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
          </select>
        </label>
        {d && !data.error && <p class="muted" style={{ margin: 0 }}>{d.summary.from} to {d.summary.to}</p>}
      </div>
      {!ready ? <p class="muted">Choose the first and last day.</p> : data.error ? <ErrorText error={data.error} /> : !d ? <Loading error={null} /> : (
        <>
          <Totals s={d.summary} />
          {d.summary.conversations === 0 && d.summary.tokens.input === 0 ? (
            <EmptyState title="No conversations in this period">Charts fill in as visitors talk to your bots. Try a longer period, or open a bot's try-it page and start a chat.</EmptyState>
          ) : (
            <div class="charts">
              <DayChart id="chart-conversations" title="Conversations and messages" days={days} series={[
                { label: 'Conversations', values: col((i) => i.conversations), color: COLORS.a },
                { label: 'Visitor messages', values: col((i) => i.messages.visitor), color: COLORS.b },
              ]} />
              <DayChart id="chart-outcomes" title="Leads and handoffs" days={days} series={[
                { label: 'Leads', values: col((i) => i.leads), color: COLORS.d },
                { label: 'Handoffs', values: col((i) => i.handoffs.requested), color: COLORS.c },
              ]} />
              <DayChart id="chart-cost" title="Estimated cost" days={days} series={[{ label: 'Cost (USD)', values: col((i) => i.costUsd), color: COLORS.c, money: true }]} />
            </div>
          )}
          <h2>Tools</h2>
          <ToolsTable t={d.tools} />
          <h2>Usage and cost</h2>
          <UsageTable u={d.usage} />
          <p class="muted">Estimated at list prices. A voice model (realtime, speech to text or speech) missing from the built-in price list counts at the dearest listed price of its kind, so spend caps still hold; text models missing from the list count as free.</p>
          <h2>Unanswered questions</h2>
          {d.gaps.items.length === 0 ? <p class="muted">None: the knowledge answered every question it was asked.</p> : (
            <><GapsTable items={d.gaps.items} /><p><a href="#/knowledge/gaps">All unanswered questions</a></p></>
          )}
        </>
      )}
    </section>
  );
}
