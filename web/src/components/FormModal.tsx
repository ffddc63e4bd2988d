// A modal around one form: Cancel and a submit button in the footer, tied to the form by id, so
// Enter submits and the submit button shows the call in flight.
import type { FormEvent, ReactNode } from "react";
import { Modal } from "./Dialog";
import { Button } from "./ui";

export function FormModal({
  id,
  title,
  submitLabel,
  busy,
  disabled,
  danger,
  size,
  onSubmit,
  onClose,
  children,
}: {
  id: string;
  title: string;
  submitLabel: string;
  busy?: boolean;
  disabled?: boolean;
  danger?: boolean;
  size?: "sm" | "md" | "lg";
  onSubmit: (e: FormEvent) => void;
  onClose: () => void;
  children: ReactNode;
}) {
  return (
    <Modal
      open
      onClose={onClose}
      size={size}
      title={title}
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant={danger ? "danger" : "primary"} type="submit" form={id} busy={busy} disabled={disabled}>
            {submitLabel}
          </Button>
        </>
      }
    >
      <form id={id} onSubmit={onSubmit}>
        {children}
      </form>
    </Modal>
  );
}
