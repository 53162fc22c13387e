/** Small shared pieces: loading data, running actions, error text, form fields, dates. */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';

export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** Loads data on mount and whenever deps change; reload() fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []) {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then((d) => { if (live) { setData(d); setError(null); } }, (e) => { if (live) setError(messageOf(e)); });
    return () => { live = false; };
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, reload, setData };
}

/** Runs one action at a time and keeps its error (the API's message) for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true); setError(null); setFailure(null);
    try { await fn(); return true; } catch (e) {
      setError(messageOf(e));
      if (e instanceof ApiFailure) setFailure(e);
      return false;
    } finally { setBusy(false); }
  };
  return { busy, error, failure, run };
}

export function ErrorText({ error }: { error: string | null }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
}

export function Field(props: { label: string; name: string; value: string; onInput: (v: string) => void; type?: string; required?: boolean; autocomplete?: string; minLength?: number }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <input name={props.name} type={props.type ?? 'text'} value={props.value} required={props.required} autocomplete={props.autocomplete}
        minLength={props.minLength} onInput={(e) => props.onInput(e.currentTarget.value)} />
    </label>
  );
}

export function Select(props: { label: string; name: string; value: string; options: Array<[value: string, text: string]>; onChange: (v: string) => void }) {
  return (
    <label class="field">
      <span>{props.label}</span>
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([v, t]) => <option key={v} value={v}>{t}</option>)}
      </select>
    </label>
  );
}

/** A form that calls onSubmit without a page load. */
export function Form(props: { onSubmit: () => void; children: ComponentChildren; class?: string; name?: string }) {
  return <form class={props.class} name={props.name} onSubmit={(e) => { e.preventDefault(); props.onSubmit(); }}>{props.children}</form>;
}

export const when = (ms: number | null): string => (ms ? new Date(ms).toLocaleString() : '—');

export function Loading({ error }: { error: string | null }) {
  return error ? <ErrorText error={error} /> : <p class="muted">Loading…</p>;
}
