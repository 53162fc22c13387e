/**
 * #/team: the people in the workspace (presence kept current from the live socket) and the open invitations;
 * admins invite (the link is shown, to send) and cancel invitations.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import type { Invite, Role, User } from '../types.js';
import { ErrorText, Field, Form, Loading, Select, useAction, useLoad, when } from '../ui.js';

const ROLES: Array<[Role, string]> = [['viewer', 'Viewer'], ['agent', 'Agent'], ['admin', 'Admin'], ['owner', 'Owner']];

export function TeamPage() {
  const { atLeast, live } = useSession();
  const members = useLoad(() => api<{ items: User[]; invites: Invite[] }>('GET', '/members'));
  useEffect(() => live.subscribe((e) => { if (e?.type === 'presence.changed') members.reload(); }), [live]);
  const act = useAction();
  const cancel = (inv: Invite) => act.run(async () => { await api('DELETE', `/members/invites/${encodeURIComponent(inv.id)}`); members.reload(); });
  if (!members.data) return <section><h1>Team</h1><Loading error={members.error} /></section>;
  const { items, invites } = members.data;
  return (
    <section>
      <h1>Team</h1>
      <table class="list members">
        <thead><tr><th>Name</th><th>E-mail</th><th>Role</th><th>Presence</th></tr></thead>
        <tbody>
          {items.map((u) => (
            <tr key={u.id}><td>{u.name}</td><td>{u.email}</td><td>{u.role}</td><td><span class={`badge presence ${u.presence}`}>{u.presence}</span></td></tr>
          ))}
        </tbody>
      </table>
      <h2>Invitations</h2>
      {invites.length === 0 ? <p class="muted">No open invitations.</p> : (
        <table class="list invites">
          <thead><tr><th>E-mail</th><th>Role</th><th>Invited by</th><th>Expires</th><th></th></tr></thead>
          <tbody>
            {invites.map((i) => (
              <tr key={i.id}>
                <td>{i.email}</td><td>{i.role}</td><td>{i.invitedBy.name}</td><td>{when(i.expiresAt)}</td>
                <td>{atLeast('admin') && <button type="button" class="link" disabled={act.busy} onClick={() => cancel(i)}>Cancel</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorText error={act.error} />
      {atLeast('admin') && <InviteForm onInvited={members.reload} />}
    </section>
  );
}

function InviteForm({ onInvited }: { onInvited: () => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<string>('agent');
  const [link, setLink] = useState<string | null>(null);
  const act = useAction();
  const submit = () => act.run(async () => {
    const r = await api<{ link: string }>('POST', '/members/invite', { email, role });
    setLink(r.link);
    setEmail('');
    onInvited();
  });
  return (
    <Form onSubmit={submit} class="card inline-form" name="invite">
      <Field label="Invite by e-mail" name="email" type="email" value={email} onInput={setEmail} required />
      <Select label="Role" name="role" value={role} options={ROLES} onChange={setRole} />
      <button type="submit" disabled={act.busy}>Invite</button>
      <ErrorText error={act.error} />
      {link && (
        <div class="once wide" role="status">
          <p>Send this link to the person you invited. It works once, for 7 days:</p>
          <input class="invite-link" readOnly value={link} onFocus={(e) => e.currentTarget.select()} />
        </div>
      )}
    </Form>
  );
}

export default TeamPage;
