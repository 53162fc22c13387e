/**
 * Template variables in bot texts (bot-config.md, Conventions 5): {{agent.name}} and friends.
 * One field table says which variables each text accepts; the schema checks texts against it and
 * `renderTemplate` fills them in.
 */

export const TEMPLATE_VARIABLES = [
  'agent.name',
  'agent.role',
  'business.name',
  'page.url',
  'page.title',
  'visitor.name',
  'visitor.email',
] as const;

export type TemplateVariable = (typeof TEMPLATE_VARIABLES)[number];

const AGENT_ONLY: readonly TemplateVariable[] = ['agent.name'];

/** Every templated field of the config (dotted path) and the variables it accepts, as the spec lists them. */
export const TEMPLATE_FIELDS = {
  'identity.instructions': TEMPLATE_VARIABLES,
  'identity.guardrails': TEMPLATE_VARIABLES,
  'welcome.message': ['agent.name', 'agent.role', 'business.name'],
  'vision.webcam.consentText': AGENT_ONLY,
  'texts.offline': AGENT_ONLY,
  'greeting.text': AGENT_ONLY,
} as const satisfies Record<string, readonly TemplateVariable[]>;

export type TemplatedField = keyof typeof TEMPLATE_FIELDS;

/** `{{ name }}`; whitespace inside the braces is tolerated. A lone `{{` without a closing pair is plain text. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

const isVariable = (name: string): name is TemplateVariable => (TEMPLATE_VARIABLES as readonly string[]).includes(name);

/** Problems with the variables used in `text`, one sentence each; empty when every variable is accepted. */
export function templateProblems(text: string, accepts: readonly TemplateVariable[]): string[] {
  const problems: string[] = [];
  const allowed = accepts.map((v) => `{{${v}}}`).join(', ');
  for (const match of text.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (!isVariable(name)) problems.push(`unknown template variable {{${name}}}; this text accepts ${allowed}`);
    else if (!accepts.includes(name)) problems.push(`template variable {{${name}}} is not accepted here; this text accepts ${allowed}`);
  }
  return problems;
}

/** What a conversation knows when a text is filled in. Missing parts render as empty strings. */
export interface TemplateContext {
  agent: { name: string; role?: string };
  business?: { name?: string };
  page?: { url?: string; title?: string };
  /** Name and e-mail are used only when `verified` is true (identity hash checked). */
  visitor?: { name?: string; email?: string; verified?: boolean };
}

function valueOf(name: TemplateVariable, ctx: TemplateContext): string {
  const verified = ctx.visitor?.verified === true;
  switch (name) {
    case 'agent.name':
      return ctx.agent.name;
    case 'agent.role':
      return ctx.agent.role ?? '';
    case 'business.name':
      return ctx.business?.name?.trim() ? ctx.business.name : ctx.agent.name;
    case 'page.url':
      return ctx.page?.url ?? '';
    case 'page.title':
      return ctx.page?.title ?? '';
    case 'visitor.name':
      return verified ? (ctx.visitor?.name ?? '') : '';
    case 'visitor.email':
      return verified ? (ctx.visitor?.email ?? '') : '';
  }
}

/**
 * Fills the variables of `text`. Unknown variables, and known ones outside `accepts` (default: all),
 * become empty; an accepted variable whose value is not known becomes `missing` (default: empty).
 * Values are inserted as they are: callers render the result as text, never as HTML.
 */
export function renderTemplate(text: string, ctx: TemplateContext, accepts: readonly TemplateVariable[] = TEMPLATE_VARIABLES, missing = ''): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => (isVariable(name) && accepts.includes(name) ? valueOf(name, ctx).trim() || missing : ''));
}

/**
 * What the prompt fields (instructions, guardrails) say for a value the conversation does not know (a page
 * without a title, an unverified visitor's name): the model reads "not known" instead of an empty gap such as
 * "their name ()".
 */
export const NOT_KNOWN = 'not known';

const PROMPT_FIELDS: readonly TemplatedField[] = ['identity.instructions', 'identity.guardrails'];

/** Renders one templated field of a config with exactly the variables the spec lets that field use. */
export function renderField(field: TemplatedField, text: string, ctx: TemplateContext): string {
  return renderTemplate(text, ctx, TEMPLATE_FIELDS[field], PROMPT_FIELDS.includes(field) ? NOT_KNOWN : '');
}

/** The agent and business part of a context, taken from a config's identity section. */
export function contextFromIdentity(
  identity: { agentName: string; role: string; businessName: string },
  extra: Pick<TemplateContext, 'page' | 'visitor'> = {},
): TemplateContext {
  return { agent: { name: identity.agentName, role: identity.role }, business: { name: identity.businessName }, ...extra };
}
