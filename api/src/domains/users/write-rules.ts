// The users domain's rules on the generic writes (issue 19, finding 2): DELETE and PATCH of Users
// follow what Disable, RemoveFromAccount and SuperAdminUserUpdate check, and a generic LinkInvites
// create never makes a team invite. Declared on the entity sets (entities/tenancy.ts) and run by the
// entity service inside the write's own transaction.
import type { WriteGuard } from "../../entities/types.ts";
import { ApiError } from "../../errors.ts";
import * as q from "./users.sql.ts";

const staffOnlyBySuperAdmin = () => new ApiError("Forbidden", "Only a super admin can delete or change staff accounts");

export const usersWriteGuard: WriteGuard = {
  async update(tx, ctx, key) {
    const target = await q.userSummary(tx, Number(key));
    if (target?.isStaff && !ctx.principal.isSuperAdmin) throw staffOnlyBySuperAdmin();
  },
  async remove(tx, ctx, key) {
    const id = Number(key);
    if (id === ctx.principal.userId) throw new ApiError("Conflict", "You cannot delete your own account");
    const target = await q.userSummary(tx, id);
    if (!target) return; // the write answers 404
    if (target.isStaff && !ctx.principal.isSuperAdmin) throw staffOnlyBySuperAdmin();
    // The same lock as RemoveFromAccount and ChangeRole: no two changes together leave a client without an Admin.
    await q.lockMemberships(tx);
    const adminOf = await q.adminMembershipsOf(tx, id);
    return async () => {
      for (const clientId of adminOf) {
        if ((await q.adminCount(tx, clientId)) === 0) {
          throw new ApiError("Conflict", `This is the last Admin of client ${clientId}; make someone else Admin first`);
        }
      }
    };
  },
};

export const linkInvitesWriteGuard: WriteGuard = {
  async create(_tx, _ctx, body) {
    if (body.inviteType === "TeamInvite") {
      throw new ApiError("ValidationError", "Team invites are made by inviting the person (POST /api/v1/Users)", undefined, [{ path: "inviteType", message: "ProjectShare or Demo" }]);
    }
  },
};
