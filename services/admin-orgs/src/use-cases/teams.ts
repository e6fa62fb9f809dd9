import { isUniqueViolation, pageInfo, pageWindow } from '@policyhub/db';
import { invalidAttribute, newId, notFound, unprocessable } from '@policyhub/errors';
import { type AuditAct, auditActorOf } from '@policyhub/events';
import { canAccessOrganization, type Permission, type Principal } from '@policyhub/permissions';
import { type OrganizationRow, type TeamRow, TenancyRepository } from '../db/tenancy-repository.js';
import type { Deps } from '../deps.js';
import {
  isOwnerOrAdmin,
  OWNER,
  requireName,
  requireOwner,
  requirePrincipal,
  validatePermissions,
} from '../domain/rules.js';
import { organizationOf, recordAudit } from './audit-trail.js';
import type { PageRequest } from './page.js';
import { nameTaken, visibleOrganization } from './tenancy-access.js';

/**
 * Upstream visibility: owners (and site admins) see every team; other members see `organization`
 * teams and the teams they belong to; internal callers see all.
 */
const canSeeTeam = (p: Principal | undefined, team: TeamRow): boolean =>
  !p ||
  isOwnerOrAdmin(p, team.organization) ||
  (canAccessOrganization(p, team.organization) &&
    (team.visibility === 'organization' || team.user_ids.includes(p.userId)));

export interface NewTeam {
  name: string;
  /** Requested permissions; undefined marks a value without a word (refused). */
  permissions: ReadonlyArray<Permission | undefined>;
  /** Undefined: not given (`secret`); null: a value without a word (refused). */
  visibility: TeamRow['visibility'] | null | undefined;
}

function resolveVisibility(value: NewTeam['visibility']): TeamRow['visibility'] {
  if (value === null) {
    throw invalidAttribute(
      'ADMIN_ORGS_INVALID_TEAM_VISIBILITY',
      'visibility',
      'Visibility must be secret or organization',
    );
  }
  return value ?? 'secret';
}

/** Teams of an organization and their members; changes need an owner. */
export class TeamUseCases {
  private readonly tenancy: TenancyRepository;

  constructor(private readonly deps: Deps) {
    this.tenancy = new TenancyRepository(deps.db);
  }

  async create(principal: Principal | undefined, organization: string, team: NewTeam): Promise<TeamRow> {
    const org = await visibleOrganization(this.tenancy, principal, organization);
    requireOwner(principal, organization);
    requireName(team.name, 'name', 'ADMIN_ORGS_INVALID_TEAM_NAME');
    const permissions = validatePermissions(team.permissions);
    const visibility = resolveVisibility(team.visibility);
    const id = newId('team');
    try {
      await this.deps.db.transaction(async (tx) => {
        await new TenancyRepository(tx).insertTeam(id, organization, team.name, permissions, visibility);
        await recordAudit(tx, {
          organization: organizationOf(org),
          actor: auditActorOf(principal),
          resource: { type: 'team', id, action: 'create' },
          meta: { name: team.name, permissions, visibility },
        });
      });
    } catch (err) {
      if (isUniqueViolation(err)) throw nameTaken('team');
      throw err;
    }
    return (await this.tenancy.getTeam(id))!;
  }

  /** A team the caller may see, else NOT_FOUND. */
  async get(principal: Principal | undefined, id: string): Promise<TeamRow> {
    const team = await this.tenancy.getTeam(id);
    if (!team) throw notFound();
    await visibleOrganization(this.tenancy, principal, team.organization);
    if (!canSeeTeam(principal, team)) throw notFound();
    return team;
  }

  async list(
    principal: Principal | undefined,
    organization: string,
    filter: { query: string; names: string[] },
    page: PageRequest,
  ) {
    const caller = requirePrincipal(principal);
    await visibleOrganization(this.tenancy, caller, organization);
    const w = pageWindow(page);
    const { rows, total } = await this.tenancy.listTeams(
      organization,
      { viewerId: isOwnerOrAdmin(caller, organization) ? null : caller.userId, ...filter },
      w.size,
      w.offset,
    );
    return { teams: rows, page: pageInfo(w, total) };
  }

  async delete(principal: Principal | undefined, id: string): Promise<void> {
    const { team, org } = await this.owned(principal, id);
    if (team.name === OWNER) {
      throw unprocessable('ADMIN_ORGS_OWNERS_TEAM', 'the owners team of an organization cannot be deleted');
    }
    await this.deps.db.transaction(async (tx) => {
      await new TenancyRepository(tx).deleteTeam(team.id);
      await recordAudit(tx, this.teamAct(principal, org, team, 'destroy'));
    });
  }

  async addMembers(principal: Principal | undefined, teamId: string, userIds: string[]): Promise<TeamRow> {
    const { team, org } = await this.owned(principal, teamId);
    const missing = await this.tenancy.missingUsers(userIds);
    if (missing.length > 0)
      throw unprocessable('ADMIN_ORGS_USER_NOT_FOUND', `user not found: ${missing.join(', ')}`);
    await this.deps.db.transaction(async (tx) => {
      await new TenancyRepository(tx).addMembers(team.id, userIds);
      await recordAudit(tx, this.teamAct(principal, org, team, 'add_members', userIds));
    });
    return (await this.tenancy.getTeam(team.id))!;
  }

  /** Removes members; the owners team keeps at least one. */
  async removeMembers(principal: Principal | undefined, teamId: string, userIds: string[]): Promise<TeamRow> {
    const { team, org } = await this.owned(principal, teamId);
    await this.deps.db.transaction(async (tx) => {
      const r = new TenancyRepository(tx);
      // Row lock: two concurrent removals cannot each leave the other's owner as the last one.
      await r.lockTeam(team.id);
      await r.removeMembers(team.id, userIds);
      if (team.name === OWNER && (await r.getTeam(team.id))?.user_ids.length === 0) {
        throw unprocessable(
          'ADMIN_ORGS_LAST_OWNER',
          'the owners team must keep at least one member; add another owner first',
        );
      }
      await recordAudit(tx, this.teamAct(principal, org, team, 'remove_members', userIds));
    });
    return (await this.tenancy.getTeam(team.id))!;
  }

  private async owned(principal: Principal | undefined, id: string) {
    const team = await this.get(principal, id);
    requireOwner(principal, team.organization);
    const org = await visibleOrganization(this.tenancy, principal, team.organization);
    return { team, org };
  }

  private teamAct(
    principal: Principal | undefined,
    org: OrganizationRow,
    team: TeamRow,
    action: string,
    userIds?: string[],
  ): AuditAct {
    return {
      organization: organizationOf(org),
      actor: auditActorOf(principal),
      resource: { type: 'team', id: team.id, action },
      meta: { name: team.name, user_ids: userIds },
    };
  }
}
