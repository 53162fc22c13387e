/**
 * Every interface text of the chat, by key. texts.strings in the bot config overrides any of them;
 * {name} placeholders are filled in by t(). docs/widget.md lists the keys.
 */
export const STRINGS = {
  'launcher.open': 'Open chat',
  'header.close': 'Close chat',
  'menu.label': 'Menu',
  'menu.new': 'New conversation',
  'menu.transcript': 'Download transcript',
  'menu.handoff': 'Talk to a person',
  'handoff.waiting': 'Asking a team member to join. They will reply here.',
  'composer.send': 'Send',
  'composer.attach': 'Attach an image',
  'composer.remove': 'Remove image',
  'composer.limit': '{count} / {max}',
  'status.thinking': 'Thinking…',
  'status.tool': 'Working: {tool}…',
  'status.typing': '{name} is typing…',
  'status.someone': 'Someone',
  'status.connecting': 'Connecting…',
  'status.retrying': 'Connection lost. Reconnecting…',
  'message.failed': 'Not sent',
  'message.images': '{count} image(s)',
  'feedback.up': 'Helpful',
  'feedback.down': 'Not helpful',
  'citations.label': 'Sources',
  'ended': 'This conversation has ended.',
  'csat.question': 'How would you rate this conversation?',
  'csat.thanks': 'Thanks for your feedback!',
  'lead.title.start': 'Before we start, please leave your details.',
  'lead.title.before_handoff': 'Leave your details so the team can reach you.',
  'lead.title.offline': 'Leave your details and we will get back to you.',
  'lead.submit': 'Send details',
  'lead.required': 'Please fill in {field}.',
  'lead.thanks': 'Thanks, we have your details.',
  'confirm.title': 'Allow this action?',
  'confirm.body': 'The assistant wants to use {tool}.',
  'confirm.allow': 'Allow',
  'confirm.deny': 'Don\'t allow',
  'error.rate_limited': 'You are sending messages too quickly. Please wait a moment and try again.',
  'error.session_limit': 'This conversation has reached its length limit. Please start a new conversation.',
  'error.internal': 'Something went wrong. Please try again.',
  'error.unavailable': 'The chat is restarting. Reconnecting…',
  'error.upload': 'The image could not be attached: {reason}',
  'error.tooMany': 'At most {max} images per message.',
  'error.tooBig': 'That image is larger than {max} MB.',
  'transcript.you': 'You',
  'transcript.title': 'Conversation with {name}',
  'poweredBy': 'Powered by ServiceChat',
} as const;

export type StringKey = keyof typeof STRINGS;

export function translator(overrides: Record<string, string>) {
  return (key: StringKey, vars: Record<string, string | number> = {}): string =>
    (overrides[key] ?? STRINGS[key] ?? key).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}
export type T = ReturnType<typeof translator>;
