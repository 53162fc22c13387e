/** #/bots (list) and #/bots/<id>[/<tab>[/<group>]] (one bot: admin/src/pages/bot/). */
import { BotPage } from './bot/page.js';
import { BotsPage } from './bots.js';

export default function BotsArea({ rest }: { rest: string[] }) {
  return rest[0] ? <BotPage key={rest[0]} rest={rest} /> : <BotsPage />;
}
