// {clientId}/edit-group/{projectGroupId} (IdeallyAdmin).
import { GroupEditor } from "./GroupEditor";

export default function EditGroup({ clientId, groupId }: { clientId: number; groupId: number }) {
  return <GroupEditor groupId={groupId} clientId={clientId} />;
}
