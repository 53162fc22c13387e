/**
 * One setting of the bot config, drawn from its path: the control follows the schema's type (switch, choice,
 * number with its range, text with its length, one-per-line list), the hint names the range and the default,
 * and the API's error for that path is shown under it (aria-invalid, aria-describedby).
 */
import type { ComponentChildren } from 'preact';
import { errorAt } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';
import { getAt } from './paths.js';
import { defaultText, rangeText, ruleAt } from './schema.js';

export type Kind = 'text' | 'textarea' | 'number' | 'toggle' | 'select' | 'lines' | 'color';

export interface SettingProps {
  path: string;
  label: string;
  help?: ComponentChildren;
  kind?: Kind;
  /** Words for the schema's choices: [value, text]; the schema's own order and values win. */
  options?: Array<[string, string]>;
  rows?: number;
  placeholder?: string;
  unit?: string;
  /** Shown for null in a nullable number ("no cap"). */
  nullText?: string;
}

/** match_visitor -> Match visitor */
export const humanize = (v: string) => (v.charAt(0).toUpperCase() + v.slice(1)).replace(/[_-]/g, ' ');

export function Setting(p: SettingProps) {
  const ed = useEditor();
  const rule = ruleAt(ed.schema, p.path);
  const value = getAt(ed.draft, p.path);
  const changed = JSON.stringify(value) !== JSON.stringify(getAt(ed.saved, p.path));
  const id = fieldId(p.path);
  const choices = rule.options ?? p.options?.map(([v]) => v);
  const labelOf = (v: string) => p.options?.find(([o]) => o === v)?.[1] ?? humanize(v);
  // Without the schema (its load failed) the value's own type picks the control.
  const type = rule.type !== 'unknown' ? rule.type : typeof value === 'boolean' ? 'boolean' : typeof value === 'number' ? 'number' : Array.isArray(value) ? 'array' : 'string';
  const kind: Kind = p.kind ?? (type === 'boolean' ? 'toggle' : choices ? 'select' : type === 'number' || type === 'integer' ? 'number'
    : type === 'array' ? 'lines' : (rule.maxLength ?? 0) > 300 ? 'textarea' : 'text');
  const error = kind === 'lines' ? lineError(ed.errors, p.path, value) ?? errorAt(ed.errors, p.path) : errorAt(ed.errors, p.path);
  const range = rangeText(rule);
  const def = defaultText(rule, choices ? labelOf : undefined);
  const facts = [range && `${range}${p.unit ? ` ${p.unit}` : ''}`, def && `default ${def}${p.unit && rule.type !== 'boolean' && def !== 'none' ? ` ${p.unit}` : ''}`].filter(Boolean).join(' · ');
  const described = [`${id}-hint`, error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const common = { id, name: p.path, disabled: !ed.canEdit, 'aria-invalid': error ? true : undefined, 'aria-describedby': described };
  const set = (v: unknown) => ed.set(p.path, v);

  let control: ComponentChildren;
  if (kind === 'toggle') {
    control = <input {...common} type="checkbox" role="switch" class="switch" checked={value === true} onChange={(e) => set(e.currentTarget.checked)} />;
  } else if (kind === 'select') {
    control = (
      <select {...common} value={String(value ?? '')} onChange={(e) => set(e.currentTarget.value)}>
        {(choices ?? []).map((v) => <option key={v} value={v}>{labelOf(v)}</option>)}
      </select>
    );
  } else if (kind === 'number') {
    const step = rule.type === 'integer' ? 1 : 'any';
    control = (
      <input {...common} type="number" inputMode={rule.type === 'integer' ? 'numeric' : 'decimal'} step={step} min={rule.min} max={rule.max}
        placeholder={value === null ? p.nullText : undefined} value={value === null || value === undefined ? '' : String(value)}
        onInput={(e) => { const t = e.currentTarget.value; set(t === '' ? (rule.nullable ? null : '') : Number(t)); }} />
    );
  } else if (kind === 'lines') {
    control = (
      <textarea {...common} rows={p.rows ?? 3} placeholder={p.placeholder} value={Array.isArray(value) ? value.join('\n') : ''}
        onInput={(e) => set(e.currentTarget.value.split('\n'))} />
    );
  } else if (kind === 'textarea') {
    control = <textarea {...common} rows={p.rows ?? 5} maxLength={rule.maxLength} placeholder={p.placeholder} value={String(value ?? '')} onInput={(e) => set(e.currentTarget.value)} />;
  } else if (kind === 'color') {
    control = (
      <span class="color-pick">
        <input type="color" aria-label={`${p.label} (picker)`} disabled={!ed.canEdit} value={/^#[0-9a-f]{6}$/i.test(String(value)) ? String(value) : '#000000'} onInput={(e) => set(e.currentTarget.value)} />
        <input {...common} type="text" maxLength={7} value={String(value ?? '')} onInput={(e) => set(e.currentTarget.value)} />
      </span>
    );
  } else {
    control = <input {...common} type="text" maxLength={rule.maxLength} placeholder={p.placeholder} value={String(value ?? '')} onInput={(e) => set(e.currentTarget.value)} />;
  }

  return (
    <div class={`setting ${kind}${error ? ' has-error' : ''}${changed ? ' changed' : ''}`} data-path={p.path}>
      <div class="setting-label">
        <label for={id}>{p.label}</label>
        {changed && <span class="edited">edited</span>}
      </div>
      {control}
      <small class="hint" id={`${id}-hint`}>{p.help}{p.help && facts ? ' · ' : ''}{facts && <span class="facts-line">{facts}</span>}</small>
      {error && <small class="field-error" id={`${id}-error`}>{error}</small>}
    </div>
  );
}

/**
 * The error of one line of a one-per-line list, naming the line as the person sees it: the API numbers the saved
 * entries (blank lines are dropped before saving), so entry i is the i-th line that is not blank.
 */
function lineError(errors: Record<string, string>, path: string, value: unknown): string | undefined {
  const key = Object.keys(errors).find((k) => new RegExp(`^${path.replace(/\./g, '\\.')}(?:\\.|\\[)\\d+`).test(k));
  if (!key) return undefined;
  const index = Number(/\d+/.exec(key.slice(path.length))![0]);
  const lines = Array.isArray(value) ? value.map(String) : [];
  let seen = -1;
  const at = lines.findIndex((l) => l.trim() !== '' && ++seen === index);
  return at < 0 ? errors[key] : `Line ${at + 1} ("${lines[at]!.trim()}"): ${errors[key]}`;
}

/** A titled block of settings inside a group. */
export function Block(props: { title: string; intro?: ComponentChildren; children: ComponentChildren }) {
  return (
    <section class="set-block" aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.intro && <p class="muted block-intro">{props.intro}</p>}
      <div class="set-grid">{props.children}</div>
    </section>
  );
}
