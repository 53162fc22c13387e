/**
 * The settings page's danger zone (owner only): DELETE /workspace removes the workspace and everything in it.
 * The owner types the workspace's name first, so a stray click cannot do it; afterwards the panel starts over.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { Form, Modal, Section, TextField, useAction } from '../ui.js';

export function DeleteWorkspace() {
  const { me, atLeast } = useSession();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const act = useAction();
  if (!atLeast('owner')) return null;
  const name = me.workspace.name;
  const remove = () => act.run(async () => {
    await api('DELETE', '/workspace');
    // The session went with the workspace: load the panel afresh (setup, or sign-in if other workspaces remain).
    location.hash = '';
    location.reload();
  });
  return (
    <Section title="Delete this workspace" id="danger" description="Removes every bot, conversation, lead, knowledge source, key and team member of this workspace for good. Nobody can sign in to it afterwards.">
      <button type="button" class="danger" onClick={() => { setOpen(true); setTyped(''); act.clear(); }}>Delete workspace…</button>
      {open && (
        <Modal title={`Delete ${name}?`} onClose={() => setOpen(false)}>
          <Form onSubmit={remove} name="delete-workspace">
            <p>This cannot be undone. Download anything you want to keep first (leads as CSV, transcripts from the inbox).</p>
            <TextField label={`Type ${name} to confirm`} name="confirmName" value={typed} onInput={setTyped} required autofocus />
            {act.error && <p class="error" role="alert">{act.error}</p>}
            <div class="dialog-actions">
              <button type="button" class="secondary" onClick={() => setOpen(false)}>Cancel</button>
              <button type="submit" class="danger-solid" disabled={typed.trim() !== name.trim() || act.busy}>{act.busy ? 'Deleting…' : 'Delete workspace'}</button>
            </div>
          </Form>
        </Modal>
      )}
    </Section>
  );
}
