/**
 * Small pieces the knowledge, tools, webhooks and analytics areas share: a two-step delete, a copy button,
 * tabs that are links, a progress bar, polling while something runs, and one line for API failures.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiFailure } from '../../api.js';
import './kit.css';

/** The API's message; a fetch that never reached the server reads as a sentence, not "Failed to fetch". */
export function failureText(err: unknown): string {
  if (err instanceof ApiFailure) return err.message;
  if (err instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}

/**
 * A destructive action asks first, in place: the button turns into "Delete X? [Delete] [Keep]". Keyboard
 * focus moves to the confirming button and back, so it works without a mouse.
 */
export function ConfirmButton(props: { label: string; question: string; confirm?: string; onConfirm: () => void | Promise<unknown>; disabled?: boolean; class?: string }) {
  const [asking, setAsking] = useState(false);
  const yes = useRef<HTMLButtonElement>(null);
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => { if (asking) yes.current?.focus(); }, [asking]);
  if (!asking) {
    return <button ref={first} type="button" class={props.class ?? 'secondary danger'} disabled={props.disabled} onClick={() => setAsking(true)}>{props.label}</button>;
  }
  const close = () => { setAsking(false); };
  return (
    <span class="confirm" role="group" aria-label={props.question}>
      <span>{props.question}</span>
      <button ref={yes} type="button" class="danger-solid" onClick={async () => { close(); await props.onConfirm(); }}>{props.confirm ?? props.label}</button>
      <button type="button" class="secondary" onClick={close} onKeyDown={(e) => { if (e.key === 'Escape') close(); }}>Cancel</button>
    </span>
  );
}

/** Copies `text` and says so for two seconds (to screen readers too). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState<'copied' | 'failed' | null>(null);
  const copy = async () => {
    try { await navigator.clipboard.writeText(text); setDone('copied'); } catch { setDone('failed'); }
    setTimeout(() => setDone(null), 2000);
  };
  return (
    <button type="button" class="secondary copy" onClick={copy} aria-live="polite">
      {done === 'copied' ? 'Copied' : done === 'failed' ? 'Select and copy it' : label}
    </button>
  );
}

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
