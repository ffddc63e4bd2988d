// `ideally whoami`: the account (Users Me) and the chosen client.
import { printJson, summary } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

export async function runWhoami(o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const me = ok(await api.client.GET("/api/v1/Users/Me"), "reading the account");
  if (o.json) return printJson({ ...me, api: api.base, clientId: api.clientId });
  const name = [me.firstName, me.lastName].filter(Boolean).join(" ");
  process.stdout.write(
    `${summary([
      ["email", me.email],
      ["name", name || "–"],
      ["user id", String(me.id)],
      ["staff", me.isStaff ? (me.isSuperAdmin ? "yes (super admin)" : "yes") : "no"],
      [
        "client",
        api.clientId != null
          ? `${api.clientId}${me.client && me.client.id === api.clientId ? ` ${me.client.name} (${me.client.tier}${me.client.role ? `, ${me.client.role.roleName}` : ""})` : ""}`
          : "none chosen",
      ],
      ["api", api.base],
    ])}\n`,
  );
}
