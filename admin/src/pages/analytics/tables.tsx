/** Tool use and provider usage tables of the chosen period. */
import { fmtNumber } from '../kit/kit.js';
import type { ToolUse, Usage } from './types.js';

export function ToolsTable({ t }: { t: ToolUse }) {
  if (t.items.length === 0) return <p class="muted">No tool was called in this period. Give a bot HTTP or MCP tools under Tools, then turn them on in its settings.</p>;
  return (
    <div class="table-wrap">
      <table class="list stack tool-use">
        <thead><tr><th>Tool</th><th class="num">Calls</th><th class="num">Failed</th><th class="num">Error rate</th><th class="num">Average</th><th class="num">p95</th></tr></thead>
        <tbody>
          {t.items.map((r) => (
            <tr key={r.name}>
              <td data-label="Tool"><code>{r.name}</code></td>
              <td data-label="Calls" class="num">{fmtNumber(r.calls)}</td>
              <td data-label="Failed" class="num">{fmtNumber(r.errors)}</td>
              <td data-label="Error rate" class="num">{(r.errorRate * 100).toFixed(1)}%</td>
              <td data-label="Average" class="num">{Math.round(r.avgDurationMs)} ms</td>
              <td data-label="p95" class="num">{r.p95DurationMs == null ? '—' : `${Math.round(r.p95DurationMs)} ms`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function UsageTable({ u }: { u: Usage }) {
  if (u.items.length === 0) return <p class="muted">No model replied in this period.</p>;
  const row = (model: string, r: Usage['total'], total = false) => (
    <tr key={model} class={total ? 'total' : undefined}>
      <td data-label="Model">{total ? <strong>{model}</strong> : <code>{model}</code>}</td>
      <td data-label="Replies" class="num">{fmtNumber(r.replies)}</td>
      <td data-label="Input tokens" class="num">{fmtNumber(r.inputTokens)}</td>
      <td data-label="Output tokens" class="num">{fmtNumber(r.outputTokens)}</td>
      <td data-label="Cost" class="num">${r.costUsd.toFixed(4)}</td>
    </tr>
  );
  return (
    <>
      <div class="table-wrap">
        <table class="list stack usage">
          <thead><tr><th>Model</th><th class="num">Replies</th><th class="num">Input tokens</th><th class="num">Output tokens</th><th class="num">Cost</th></tr></thead>
          <tbody>{u.items.map((r) => row(r.model, r))}{row('Total', u.total, true)}</tbody>
        </table>
      </div>
      <p class="k-hint">{u.note}</p>
    </>
  );
}
