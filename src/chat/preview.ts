import type { AppContext } from '../app/context.js';
import { verifyPreviewToken } from '../bots/preview-token.js';
import { forbidden, notFound } from '../kernel/errors.js';
import { loadBotForChat, type ChatBot } from '../bots/bot-source.js';
import type { ChatBotCache } from '../bots/chat-bot-cache.js';

/**
 * The bot a widget request talks to: the published config, or the draft with a preview token (`preview`
 * query parameter, from POST /api/v1/bots/{id}/preview), even for a bot never published. A bad or expired
 * token gives 401, a token made for another bot 403. Callers skip security.allowedOrigins for a preview
 * (chat.preview): the token stands in for it, so a preview opens from the dashboard or any test page.
 * The published bot comes from memory once read (src/bots/chat-bot-cache.ts); a preview reads the draft each time.
 */
export async function loadWidgetBot(app: AppContext, chatBots: ChatBotCache, botId: string, previewToken: string | null | undefined): Promise<ChatBot> {
  if (!previewToken) {
    const chat = await chatBots.get(botId);
    if (!chat) throw notFound('bot');
    return chat;
  }
  const token = verifyPreviewToken(app, previewToken);
  if (token && token.botId !== botId) throw forbidden('this preview token was made for another bot');
  const chat = await loadBotForChat(app, botId, { preview: !!token });
  if (!chat) throw notFound('bot');
  if (token && chat.bot.workspaceId !== token.workspaceId) throw forbidden('this preview token was made for another bot');
  return chat;
}
