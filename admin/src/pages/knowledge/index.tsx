/** #/knowledge: the area's tabs (sources, search playground, gaps, settings) and one source's documents. */
import { PageHeader } from '../../ui/layout.js';
import { Tabs } from '../kit/kit.js';
import { GapsTab } from './gaps.js';
import { SearchTab } from './search.js';
import { SettingsTab } from './settings.js';
import { SourcePage } from './source.js';
import { SourcesTab } from './sources.js';

const TABS = [
  { id: 'sources', text: 'Sources', href: '#/knowledge' },
  { id: 'search', text: 'Search playground', href: '#/knowledge/search' },
  { id: 'gaps', text: 'Unanswered questions', href: '#/knowledge/gaps' },
  { id: 'settings', text: 'Settings', href: '#/knowledge/settings' },
];

export default function KnowledgeArea({ rest }: { rest: string[] }) {
  if (rest[0] === 'source' && rest[1]) return <section class="k-area knowledge"><SourcePage id={rest[1]} /></section>;
  const tab = TABS.some((t) => t.id === rest[0]) ? rest[0] : 'sources';
  return (
    <section class="k-area knowledge">
      <PageHeader title="Knowledge" description="What your bots can look up: web pages, whole sites, files and text. Bots with knowledge turned on search it before they answer." />
      <Tabs tabs={TABS} current={tab} label="Knowledge sections" />
      {tab === 'sources' && <SourcesTab />}
      {tab === 'search' && <SearchTab />}
      {tab === 'gaps' && <GapsTab />}
      {tab === 'settings' && <SettingsTab />}
    </section>
  );
}
