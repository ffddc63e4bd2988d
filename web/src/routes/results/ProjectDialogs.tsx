// Rename (the contract refuses the id SPEC 7 also names in the body, so only projectName is sent;
// 'Project Name Updated', skipped when the name is unchanged) and clone ('Project cloned',
// then to the new project) from the results page (SPEC 5, 7, 8).
import { useState } from "react";
import { useLocation } from "wouter";
import { api, unwrap } from "../../api/client";
import { handleError } from "../../api/errors";
import { Modal } from "../../components/Dialog";
import { toast } from "../../components/toast";
import { Button, Field, Input } from "../../components/ui";
import { useResults } from "../../features/results/context";

export function RenameDialog({ onClose }: { onClose: () => void }) {
  const { project, refetchProject } = useResults();
  const [name, setName] = useState(project.projectName);
  const [busy, setBusy] = useState(false);
  const save = async () => {
    const next = name.trim();
    if (!next || next === project.projectName) return onClose(); // SPEC 5: unchanged, skipped
    setBusy(true);
    try {
      await unwrap(api.PATCH("/api/v1/Projects({key})", { params: { path: { key: String(project.id) } }, body: { projectName: next } }));
      toast.success("Project Name Updated", `Project name has been updated to '${next}'`);
      refetchProject();
      onClose();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      onClose={onClose}
      title="Rename project"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} onClick={() => void save()} disabled={!name.trim()}>
            Save
          </Button>
        </>
      }
    >
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <Field id="rename-name" label="Project name">
          <Input id="rename-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
      </form>
    </Modal>
  );
}

export function CloneDialog({ onClose }: { onClose: () => void }) {
  const { project, clientId } = useResults();
  const [, navigate] = useLocation();
  const [name, setName] = useState(`${project.projectName} (copy)`);
  const [busy, setBusy] = useState(false);
  const clone = async () => {
    setBusy(true);
    try {
      const r = await unwrap(api.POST("/api/v1/Projects({key})/Duplicate", { params: { path: { key: String(project.id) } }, body: { projectName: name.trim() } }));
      toast.success("Project cloned", `Project '${r.projectName}' has been cloned.`);
      onClose();
      navigate(`~/${clientId}/projects/${r.id}`);
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      open
      onClose={onClose}
      title="Clone project"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button busy={busy} onClick={() => void clone()} disabled={!name.trim()}>
            Clone
          </Button>
        </>
      }
    >
      <p className="mb-3">A new draft with the same set-up, questions and test options. Results are not copied.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void clone();
        }}
      >
        <Field id="clone-name" label="Name of the copy">
          <Input id="clone-name" value={name} maxLength={200} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
      </form>
    </Modal>
  );
}
