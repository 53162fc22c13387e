/** Picks the signed-in page for the route; unknown routes go to Bots. */
import { useEffect } from 'preact/hooks';
import { go } from '../router.js';
import { BotPage } from './bot.js';
import { BotsPage } from './bots.js';
import { ConversationPage } from './conversation.js';
import { ConversationsPage } from './conversations.js';
import { LeadsPage } from './leads.js';
import { LivePage } from './live.js';
import { TeamPage } from './team.js';
import { TokensPage } from './tokens.js';

export function SignedInPage({ route }: { route: string[] }) {
  const [area, id] = route;
  switch (area) {
    case 'bots': return id ? <BotPage key={id} id={id} /> : <BotsPage />;
    case 'conversations': return id ? <ConversationPage key={id} id={id} /> : <ConversationsPage />;
    case 'live': return <LivePage />;
    case 'leads': return <LeadsPage />;
    case 'team': return <TeamPage />;
    case 'tokens': return <TokensPage />;
    default: return <Redirect to="/bots" />;
  }
}

function Redirect({ to }: { to: string }) {
  useEffect(() => { go(to); }, [to]);
  return null;
}
