/** The header's menu: a menu button and a list the keyboard can drive (WAI-ARIA menu button pattern). */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function Menu({ label, items }: { label: string; items: Array<[string, () => void]> }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const entries = () => [...(list.current?.querySelectorAll<HTMLButtonElement>('button') ?? [])];
  // Opening moves focus to the first item, so arrows and Enter work at once.
  useLayoutEffect(() => { if (open) entries()[0]?.focus(); }, [open]);
  const close = (refocus: boolean) => { setOpen(false); if (refocus) button.current?.focus(); };
  const onKey = (e: KeyboardEvent) => {
    const all = entries();
    const at = all.indexOf(e.target as HTMLButtonElement);
    const go = (i: number) => { e.preventDefault(); all[(i + all.length) % all.length]?.focus(); };
    if (e.key === 'ArrowDown') go(at + 1);
    else if (e.key === 'ArrowUp') go(at - 1);
    else if (e.key === 'Home') go(0);
    else if (e.key === 'End') go(all.length - 1);
    else if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); close(true); }
    else if (e.key === 'Tab') close(false);
  };
  return <>
    <button ref={button} class="ib mb" aria-label={label} title={label} aria-haspopup="menu" aria-expanded={open}
      onClick={() => setOpen(!open)}
      onKeyDown={(e) => { if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { e.preventDefault(); setOpen(true); } }}>⋯</button>
    {open ? (
      <div ref={list} class="menu" role="menu" aria-label={label} onKeyDown={onKey}>
        {items.map(([text, run]) => <button role="menuitem" tabIndex={-1} onClick={() => { close(true); run(); }}>{text}</button>)}
      </div>
    ) : null}
  </>;
}
