/** Knowledge: which of the workspace's sources this bot answers from, and how it searches them. */
import { api } from '../../api.js';
import { useLoad } from '../../ui.js';
import { Checklist } from './checklist.js';
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';

interface Source { id: string; name: string; kind: string; status: string; documentCount: number }

export default function KnowledgeGroup() {
  const ed = useEditor();
  const sources = useLoad(() => api<{ items: Source[] }>('GET', '/knowledge'));
  const ids: string[] = ed.draft.knowledge?.sourceIds ?? [];
  return (
    <>
      <Block title="Sources">
        <Checklist path="knowledge.sourceIds" legend="Sources this bot answers from" error={sources.error}
          items={sources.data?.items.map((s) => ({ id: s.id, name: s.name, meta: `${s.kind} · ${s.status} · ${s.documentCount} documents` })) ?? null}
          empty={<>No knowledge sources yet: add pages, files or text under <a href="#/knowledge">Knowledge</a>.</>}
          isOn={(id) => ids.includes(id)} toggle={(id, on) => ed.set('knowledge.sourceIds', on ? [...ids, id] : ids.filter((x) => x !== id))} />
      </Block>
      <Block title="Search">
        <Setting path="knowledge.mode" label="How the agent searches" options={[['auto', 'Before every reply'], ['tool', 'When it decides to'], ['both', 'Both']]}
          help="Voice engines always search when they decide to" />
        <Setting path="knowledge.topK" label="Excerpts per search" />
        <Setting path="tools.builtins.search_knowledge" label="Knowledge search tool" help="Used when the bot has sources" />
      </Block>
    </>
  );
}
