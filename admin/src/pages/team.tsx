/**
 * #/team: the people in the workspace (presence kept current from the live socket) and the open invitations.
 * Admins invite (the link is shown once, to send, with a copy button), change roles, remove people and cancel
 * invitations, each removal after a confirmation. The server decides what is allowed (only owners make owners,
 * the last owner stays); its refusals are shown as they are.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import type { Invite, Role, User } from '../types.js';
import { confirmDialog, CopyButton, ErrorText, Form, FormErrors, Loading, PageHeader, RelativeTime, SelectField, TextField, toast, useAction, useLoad } from '../ui.js';

const ROLES: Array<[Role, string]> = [['viewer', 'Viewer'], ['agent', 'Agent'], ['admin', 'Admin'], ['owner', 'Owner']];
const ROLE_HELP = 'Viewers read everything; agents also answer conversations; admins also build bots and manage the team and tokens; owners also manage owners and the workspace.';

export function TeamPage() {
  const { atLeast, live, me } = useSession();
  const members = useLoad(() => api<{ items: User[]; invites: Invite[] }>('GET', '/members'));
  useEffect(() => live.subscribe((e) => { if (e?.type === 'presence.changed') members.reload(); }), [live]);
  const act = useAction();
  const admin = atLeast('admin');
  const setRole = (u: User, role: string) => act.run(async () => {
    await api('PATCH', `/members/${encodeURIComponent(u.id)}`, { role });
    toast(`${u.name} is now ${role === 'admin' ? 'an' : 'a'} ${role}`);
    members.reload();
  });
  const remove = async (u: User) => {
    if (!(await confirmDialog({ title: `Remove ${u.name}?`, message: `${u.email} loses access at once: their sessions end and the API tokens they made are revoked (programs using them stop working). Conversations they answered stay.`, confirmText: 'Remove', danger: true }))) return;
    if (await act.run(() => api('DELETE', `/members/${encodeURIComponent(u.id)}`))) { toast(`${u.name} removed`); members.reload(); }
  };
  const cancel = async (inv: Invite) => {
    if (!(await confirmDialog({ title: `Cancel the invitation to ${inv.email}?`, message: 'The link stops working.', confirmText: 'Cancel invitation', cancelText: 'Keep it', danger: true }))) return;
    if (await act.run(() => api('DELETE', `/members/invites/${encodeURIComponent(inv.id)}`))) { toast('Invitation cancelled'); members.reload(); }
  };
  if (!members.data) return <section><PageHeader title="Team" /><Loading error={members.error} /></section>;
  const { items, invites } = members.data;
  return (
    <section>
      <PageHeader title="Team" description={ROLE_HELP} />
      <ErrorText error={act.error} />
      <div class="table-wrap">
        <table class="list members stack">
          <thead><tr><th>Name</th><th>E-mail</th><th>Role</th><th>Presence</th>{admin && <th><span class="visually-hidden">Actions</span></th>}</tr></thead>
          <tbody>
            {items.map((u) => (
              <tr key={u.id} data-id={u.id}>
                <td data-label="Name">{u.name}{u.id === me.user.id && <small class="muted"> (you)</small>}</td>
                <td data-label="E-mail">{u.email}</td>
                <td data-label="Role">{admin && u.id !== me.user.id ? (
                  <select name="role" aria-label={`Role of ${u.name}`} value={u.role} disabled={act.busy} onChange={(e) => setRole(u, e.currentTarget.value)}>
                    {ROLES.map(([v, t]) => <option key={v} value={v}>{t}</option>)}
                  </select>
                ) : u.role}</td>
                <td data-label="Presence"><span class={`badge presence ${u.presence}`}>{u.presence}</span> <small class="muted"><RelativeTime ms={u.presenceAt} /></small></td>
                {admin && <td>{u.id !== me.user.id && <button type="button" class="danger small" disabled={act.busy} onClick={() => remove(u)}>Remove</button>}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h2>Invitations</h2>
      {invites.length === 0 ? <p class="muted">No open invitations.{admin ? ' Invite someone below; they get a link to choose a name and password.' : ''}</p> : (
        <div class="table-wrap">
          <table class="list invites">
            <thead><tr><th>E-mail</th><th>Role</th><th>Invited by</th><th>Expires</th>{admin && <th><span class="visually-hidden">Actions</span></th>}</tr></thead>
            <tbody>
              {invites.map((i) => (
                <tr key={i.id}>
                  <td>{i.email}</td><td>{i.role}</td><td>{i.invitedBy.name}</td><td><RelativeTime ms={i.expiresAt} /></td>
                  {admin && <td><button type="button" class="danger small" disabled={act.busy} onClick={() => cancel(i)}>Cancel</button></td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {admin && <InviteForm onInvited={members.reload} open={invites} />}
    </section>
  );
}

/** `open`: the invitations still open; the link shown after inviting goes away once its invitation is cancelled (here or elsewhere). */
function InviteForm({ onInvited, open }: { onInvited: () => void; open: Invite[] }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('agent');
  const [made, setMade] = useState<{ id: string; link: string } | null>(null);
  const link = made && open.some((i) => i.id === made.id) ? made.link : null;
  const act = useAction();
  const submit = () => act.run(async () => {
    const r = await api<{ invite: Invite; link: string }>('POST', '/members/invite', { email, role });
    setMade({ id: r.invite.id, link: r.link });
    setEmail('');
    onInvited();
  });
  return (
    <Form onSubmit={submit} class="card inline-form" name="invite">
      <TextField label="Invite by e-mail" name="email" type="email" value={email} onInput={setEmail} required errors={act.fields} />
      <SelectField label="Role" name="role" value={role} options={ROLES} onChange={setRole} errors={act.fields} />
      <button type="submit" disabled={act.busy}>Invite</button>
      <div class="wide"><FormErrors act={act} shown={['email', 'role']} /></div>
      {link && (
        <div class="once wide" role="status">
          <p>Send this link to the person you invited. It works once, for 7 days:</p>
          <div class="row"><input class="invite-link" readOnly aria-label="Invitation link" value={link} onFocus={(e) => e.currentTarget.select()} /><CopyButton text={link} label="Copy link" /></div>
        </div>
      )}
    </Form>
  );
}

export default TeamPage;
