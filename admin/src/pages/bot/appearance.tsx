/** Face and appearance: the face, the layout and launcher, colours and sizes. */
import { api } from '../../api.js';
import { errorAt, useLoad } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';
import { Block, Setting } from './fields.js';
import { KeyValues } from './key-values.js';

interface Face { id: string; name: string }

function SkinPicker() {
  const ed = useEditor();
  const faces = useLoad(() => api<{ items: Face[] }>('GET', '/faces'));
  const skin = ed.draft.face?.skin as { kind: string; id?: string; assetId?: string } | null;
  const value = !skin ? 'none' : skin.kind === 'custom' ? `custom:${skin.assetId}` : `catalogue:${skin.id}`;
  const pick = (v: string) => {
    const [kind, id] = v.split(':');
    ed.set('face.skin', kind === 'none' ? null : kind === 'custom' ? { kind, assetId: id } : { kind, id });
  };
  const error = errorAt(ed.errors, 'face.skin');
  const id = fieldId('face.skin');
  return (
    <div class={`setting select${error ? ' has-error' : ''}`} data-path="face.skin">
      <div class="setting-label"><label for={id}>Face</label></div>
      <select id={id} name="face.skin" disabled={!ed.canEdit} value={value} aria-describedby={`${id}-hint`} aria-invalid={error ? true : undefined} onChange={(e) => pick(e.currentTarget.value)}>
        <option value="none">No face</option>
        <option value="catalogue:default">Standard face</option>
        {skin?.kind === 'catalogue' && skin.id !== 'default' && <option value={value}>{skin.id}</option>}
        {(faces.data?.items ?? []).map((f) => <option key={f.id} value={`custom:${f.id}`}>{f.name} (from a photo)</option>)}
      </select>
      <small class="hint" id={`${id}-hint`}>Faces made from a photo are added under Faces · default Standard face</small>
      {error && <small class="field-error">{error}</small>}
    </div>
  );
}

export default function AppearanceGroup() {
  const ed = useEditor();
  const a = ed.draft.appearance ?? {};
  const type = a.launcher?.type;
  return (
    <>
      <Block title="Face">
        <SkinPicker />
        <Setting path="face.config.preset" label="Colour scheme" help="A preset name such as cyan" />
        <KeyValues path="face.config" skip={['preset']} typed legend="More face settings" addText="Add a face setting" keyHint="blinkRate"
          hint="Other settings of the face engine (look, colours, motion) by name. Numbers, true/false and {…} objects are kept as such; anything else as text." />
        <Setting path="face.defaultMood" label="Starting mood" nullText="none" />
        <Setting path="face.expressions" label="Changing expressions" help="Mood tags in text, the express tool in voice" />
        <Setting path="appearance.face.show" label="Show the face" help="Panel, drawer and inline layouts; visitors can hide it" />
        <Setting path="appearance.face.size" label="Face size" />
        <Setting path="appearance.face.textReplies" label="With typed replies" options={[['still', 'Stay still'], ['mime', 'Mouth moves silently'], ['speak', 'Read replies aloud']]} />
      </Block>
      <Block title="Layout">
        <Setting path="appearance.layout" label="Layout" options={[['panel', 'Panel by the launcher'], ['drawer', 'Drawer, full height'], ['floating', 'Floating face with captions'], ['inline', 'Inside the page']]} />
        {a.layout === 'panel' && <><Setting path="appearance.panel.width" label="Panel width" unit="px" /><Setting path="appearance.panel.height" label="Panel height" unit="px" /></>}
        {a.layout === 'drawer' && <><Setting path="appearance.drawer.width" label="Drawer width" unit="px" /><Setting path="appearance.drawer.side" label="Drawer side" /><Setting path="appearance.drawer.modal" label="Dim the page behind" /></>}
        {a.layout === 'floating' && <>
          <Setting path="appearance.floating.width" label="Floating width" unit="px" /><Setting path="appearance.floating.height" label="Floating height" unit="px" />
          <Setting path="appearance.floating.composer" label="Small message box" /><Setting path="appearance.captions" label="Captions under the face" />
        </>}
        <Setting path="appearance.mobile.fullscreen" label="Full screen on phones" />
      </Block>
      <Block title="Launcher">
        <Setting path="appearance.launcher.type" label="Launcher" options={[['bubble', 'Round button'], ['tab', 'Labelled tab'], ['none', "None (the page's own button)"]]} />
        {type === 'bubble' && <>
          <Setting path="appearance.launcher.position" label="Corner" />
          <Setting path="appearance.launcher.icon" label="Icon" options={[['face', 'Face, breathing'], ['avatar', 'Face, still'], ['chat', 'Chat icon']]} />
          <Setting path="appearance.launcher.size" label="Size" unit="px" />
        </>}
        {type === 'tab' && <>
          <Setting path="appearance.launcher.edge" label="Edge" /><Setting path="appearance.launcher.align" label="Along the edge" />
          <Setting path="appearance.launcher.label" label="Tab text" />
        </>}
        {type !== 'none' && <>
          <Setting path="appearance.launcher.offset.x" label="Distance from the side" unit="px" />
          <Setting path="appearance.launcher.offset.y" label="Distance from top or bottom" unit="px" />
          <Setting path="appearance.launcher.hideOnMobile" label="Hide on phones" />
        </>}
      </Block>
      <Block title="Theme">
        <Setting path="appearance.theme.mode" label="Light or dark" options={[['light', 'Light'], ['dark', 'Dark'], ['auto', "The visitor's system setting"]]} />
        <Setting path="appearance.theme.accent" label="Accent colour" kind="color" help="Text on it is black or white, whichever reads better" />
        <Setting path="appearance.theme.radius" label="Corner radius" unit="px" />
        <Setting path="appearance.theme.font" label="Font" options={[['system', 'System UI'], ['inter', 'Inter (when installed)'], ['serif', 'Serif'], ['mono', 'Monospace']]} />
        <Setting path="appearance.zIndex" label="Stacking order (z-index)" />
      </Block>
    </>
  );
}
