/**
 * A per-day line chart drawn with uPlot (loaded with the analytics chunk; its stylesheet is bundled with the
 * panel's). The canvas is described by an aria-label; the numbers are also in the totals and tables.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

export interface Series { label: string; values: number[]; color: string; money?: boolean }

const dayMs = (d: string) => Date.parse(`${d}T00:00:00Z`);
const fmtDay = (sec: number) => new Date(sec * 1000).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

export function DayChart({ title, days, series, id }: { title: string; days: string[]; series: Series[]; id: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const css = getComputedStyle(document.documentElement);
    const fg = css.getPropertyValue('--muted').trim() || '#667085';
    const grid = css.getPropertyValue('--line').trim() || '#d9dee5';
    const money = series.some((s) => s.money);
    const axis = { stroke: fg, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '12px system-ui, sans-serif' };
    const opts: uPlot.Options = {
      width: Math.max(260, el.clientWidth), height: 220,
      // Counts start at a scale of 1; money at a tenth of a cent, so small costs still show as a line above zero.
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(money ? 0.001 : 1, max * 1.15)] } },
      axes: [
        { ...axis, values: (_u, ticks) => ticks.map(fmtDay), space: 60 },
        { ...axis, size: money ? 64 : 48, values: (_u, ticks) => ticks.map((v) => (money ? `$${v === 0 ? '0' : v < 0.01 ? v.toFixed(4) : v.toFixed(2)}` : Number.isInteger(v) ? String(v) : '')) },
      ],
      series: [
        { label: 'Day', value: (_u, v) => (v == null ? '' : fmtDay(v)) },
        ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, fill: `${s.color}1f`, points: { size: 5 }, value: (_u: uPlot, v: number | null) => (v == null ? '—' : s.money ? `$${v.toFixed(4)}` : String(v)) })),
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const data: uPlot.AlignedData = [days.map((d) => dayMs(d) / 1000), ...series.map((s) => s.values)];
    const plot = new uPlot(opts, data, el);
    const ro = new ResizeObserver(() => plot.setSize({ width: Math.max(260, el.clientWidth), height: 220 }));
    ro.observe(el);
    return () => { ro.disconnect(); plot.destroy(); };
  }, [days.join(), JSON.stringify(series)]);
  const totals = series.map((s) => `${s.label} ${s.money ? `$${s.values.reduce((a, b) => a + b, 0).toFixed(2)}` : s.values.reduce((a, b) => a + b, 0)}`).join(', ');
  return (
    <figure class="chart" id={id} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div ref={box} class="chart-canvas" role="img" aria-label={`${title} per day from ${days[0]} to ${days[days.length - 1]}: ${totals}`} />
    </figure>
  );
}
