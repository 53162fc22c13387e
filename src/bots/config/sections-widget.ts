/** Sections about the chat on the page (bot-config.md): appearance, texts, greeting. */
import { z } from 'zod';
import { TEMPLATE_FIELDS } from './template-vars.js';
import { bool, int, num, oneOf, section, stringList, templated, text } from './primitives.js';

export const AppearanceSchema = section({
  layout: oneOf(['panel', 'drawer', 'floating', 'inline'], 'panel'),
  launcher: section({
    type: oneOf(['bubble', 'tab', 'none'], 'bubble'),
    position: oneOf(['bottom-right', 'bottom-left', 'top-right', 'top-left'], 'bottom-right'),
    edge: oneOf(['right', 'left', 'bottom'], 'right'),
    align: oneOf(['start', 'center', 'end'], 'end'),
    label: text(40, 'Chat with us'),
    icon: oneOf(['face', 'chat', 'avatar'], 'face'),
    offset: section({
      x: num(0, 400, 20),
      y: num(0, 400, 20),
    }),
    size: num(40, 96, 60),
    hideOnMobile: bool(false),
  }),
  theme: section({
    mode: oneOf(['light', 'dark', 'auto'], 'auto'),
    accent: z
      .string()
      .regex(/^#[0-9a-fA-F]{6}$/, { message: 'must be a colour #rrggbb such as #6366f1' })
      .default('#6366f1'),
    radius: num(0, 28, 16),
    font: oneOf(['system', 'inter', 'serif', 'mono'], 'system'),
  }),
  panel: section({
    width: num(320, 560, 400),
    height: num(400, 900, 680),
  }),
  drawer: section({
    width: num(320, 640, 420),
    side: oneOf(['auto', 'left', 'right'], 'auto'),
    modal: bool(false),
  }),
  floating: section({
    width: num(220, 480, 300),
    height: num(260, 640, 420),
    composer: bool(true),
  }),
  mobile: section({
    fullscreen: bool(true),
  }),
  face: section({
    show: bool(true),
    size: oneOf(['small', 'medium', 'large'], 'medium'),
    textReplies: oneOf(['still', 'mime', 'speak'], 'mime'),
  }),
  captions: bool(true),
  zIndex: int(0, 2147483647, 2147483000),
});

export const TextsSchema = section({
  title: text(80),
  subtitle: text(120),
  placeholder: text(120, 'Type a message...'),
  offline: templated(500, TEMPLATE_FIELDS['texts.offline'], "We're away right now. Leave your details and we'll get back to you."),
  /** Own wording for interface texts by key; the widget owns the key list, so keys are not fixed here. */
  strings: z.record(z.string().min(1).max(100), z.string().max(2000)).default(() => ({})),
});

export const GreetingSchema = section({
  enabled: bool(false),
  text: templated(200, TEMPLATE_FIELDS['greeting.text'], 'Hi there! Any questions? I can help.'),
  delayMs: int(0, 120000, 6000),
  frequency: oneOf(['session', 'visitor', 'always'], 'session'),
  pages: section({
    include: stringList(50, 300),
    exclude: stringList(50, 300),
  }),
  mobile: bool(false),
});
