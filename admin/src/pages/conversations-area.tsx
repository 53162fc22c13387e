/** #/conversations (list) and #/conversations/<id> (one transcript). */
import { ConversationPage } from './conversation.js';
import { ConversationsPage } from './conversations.js';

export default function ConversationsArea({ rest }: { rest: string[] }) {
  return rest[0] ? <ConversationPage key={rest[0]} id={rest[0]} /> : <ConversationsPage />;
}
