// A value to copy (an identity provider's URLs, a survey's respondent link): read-only, selected on
// focus, with a Copy button that says when it is on the clipboard.
import { toast } from "./toast";
import { Button, Field, Input } from "./ui";

export function CopyValue({ id, label, value }: { id: string; label: string; value: string | undefined }) {
  return (
    <Field id={id} label={label}>
      <div className="flex gap-2">
        <Input id={id} readOnly value={value ?? ""} className="font-mono text-xs" onFocus={(e) => e.currentTarget.select()} />
        <Button
          variant="secondary"
          aria-label={`Copy ${label}`}
          disabled={!value}
          onClick={() =>
            void navigator.clipboard?.writeText(value ?? "").then(
              () => toast.success("Copied", `${label} is on the clipboard.`),
              () => {},
            )
          }
        >
          Copy
        </Button>
      </div>
    </Field>
  );
}
