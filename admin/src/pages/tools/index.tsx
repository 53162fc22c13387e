/** #/tools: HTTP tools, MCP servers and secrets, as tabs. Viewers see the tools; only admins change them or see secrets. */
import { useSession } from '../../session.js';
import { PageHeader } from '../../ui/layout.js';
import { Tabs } from '../kit/kit.js';
import { HttpToolsTab } from './http.js';
import { McpTab } from './mcp.js';
import { SecretsTab } from './secrets.js';

export default function ToolsArea({ rest }: { rest: string[] }) {
  const { atLeast } = useSession();
  const tabs = [
    { id: 'http', text: 'HTTP tools', href: '#/tools' },
    { id: 'mcp', text: 'MCP servers', href: '#/tools/mcp' },
    ...(atLeast('admin') ? [{ id: 'secrets', text: 'Secrets', href: '#/tools/secrets' }] : []),
  ];
  const tab = tabs.some((t) => t.id === rest[0]) ? rest[0] : 'http';
  return (
    <section class="k-area tools">
      <PageHeader title="Tools" description="Actions your bots can take: call your own APIs, or use the tools of MCP servers. Turn them on per bot in its settings." />
      <Tabs tabs={tabs} current={tab} label="Tool sections" />
      {tab === 'http' && <HttpToolsTab />}
      {tab === 'mcp' && <McpTab />}
      {tab === 'secrets' && <SecretsTab />}
    </section>
  );
}
