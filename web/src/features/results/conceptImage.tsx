// A test option's uploaded image (its file, signed by ProjectFileUrls) where the results name the
// concept: the concept pages, the scorecard and the test-info preview. A file that is not an image
// is a link; no file, nothing.
import { useResults } from "./context";
import { cx } from "../../components/ui";
import { useFileUrls } from "../projects-editor/data";

export function useConceptFile(testOptionId: number | null) {
  const { projectId } = useResults();
  const { data } = useFileUrls(projectId);
  const f = testOptionId === null ? undefined : data?.value.find((u) => u.source === "testOption" && u.testOptionId === testOptionId);
  return f ? { url: f.signedUrl, isImage: !f.fileType || f.fileType.startsWith("image/"), fileName: f.fileName } : null;
}

export function ConceptImage({ testOptionId, name, size = "lg" }: { testOptionId: number | null; name: string; size?: "sm" | "lg" }) {
  const f = useConceptFile(testOptionId);
  if (!f) return null;
  if (!f.isImage)
    return size === "sm" ? null : (
      <a className="text-sm text-brand-700 underline" href={f.url} target="_blank" rel="noreferrer">
        Open the concept's file{f.fileName ? ` (${f.fileName})` : ""}
      </a>
    );
  return (
    <img
      src={f.url}
      alt={size === "sm" ? "" : `Concept: ${name}`}
      data-testid={size === "sm" ? "concept-thumb" : "concept-image"}
      className={cx("rounded-lg border border-ink-200 bg-white object-contain", size === "sm" ? "size-10 shrink-0" : "max-h-64 w-full max-w-md")}
    />
  );
}
