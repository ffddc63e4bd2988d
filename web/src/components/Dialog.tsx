// Modal dialogs on headlessui's Dialog (focus trap, Escape, labelled by its title).
import { Dialog as HDialog, DialogPanel, DialogTitle } from "@headlessui/react";
import { useState, type ReactNode } from "react";
import { Button } from "./ui";

export function Modal({
  open,
  onClose,
  title,
  children,
  footer,
  size = "md",
}: {
  open: boolean;
  onClose: () => void;
  title: string;
  children: ReactNode;
  footer?: ReactNode;
  size?: "sm" | "md" | "lg";
}) {
  const width = size === "sm" ? "max-w-sm" : size === "lg" ? "max-w-2xl" : "max-w-lg";
  return (
    <HDialog open={open} onClose={onClose} className="relative z-50">
      <div className="fixed inset-0 bg-ink-900/40" aria-hidden="true" />
      <div className="fixed inset-0 flex items-end justify-center p-3 sm:items-center sm:p-6">
        <DialogPanel className={`w-full ${width} rounded-2xl bg-white shadow-xl`}>
          <div className="px-6 pt-5 pb-4">
            <DialogTitle className="text-lg font-semibold text-ink-900">{title}</DialogTitle>
            <div className="mt-3 text-sm text-ink-700">{children}</div>
          </div>
          {footer ? <div className="flex flex-wrap justify-end gap-2 rounded-b-2xl bg-ink-50 px-6 py-3">{footer}</div> : null}
        </DialogPanel>
      </div>
    </HDialog>
  );
}

/** A yes/no question, e.g. SPEC 8's 'Delete filter set' confirm. */
export function ConfirmDialog({
  open,
  title,
  message,
  confirmLabel,
  busy,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  message: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Modal
      open={open}
      onClose={onClose}
      title={title}
      size="sm"
      footer={
        <>
          <Button variant="secondary" onClick={onClose}>
            Cancel
          </Button>
          <Button variant="danger" busy={busy} onClick={onConfirm}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {message}
    </Modal>
  );
}

/**
 * A dialog's footer: Cancel, and its action, busy while the action runs; the dialog closes when the
 * action answers true (it failed, and said so, otherwise).
 */
export function ActionFooter({
  onClose,
  label,
  onAction,
  disabled = false,
  variant,
}: {
  onClose: () => void;
  label: string;
  onAction: () => Promise<boolean>;
  disabled?: boolean;
  variant?: "danger";
}) {
  const [busy, setBusy] = useState(false);
  return (
    <>
      <Button variant="secondary" onClick={onClose}>
        Cancel
      </Button>
      <Button
        variant={variant}
        busy={busy}
        disabled={disabled}
        onClick={async () => {
          setBusy(true);
          const ok = await onAction();
          setBusy(false);
          if (ok) onClose();
        }}
      >
        {label}
      </Button>
    </>
  );
}
