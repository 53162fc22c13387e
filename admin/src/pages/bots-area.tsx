/** #/bots (list) and #/bots/<id> (one bot). */
import { BotPage } from './bot.js';
import { BotsPage } from './bots.js';

export default function BotsArea({ rest }: { rest: string[] }) {
  return rest[0] ? <BotPage key={rest[0]} id={rest[0]} /> : <BotsPage />;
}
