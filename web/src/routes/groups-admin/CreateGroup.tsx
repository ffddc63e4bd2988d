// {clientId}/create-group (IdeallyAdmin): a new project group of the team, then its editor.
import { useState } from "react";
import { useLocation } from "wouter";
import { Button, Card, Field, Input, PageHeader, Textarea } from "../../components/ui";
import { api } from "../../api/client";
import { act, forClient } from "../admin/shared";

export default function CreateGroup({ clientId }: { clientId: number }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [busy, setBusy] = useState(false);
  const [, navigate] = useLocation();
  async function save() {
    setBusy(true);
    const g = await act(api.POST("/api/v1/ProjectGroups", { body: { name: name.trim(), description: description.trim() || null }, ...forClient(clientId) }), "Project group created", name.trim());
    setBusy(false);
    if (g) navigate(`/edit-group/${g.id}`);
  }
  return (
    <div className="max-w-2xl">
      <PageHeader title="Create a project group" subtitle="Group projects to read their results together" />
      <Card>
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <Field id="cg-name" label="Name">
            <Input id="cg-name" value={name} onChange={(e) => setName(e.target.value)} required />
          </Field>
          <Field id="cg-desc" label="Description">
            <Textarea id="cg-desc" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
          <Button type="submit" busy={busy} disabled={!name.trim()}>
            Create group
          </Button>
        </form>
      </Card>
    </div>
  );
}
