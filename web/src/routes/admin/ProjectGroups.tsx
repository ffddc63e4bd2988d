// admin/project-groups and admin/project-groups/{projectGroupId}: every client's project groups;
// one group in the shared group editor.
import { Link } from "wouter";
import { Badge, ButtonLink, PageHeader } from "../../components/ui";
import { GroupEditor } from "../groups-admin/GroupEditor";
import type { Row } from "../../api/client";
import { DataTable, Td, fmtDate, useSet } from "./shared";

type Group = Row<
  "ProjectGroups",
  "id" | "clientId" | "name" | "description" | "activeVersionId" | "createdAt",
  {
    client: Row<"Clients", "name"> | null;
    "projectGroupVersions@odata.count"?: number;
    "projectGroupTags@odata.count"?: number;
  }
>;

export default function ProjectGroups() {
  const { data, isLoading } = useSet<Group>("ProjectGroups", {
    $select: "id,clientId,name,description,activeVersionId,createdAt",
    $expand: "client($select=name),projectGroupVersions/$count,projectGroupTags/$count",
    $orderby: "name",
    $top: 500,
  });
  return (
    <div>
      <PageHeader title="Project groups" subtitle="Groups of projects read together (segments, occasions, needs, usage and attitude)" />
      <DataTable
        caption="Project groups"
        head={["Group", "Team", "Versions", "Tagged projects", "Created", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No project groups yet"
        render={(g) => (
          <tr key={g.id}>
            <Td>
              <Link href={`/project-groups/${g.id}`} className="font-medium text-ink-900 hover:text-brand-700 hover:underline">
                {g.name}
              </Link>
              <p className="text-xs text-ink-500">{g.description}</p>
            </Td>
            <Td>{g.client?.name ?? g.clientId}</Td>
            <Td>
              {g["projectGroupVersions@odata.count"] ?? 0} {g.activeVersionId ? <Badge tone="green">active</Badge> : null}
            </Td>
            <Td>{g["projectGroupTags@odata.count"] ?? 0}</Td>
            <Td className="whitespace-nowrap">{fmtDate(g.createdAt, false)}</Td>
            <Td className="text-right">
              <ButtonLink variant="ghost" href={`~/${g.clientId}/edit-group/${g.id}`} className="h-8 px-3">
                In client
              </ButtonLink>
            </Td>
          </tr>
        )}
      />
      <p className="mt-4 text-sm text-ink-600">
        New groups are created from a team: open the team and go to <code>/create-group</code>, e.g.{" "}
        <Link href="~/3/create-group" className="text-brand-700 underline">
          /3/create-group
        </Link>
        .
      </p>
    </div>
  );
}

export function ProjectGroupDetail({ id }: { id: number }) {
  return (
    <div>
      <p className="mb-2 text-sm">
        <Link href="/project-groups" className="text-brand-700 hover:underline">
          ← Project groups
        </Link>
      </p>
      <GroupEditor groupId={id} />
    </div>
  );
}
