/** Page framing shared by every area: the header (title, one line of help, actions) and the empty state. */
import type { ComponentChildren } from 'preact';

/** The top of a page: its title (the page's one h1), what it is for, and its main actions on the right. */
export function PageHeader(props: { title: ComponentChildren; description?: ComponentChildren; actions?: ComponentChildren; back?: { href: string; text: string } }) {
  return (
    <header class="page-header">
      <div class="page-header-text">
        {props.back && <a class="back" href={props.back.href}>← {props.back.text}</a>}
        <h1>{props.title}</h1>
        {props.description && <p class="muted lead">{props.description}</p>}
      </div>
      {props.actions && <div class="page-header-actions">{props.actions}</div>}
    </header>
  );
}

/**
 * Shown instead of an empty list: what is missing and what to do next (a sentence, and usually a button or link
 * as `action`). Never just "No items".
 */
export function EmptyState(props: { title: string; children?: ComponentChildren; action?: ComponentChildren; icon?: string }) {
  return (
    <div class="empty-state">
      <div class="empty-icon" aria-hidden="true">{props.icon ?? '○'}</div>
      <h2>{props.title}</h2>
      {props.children && <div class="muted">{props.children}</div>}
      {props.action && <div class="empty-action">{props.action}</div>}
    </div>
  );
}

/** A titled block on a page (a card with an h2). */
export function Section(props: { title: ComponentChildren; description?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren; id?: string }) {
  return (
    <section class="card section" id={props.id} aria-labelledby={props.id ? `${props.id}-title` : undefined}>
      <div class="section-head">
        <div>
          <h2 id={props.id ? `${props.id}-title` : undefined}>{props.title}</h2>
          {props.description && <p class="muted">{props.description}</p>}
        </div>
        {props.actions && <div class="section-actions">{props.actions}</div>}
      </div>
      {props.children}
    </section>
  );
}
