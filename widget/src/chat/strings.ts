/**
 * Every interface text of the chat, by key. texts.strings in the bot config overrides any of them;
 * {name} placeholders are filled in by t(). docs/widget.md lists the keys.
 */
export const STRINGS = {
  'launcher.open': 'Open chat',
  'header.close': 'Close chat',
  'menu.label': 'Menu',
  'face.hide': 'Hide the face',
  'face.show': 'Show the face',
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
  'status.refused': 'The chat cannot open here; the message above says why.',
  'status.paused': 'This assistant is unavailable right now. Please try again later.',
  'paused.notSent': 'Not sent: the assistant is unavailable right now. Your message is still in the box; try again later.',
  'message.failed': 'Not sent',
  'message.images': '{count} images',
  'message.images.one': '{count} image',
  'message.interrupted': 'This reply was cut off before it was finished.',
  'message.askAgain': 'Ask again',
  'messages.label': 'Messages',
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
  'error.insufficient_storage': 'Your message could not be saved: the server is out of storage space. Please try again in a few minutes.',
  'error.upload': 'The image could not be attached: {reason}',
  'error.tooMany': 'At most {max} images per message.',
  'error.tooBig': 'That image is larger than {max} MB.',
  'error.notImage': 'That file is not an image. Please attach a JPEG, PNG, WebP or GIF picture.',
  'error.unreadable': 'That image could not be read. Please try another picture.',
  'error.uploadLimit': 'You have sent many images in the last hour. Please wait a while before sending more.',
  'camera.start': 'Turn on the camera',
  'camera.stop': 'Turn off the camera',
  'camera.off': 'Turn off',
  'camera.title': 'Use your camera?',
  'camera.allow': 'Turn on camera',
  'camera.notNow': 'Not now',
  'camera.privacy': 'How your pictures are handled',
  'camera.live': 'Camera on: a picture goes with each message',
  'camera.continuous': 'Camera on: the assistant sees a live view while you talk, and a picture with each message',
  'camera.onDemand': 'Camera on: the assistant may take a picture when it needs one',
  'camera.taken': '{name} took a picture with your camera',
  'camera.denied': 'Camera access was blocked. To show something, allow the camera for this site in your browser settings, then press the camera button again.',
  'camera.failed': 'The camera could not start (none was found, or another app is using it). Check it and press the camera button again.',
  'voice.start': 'Talk by voice',
  'speak.on': 'Read replies aloud',
  'speak.off': 'Stop reading replies aloud',
  'voice.bar': 'Voice conversation',
  'voice.state.connecting': 'Connecting…',
  'voice.state.listening': 'Listening…',
  'voice.state.thinking': 'Thinking…',
  'voice.state.speaking': 'Speaking…',
  'voice.state.muted': 'Muted',
  'voice.state.ptt': 'Hold to talk',
  'voice.state.ended': 'Voice ended',
  'voice.talk': 'Hold to talk (or hold Space)',
  'voice.mute': 'Mute microphone',
  'voice.unmute': 'Unmute microphone',
  'voice.end': 'End voice',
  'voice.spoken': 'Spoken',
  'voice.ended.visitor': 'Voice ended. You can keep chatting here.',
  'voice.ended.permission_denied': 'Microphone access is blocked. To talk, allow the microphone for this site (the icon at the left of the address bar, then Allow) and press the microphone button again.',
  'voice.ended.no_microphone': 'No microphone was found. Connect one and press the microphone button again, or keep typing here.',
  'voice.ended.mic_busy': 'The microphone is in use by another app. Close that app and try again, or keep typing here.',
  'voice.ended.unsupported': 'Voice does not work in this browser: it needs a secure (https) page and a recent Chrome, Edge, Firefox or Safari. You can keep typing here.',
  'voice.ended.needs_click': 'The browser needs a click before it can play sound. Press the microphone button to start voice.',
  'voice.ended.load_failed': 'Voice could not be loaded. Check your connection and try again, or keep typing here.',
  'voice.ended.rate_limited': 'Voice is not available right now because a usage limit was reached. Please try again later, or keep typing here.',
  'voice.ended.visitor_limit': 'Voice is already on in another tab or window. End it there to talk here, or keep typing.',
  'voice.ended.address_limit': 'Too many voice conversations are running from your network right now. Please try again in a few minutes, or keep typing here.',
  'voice.ended.cap_reached': 'Voice has reached its limit for today. Please continue in the chat.',
  'voice.ended.engine_error': 'Voice stopped because of a problem with the voice service. Press the microphone to try again, or continue in the chat.',
  'voice.ended.team_takeover': 'A team member has joined. Voice is off; please continue in the chat.',
  'voice.ended.max_duration': 'Voice ended because the call reached its time limit. Press the microphone to start again, or continue in the chat.',
  'voice.ended.idle': 'Voice ended after a quiet while. Press the microphone to talk again.',
  'voice.ended.conversation_ended': 'The conversation has ended, so voice is off.',
  'voice.ended.socket_closed': 'The connection was lost, so voice ended. Press the microphone to try again when it is back.',
  'voice.ended.no_answer': 'Voice did not start because the server did not answer. Please try again.',
  'voice.failed.stt': 'Sorry, I could not make out what you said. Please say it again, or type your message.',
  'voice.failed.brain': 'Sorry, I could not answer that just now. Please say it again, or type your message.',
  'voice.failed.tts': 'The voice is not working right now; the rest of the reply is shown as text.',
  'voice.ended.unavailable': 'Voice is not available right now. Please continue here in the chat.',
  'voice.ended.refused': 'Voice cannot start right now. Please continue in the chat.',
  'transcript.you': 'You',
  'transcript.title': 'Conversation with {name}',
  'poweredBy': 'Powered by ServiceChat',
} as const;

export type StringKey = keyof typeof STRINGS;

/**
 * t(key, vars): the language's strings with the bot's own (texts.strings) over them, {name} placeholders filled.
 * With a numeric `count`, the form for that number in the language (Intl.PluralRules: `key.one`, `key.few`, ...)
 * comes first when there is one; a bot that overrides the key itself gets its own text for every number.
 */
export function translator(language: Record<string, string>, own: Record<string, string> = {}, lang = 'en') {
  const plural = new Intl.PluralRules(lang);
  const text = (key: string, count: unknown): string => {
    if (own[key] !== undefined) return own[key];
    if (typeof count == 'number') {
      const form = `${key}.${plural.select(count)}`;
      const found = own[form] ?? language[form] ?? (language[key] === undefined ? (STRINGS as Record<string, string>)[form] : undefined);
      if (found !== undefined) return found;
    }
    return language[key] ?? (STRINGS as Record<string, string>)[key] ?? key;
  };
  return (key: StringKey, vars: Record<string, string | number> = {}): string =>
    text(key, vars.count).replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}
export type T = ReturnType<typeof translator>;
