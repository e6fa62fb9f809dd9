import { auditActorOf } from '@policyhub/events';
import { newId, notFound } from '@policyhub/errors';
import { canAccessOrganization, OWNER, type Principal } from '@policyhub/permissions';
import { IdentityRepository, type TokenRow } from '../db/identity-repository.js';
import { TenancyRepository, type TeamRow } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import { requirePrincipal } from '../domain/rules.js';
import { recordAudit } from './audit-trail.js';
import { generateToken, tokenExpiry } from './identity.js';

type Owner = { teamId: string } | { organizationId: string };

/** The organization a token act is recorded under (its name and immutable id). */
type AuditOrganization = { name: string; id: string };

const isOwnerOf = (caller: Principal, organization: string): boolean =>
  caller.memberships.get(organization)?.includes(OWNER) ?? false;

/**
 * Who may create, read and delete a team's token (upstream: owners, the team's members, and the
 * organization token): site admins; the organization's owners (users, or the owners team's
 * token); a user who is a member of the team; the organization's own token.
 */
function canManageTeamToken(caller: Principal, team: TeamRow): boolean {
  if (caller.isSiteAdmin || isOwnerOf(caller, team.organization)) return true;
  if (!canAccessOrganization(caller, team.organization)) return false;
  if (caller.kind === 'organization') return true;
  return (caller.kind ?? 'user') === 'user' && team.user_ids.includes(caller.userId);
}

/**
 * Who may manage an organization's token (upstream: organization owners, with their user token):
 * site admins and the owners, as users. Team and organization tokens may not.
 */
const canManageOrganizationToken = (caller: Principal, organization: string): boolean =>
  caller.isSiteAdmin || ((caller.kind ?? 'user') === 'user' && isOwnerOf(caller, organization));

/**
 * Team tokens and organization tokens: one each per team and per organization, the value shown
 * once and only its SHA-256 kept; creating one replaces (revokes) the previous in the same
 * transaction, which also records the act in the organization's audit trail.
 */
export class TeamAndOrganizationTokenUseCases {
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.tenancy = new TenancyRepository(deps.db);
  }

  async createTeamToken(
    principal: Principal | undefined,
    teamId: string,
    options: { description?: string; expiredAt?: string },
  ): Promise<{ row: TokenRow; token: string }> {
    const caller = requirePrincipal(principal);
    const team = await this.manageableTeam(caller, teamId);
    return this.replaceToken(caller, { teamId: team.id }, await this.organizationOfTeam(team), options);
  }

  async getTeamToken(principal: Principal | undefined, teamId: string): Promise<TokenRow> {
    const team = await this.manageableTeam(requirePrincipal(principal), teamId);
    const row = await new IdentityRepository(this.deps.db).getOwnedToken({ teamId: team.id });
    if (!row) throw notFound();
    return row;
  }

  async deleteTeamToken(principal: Principal | undefined, teamId: string): Promise<void> {
    const team = await this.manageableTeam(requirePrincipal(principal), teamId);
    await this.deleteToken(principal, { teamId: team.id }, await this.organizationOfTeam(team));
  }

  async createOrganizationToken(
    principal: Principal | undefined,
    organization: string,
    options: { description?: string; expiredAt?: string },
  ): Promise<{ row: TokenRow; token: string }> {
    const caller = requirePrincipal(principal);
    const organizationId = await this.manageableOrganization(caller, organization);
    return this.replaceToken(caller, { organizationId }, { name: organization, id: organizationId }, options);
  }

  async getOrganizationToken(principal: Principal | undefined, organization: string): Promise<TokenRow> {
    const organizationId = await this.manageableOrganization(requirePrincipal(principal), organization);
    const row = await new IdentityRepository(this.deps.db).getOwnedToken({ organizationId });
    if (!row) throw notFound();
    return row;
  }

  async deleteOrganizationToken(principal: Principal | undefined, organization: string): Promise<void> {
    const organizationId = await this.manageableOrganization(requirePrincipal(principal), organization);
    await this.deleteToken(principal, { organizationId }, { name: organization, id: organizationId });
  }

  private async manageableTeam(caller: Principal, teamId: string): Promise<TeamRow> {
    const team = teamId ? await this.tenancy.getTeam(teamId) : undefined;
    if (!team || !canManageTeamToken(caller, team)) throw notFound();
    return team;
  }

  /** The organization's immutable id, if the caller may manage its token. */
  private async manageableOrganization(caller: Principal, organization: string): Promise<string> {
    if (!canManageOrganizationToken(caller, organization)) throw notFound();
    const org = organization ? await this.tenancy.getOrganization(organization) : undefined;
    if (!org) throw notFound();
    return org.external_id;
  }

  private async organizationOfTeam(team: TeamRow): Promise<AuditOrganization> {
    const org = await this.tenancy.getOrganization(team.organization);
    if (!org) throw notFound();
    return { name: org.name, id: org.external_id };
  }

  /** What the trail records of a token act: never the token's value. */
  private static auditResource(owner: Owner, tokenId: string, action: 'create' | 'destroy') {
    return 'teamId' in owner
      ? { type: 'team_token', id: tokenId, action, meta: { team_id: owner.teamId } }
      : { type: 'organization_token', id: tokenId, action, meta: {} };
  }

  private async replaceToken(
    caller: Principal,
    owner: Owner,
    organization: AuditOrganization,
    options: { description?: string; expiredAt?: string },
  ): Promise<{ row: TokenRow; token: string }> {
    const expiredAt = tokenExpiry(options.expiredAt);
    const token = generateToken();
    const row = await this.deps.db.transaction(async (tx) => {
      const r = new IdentityRepository(tx);
      // Gone meanwhile (deleted by someone else): as if it never existed.
      if (!(await r.lockTokenOwner(owner))) throw notFound();
      const replaced = await r.getOwnedToken(owner);
      await r.deleteOwnedToken(owner);
      const inserted = await r.insertToken({
        id: newId('at'),
        owner,
        secret: token,
        description: options.description ?? '',
        expiredAt,
        createdBy: caller.userId,
      });
      const { meta, ...resource } = TeamAndOrganizationTokenUseCases.auditResource(
        owner,
        inserted.id,
        'create',
      );
      await recordAudit(tx, {
        organization,
        actor: auditActorOf(caller),
        resource,
        meta: { ...meta, expired_at: expiredAt, replaced: replaced?.id ?? null },
      });
      return inserted;
    });
    return { row, token };
  }

  private async deleteToken(
    principal: Principal | undefined,
    owner: Owner,
    organization: AuditOrganization,
  ): Promise<void> {
    await this.deps.db.transaction(async (tx) => {
      const r = new IdentityRepository(tx);
      const existing = await r.getOwnedToken(owner);
      if (!existing || !(await r.deleteOwnedToken(owner))) throw notFound();
      const { meta, ...resource } = TeamAndOrganizationTokenUseCases.auditResource(
        owner,
        existing.id,
        'destroy',
      );
      await recordAudit(tx, { organization, actor: auditActorOf(principal), resource, meta });
    });
  }
}
