/**
 * Feedback that outlives one component: toasts (short notes after an action, read out by screen readers) and
 * the confirm dialog (a real <dialog> opened modally, so focus stays inside and Escape cancels).
 */
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';

type ToastKind = 'ok' | 'error' | 'info';
interface ToastItem { id: number; text: string; kind: ToastKind }
let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<(t: ToastItem[]) => void>();
const publish = () => listeners.forEach((f) => f(items));

/** Shows a short note in the corner for a few seconds ("Saved", "Key replaced"). Errors stay until closed. */
export function toast(text: string, kind: ToastKind = 'ok'): void {
  const id = nextId++;
  // Two at most, newest on top: older notes go, so a burst of actions never covers the page on a phone.
  items = [{ id, text, kind }, ...items].slice(0, 2);
  publish();
  if (kind !== 'error') setTimeout(() => dismiss(id), 5000);
}
function dismiss(id: number): void { items = items.filter((t) => t.id !== id); publish(); }

/** Mounted once by the shell; the region exists from the start so screen readers announce what lands in it. */
export function Toasts() {
  const [list, setList] = useState(items);
  useEffect(() => { listeners.add(setList); return () => { listeners.delete(setList); }; }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {list.map((t) => (
        <div key={t.id} class={`toast ${t.kind}`}>
          <span>{t.text}</span>
          <button type="button" class="icon" aria-label="Dismiss" onClick={() => dismiss(t.id)}>×</button>
        </div>
      ))}
    </div>
  );
}

export interface ConfirmOptions {
  title: string;
  /** What happens, and whether it can be undone. */
  message?: string;
  confirmText?: string;
  cancelText?: string;
  /** Styles the confirm button as destructive. */
  danger?: boolean;
}

/** Asks before doing something; resolves true when confirmed. `if (!(await confirmDialog({...}))) return;` */
export function confirmDialog(opts: ConfirmOptions): Promise<boolean> {
  const host = document.createElement('div');
  document.body.appendChild(host);
  const back = document.activeElement as HTMLElement | null;
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      render(null, host);
      host.remove();
      back?.focus?.();
      resolve(ok);
    };
    render(<ConfirmDialog {...opts} onDone={done} />, host);
  });
}

function ConfirmDialog(props: ConfirmOptions & { onDone: (ok: boolean) => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => { ref.current?.showModal(); }, []);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="confirm-title" onCancel={(e) => { e.preventDefault(); props.onDone(false); }}>
      <h2 id="confirm-title">{props.title}</h2>
      {props.message && <p>{props.message}</p>}
      <div class="dialog-actions">
        <button type="button" class="secondary" autofocus onClick={() => props.onDone(false)}>{props.cancelText ?? 'Cancel'}</button>
        <button type="button" class={props.danger ? 'danger-solid' : ''} onClick={() => props.onDone(true)}>{props.confirmText ?? 'Confirm'}</button>
      </div>
    </dialog>
  );
}

/** A modal dialog with any content (forms); closes on Escape or the close button. */
export function Modal(props: { title: string; onClose: () => void; children: preact.ComponentChildren; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    d?.showModal();
    return () => d?.close();
  }, []);
  return (
    <dialog ref={ref} class={`dialog${props.wide ? ' wide' : ''}`} aria-labelledby="modal-title" onCancel={(e) => { e.preventDefault(); props.onClose(); }}>
      <div class="dialog-head">
        <h2 id="modal-title">{props.title}</h2>
        <button type="button" class="icon" aria-label="Close" onClick={props.onClose}>×</button>
      </div>
      {props.children}
    </dialog>
  );
}

/** The loading line (announced politely), or the error that stopped the load. */
export function Loading({ error, text = 'Loading…' }: { error: string | null; text?: string }) {
  if (error) return <p class="error" role="alert">{error}</p>;
  return <p class="loading muted" role="status"><span class="spinner" aria-hidden="true" />{text}</p>;
}
