/**
 * Small pieces the knowledge, tools, webhooks and analytics areas share: a button that asks before it acts,
 * tabs that are links, a progress bar, polling while something runs, state pills.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { confirmDialog } from '../../ui/feedback.js';

/**
 * A destructive action asks first in the panel's confirm dialog (modal: focus stays inside, Escape cancels,
 * focus returns to the button afterwards).
 */
export function ConfirmButton(props: { label: string; question: string; message?: string; confirm?: string; onConfirm: () => void | Promise<unknown>; disabled?: boolean; class?: string }) {
  const ask = async () => {
    if (await confirmDialog({ title: props.question, message: props.message, confirmText: props.confirm ?? props.label, danger: true })) await props.onConfirm();
  };
  return <button type="button" class={props.class ?? 'secondary danger'} disabled={props.disabled} onClick={ask}>{props.label}</button>;
}

export { CopyButton } from '../../ui/copy.js';

/** Tabs as links (each tab is a route, so reload and back work). */
export function Tabs({ tabs, current, label }: { tabs: Array<{ href: string; text: string; id: string; count?: number | null }>; current: string; label: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <a key={t.id} href={t.href} aria-current={t.id === current ? 'page' : undefined} class={t.id === current ? 'tab active' : 'tab'}>
          {t.text}{t.count != null && <span class="tab-count">{t.count}</span>}
        </a>
      ))}
    </nav>
  );
}

export function Progress({ done, total, label }: { done: number; total: number; label: string }) {
  const pct = total > 0 ? Math.min(100, Math.round((done / total) * 100)) : 0;
  return (
    <div class="progress">
      <div class="progress-bar" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={total || 1} aria-valuenow={done}>
        <div class={total > 0 ? 'progress-fill' : 'progress-fill unknown'} style={total > 0 ? { width: `${pct}%` } : undefined} />
      </div>
      <small class="muted">{total > 0 ? `${done} of ${total}` : 'starting…'}</small>
    </div>
  );
}

/** Calls fn every `ms` while `active`; stops when the page is left. */
export function usePoll(fn: () => void, ms: number, active: boolean): void {
  const ref = useRef(fn);
  ref.current = fn;
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => ref.current(), ms);
    return () => clearInterval(t);
  }, [active, ms]);
}

/** A pill with a state colour: good, bad, busy or plain. */
export function Pill({ tone, children }: { tone: 'good' | 'bad' | 'busy' | 'plain'; children: ComponentChildren }) {
  return <span class={`status-pill ${tone}`}>{children}</span>;
}

/** A box of monospaced text (a request, a response, JSON). */
export function Code({ children, label }: { children: string; label: string }) {
  return <pre class="codebox" tabIndex={0} aria-label={label}>{children}</pre>;
}

export const fmtNumber = (n: number) => n.toLocaleString('en-US');
export const fmtBytes = (n: number) => (n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`);
