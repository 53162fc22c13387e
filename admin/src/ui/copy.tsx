/** A button that copies text and says so ("Copied"); works on plain http too (where navigator.clipboard is missing). */
import { useState } from 'preact/hooks';

export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard && isSecureContext) { await navigator.clipboard.writeText(text); return true; }
  } catch { /* permission refused: fall back below */ }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand('copy');
  area.remove();
  return ok;
}

export function CopyButton({ text, label = 'Copy', class: cls = 'secondary small' }: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const click = async () => {
    setState((await copyText(text)) ? 'copied' : 'failed');
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" class={cls} onClick={click} aria-live="polite">
      {state === 'copied' ? 'Copied ✓' : state === 'failed' ? 'Select and copy by hand' : label}
    </button>
  );
}

/** A read-only block of code (a snippet, a token shown once) with its copy button. */
export function CopyBlock({ text, label = 'Copy', title }: { text: string; label?: string; title?: string }) {
  return (
    <div class="copy-block">
      <pre class="snippet" tabIndex={0} aria-label={title}>{text}</pre>
      <CopyButton text={text} label={label} />
    </div>
  );
}
