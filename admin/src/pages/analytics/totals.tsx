/** The period's totals as stat tiles. */
import { fmtNumber } from '../kit/kit.js';
import type { Summary } from './types.js';

const pct = (a: number, b: number) => (b > 0 ? `${Math.round((a / b) * 100)}%` : '—');

export function Totals({ s }: { s: Summary }) {
  const thumbs = s.feedback.thumbsUp + s.feedback.thumbsDown;
  const tiles: Array<[string, string, string]> = [
    ['Conversations', fmtNumber(s.conversations), `${fmtNumber(s.conversationsEnded)} ended`],
    ['Visitor messages', fmtNumber(s.messages.visitor), `${fmtNumber(s.messages.agent)} bot replies · ${fmtNumber(s.messages.team)} from the team`],
    ['Leads', fmtNumber(s.leads), `${pct(s.leadsInConversations, s.conversations)} of conversations${s.leads > s.leadsInConversations ? ` · ${fmtNumber(s.leads - s.leadsInConversations)} added by hand` : ''}`],
    ['Handoffs', fmtNumber(s.handoffs.requested), `${fmtNumber(s.handoffs.takenOver)} taken over`],
    ['Satisfaction', s.feedback.csatAverage == null ? '—' : `${s.feedback.csatAverage.toFixed(1)} / 5`, thumbs ? `${fmtNumber(s.feedback.csatCount)} ratings · ${pct(s.feedback.thumbsUp, thumbs)} thumbs up` : `${fmtNumber(s.feedback.csatCount)} ratings · no thumbs yet`],
    ['Tool calls', fmtNumber(s.tools.calls), `${fmtNumber(s.tools.errors)} failed`],
    ['Tokens', fmtNumber(s.tokens.input + s.tokens.output), `${fmtNumber(s.tokens.input)} in · ${fmtNumber(s.tokens.output)} out`],
    ['Estimated cost', `$${s.costUsd < 0.01 && s.costUsd > 0 ? s.costUsd.toFixed(4) : s.costUsd.toFixed(2)}`, 'at list prices'],
  ];
  return (
    <dl class="stats totals">
      {tiles.map(([label, value, note]) => (
        <div class="stat" key={label}><dt>{label}</dt><dd>{value}<small>{note}</small></dd></div>
      ))}
    </dl>
  );
}
