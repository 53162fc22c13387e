/**
 * Shared pieces every page uses: loading data, running actions, error text, form fields, dates, and (from ui/)
 * page header, empty state, loading, toasts, confirm dialog, modal, copy button, fields with errors at the field,
 * relative times. Pages import everything from here.
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiFailure } from './api.js';
import { fieldErrors, type FieldErrors } from './ui/fields.js';

export { PageHeader, EmptyState, Section } from './ui/layout.js';
export { toast, Toasts, confirmDialog, Modal, Loading, type ConfirmOptions } from './ui/feedback.js';
export { CopyButton, CopyBlock, copyText } from './ui/copy.js';
export { TextField, TextArea, SelectField, OtherErrors, FormErrors, fieldErrors, errorAt, type FieldErrors } from './ui/fields.js';
export { RelativeTime, relative } from './ui/time.js';

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

/**
 * Runs one action at a time and keeps its error (the API's message) for display; `fields` holds the errors by
 * field path (from the API's details) for TextField/SelectField `errors`.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [fields, setFields] = useState<FieldErrors>({});
  const run = async (fn: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true); setError(null); setFailure(null); setFields({});
    try { await fn(); return true; } catch (e) {
      setError(messageOf(e));
      if (e instanceof ApiFailure) { setFailure(e); setFields(fieldErrors(e)); }
      return false;
    } finally { setBusy(false); }
  };
  const clear = () => { setError(null); setFailure(null); setFields({}); };
  return { busy, error, failure, fields, run, clear };
}

export function ErrorText({ error }: { error: string | null }) {
  return error ? <p class="error" role="alert">{error}</p> : null;
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

const PLURAL = new Intl.PluralRules('en');
/** "1 passage", "2 passages": the count with the word in the form English takes for it. */
export function plural(n: number, one: string, other = `${one}s`): string {
  return `${n.toLocaleString('en')} ${PLURAL.select(n) === 'one' ? one : other}`;
}
