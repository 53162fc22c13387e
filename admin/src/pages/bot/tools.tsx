/** Tools: built-in abilities, the workspace's HTTP tools and MCP servers this bot uses, and page tools. */
import { api } from '../../api.js';
import { useLoad } from '../../ui.js';
import { Checklist } from './checklist.js';
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';

interface HttpTool { id: string; name: string; description: string; method: string }
interface McpServer { id: string; name: string; tools: Array<{ name: string }> }
type HttpUse = { toolId: string; enabled: boolean };
type McpUse = { serverId: string; allow: '*' | string[]; confirmDestructive: boolean };

export default function ToolsGroup() {
  const ed = useEditor();
  const http = useLoad(() => api<{ items: HttpTool[] }>('GET', '/tools/http'));
  const mcp = useLoad(() => api<{ items: McpServer[] }>('GET', '/tools/mcp'));
  const httpUse: HttpUse[] = ed.draft.tools?.http ?? [];
  const mcpUse: McpUse[] = ed.draft.tools?.mcp ?? [];
  const setMcp = (id: string, change: Partial<McpUse>) => ed.set('tools.mcp', mcpUse.map((m) => (m.serverId === id ? { ...m, ...change } : m)));
  const clientAllow = ed.draft.tools?.client?.allow;
  return (
    <>
      <Block title="Built-in tools" intro="Each works only when its feature is on (lead capture, handoff, camera, knowledge).">
        <Setting path="tools.builtins.capture_lead" label="Save contact details" />
        <Setting path="tools.builtins.handoff_to_human" label="Ask for a person" />
        <Setting path="tools.builtins.end_conversation" label="End the conversation after goodbye" />
        <Setting path="tools.builtins.express" label="Face expressions" />
        <Setting path="tools.builtins.look_at_camera" label="Look through the camera" />
      </Block>
      <Block title="HTTP tools">
        <Checklist path="tools.http" legend="HTTP tools this bot may call" error={http.error}
          items={http.data?.items.map((t) => ({ id: t.id, name: t.name, meta: `${t.method} · ${t.description}` })) ?? null}
          empty={<>No HTTP tools yet: define them once under <a href="#/tools">Tools</a>.</>}
          isOn={(id) => httpUse.some((u) => u.toolId === id && u.enabled)}
          toggle={(id, on) => ed.set('tools.http', on ? [...httpUse.filter((u) => u.toolId !== id), { toolId: id, enabled: true }] : httpUse.filter((u) => u.toolId !== id))} />
      </Block>
      <Block title="MCP servers">
        <Checklist path="tools.mcp" legend="MCP servers this bot may use" error={mcp.error}
          items={mcp.data?.items.map((s) => ({ id: s.id, name: s.name, meta: `${s.tools.length} tools` })) ?? null}
          empty={<>No MCP servers yet: connect one under <a href="#/tools">Tools</a>.</>}
          isOn={(id) => mcpUse.some((u) => u.serverId === id)}
          toggle={(id, on) => ed.set('tools.mcp', on ? [...mcpUse, { serverId: id, allow: '*', confirmDestructive: true }] : mcpUse.filter((u) => u.serverId !== id))}
          extra={(id) => {
            const use = mcpUse.find((u) => u.serverId === id)!;
            const server = mcp.data?.items.find((s) => s.id === id);
            return (
              <div class="sub-options">
                <label class="check"><input type="checkbox" disabled={!ed.canEdit} checked={use.allow === '*'} onChange={(e) => setMcp(id, { allow: e.currentTarget.checked ? '*' : [] })} /> All of its tools</label>
                {use.allow !== '*' && server?.tools.map((t) => (
                  <label class="check" key={t.name}>
                    <input type="checkbox" disabled={!ed.canEdit} checked={(use.allow as string[]).includes(t.name)}
                      onChange={(e) => setMcp(id, { allow: e.currentTarget.checked ? [...(use.allow as string[]), t.name] : (use.allow as string[]).filter((n) => n !== t.name) })} /> {t.name}
                  </label>
                ))}
                <label class="check"><input type="checkbox" disabled={!ed.canEdit} checked={use.confirmDestructive} onChange={(e) => setMcp(id, { confirmDestructive: e.currentTarget.checked })} /> Ask the visitor before destructive tools</label>
              </div>
            );
          }} />
      </Block>
      <Block title="Page tools" intro="Tools the embedding page registers with ServiceChat.registerTool.">
        <Setting path="tools.client.enabled" label="Let the agent use page tools" />
        <div class="setting">
          <label class="check">
            <input type="checkbox" disabled={!ed.canEdit} checked={clientAllow === '*'} onChange={(e) => ed.set('tools.client.allow', e.currentTarget.checked ? '*' : [])} /> Allow every page tool
          </label>
        </div>
        {clientAllow !== '*' && <Setting path="tools.client.allow" label="Allowed page tools" help="One name per line; an empty list allows none" kind="lines" />}
        <Setting path="tools.client.timeoutMs" label="Wait for a page tool" unit="ms" />
      </Block>
      <Block title="Limits">
        <Setting path="tools.toolTimeoutMs" label="Longest tool call" unit="ms" />
        <Setting path="tools.maxResultChars" label="Longest tool result" unit="characters" help="Longer results are cut before the agent sees them" />
      </Block>
    </>
  );
}
