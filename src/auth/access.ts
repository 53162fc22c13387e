import { csrfError, forbidden, unauthorized } from '../kernel/errors.js';
import { roleRank, SCOPE_ROLES, type Access } from './roles.js';
import { safeEqual } from '../security/secret-box.js';
import type { Principal } from './principal.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Decides whether a caller may use an operation (service-api.md, Authentication):
 * 401 without valid credentials, 403 forbidden for a missing scope or a role too low, 403 csrf for a
 * state-changing session request without the session's CSRF token.
 */
export function checkAccess(access: Access, principal: Principal | null, method: string, csrfHeader: string | undefined): void {
  if (access.kind === 'public') return;
  if (!principal) throw unauthorized();
  if (principal.kind === 'session' && !SAFE_METHODS.has(method)) {
    if (!csrfHeader || !safeEqual(csrfHeader, principal.csrfToken)) throw csrfError();
  }
  switch (access.kind) {
    case 'any':
      return;
    case 'user':
      if (principal.kind !== 'session') throw forbidden('this endpoint acts as a person: sign in; API tokens are not accepted here');
      if (roleRank(principal.role) < roleRank(access.role)) throw forbidden(`needs the ${access.role} role`);
      return;
    case 'scope': {
      const needed = SCOPE_ROLES[access.scope];
      if (principal.kind === 'token') {
        if (!principal.scopes.includes(access.scope)) throw forbidden(`this token lacks the ${access.scope} scope`);
        if (access.admin && !principal.scopes.some((s) => SCOPE_ROLES[s] === 'admin')) throw forbidden('this endpoint also needs a scope that acts as admin');
        return;
      }
      const min = access.admin ? 'admin' : needed;
      if (roleRank(principal.role) < roleRank(min)) throw forbidden(`needs the ${min} role`);
      return;
    }
  }
}
