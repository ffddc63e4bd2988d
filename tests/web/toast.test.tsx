// Toasts as issue 22 asks and SPEC 9 specifies: errors the user dismisses, not a growing stack. The
// same message again is one toast; at most three on screen, the oldest giving way; an error raised
// on a screen leaves when the page changes, unless it was raised for the next page (a redirect);
// success toasts stay across a page change; Dismiss removes one. Read through the app's own
// Toaster, rendered to HTML.
import { afterEach, describe, expect, test } from "bun:test";
import { renderToString } from "react-dom/server";
import { MAX_TOASTS, Toaster, toast } from "../../web/src/components/toast.tsx";

const shown = () => {
  const html = renderToString(<Toaster />);
  return { alerts: (html.match(/role="alert"/g) ?? []).length, statuses: (html.match(/role="status"/g) ?? []).length, html };
};

afterEach(() => toast.clear());

describe("toasts", () => {
  test("the same error twice is one toast, not a stack", () => {
    toast.error("Something went wrong", "Supermarket appears twice", true);
    toast.error("Something went wrong", "Supermarket appears twice", true);
    expect(shown().alerts).toBe(1);
    toast.error("Something went wrong", "Another problem", true);
    expect(shown().alerts).toBe(2);
  });

  test(`at most ${MAX_TOASTS} on screen: a fourth pushes out the oldest`, () => {
    expect(MAX_TOASTS).toBe(3);
    for (const n of [1, 2, 3]) toast.error(`Error ${n}`, undefined, true);
    expect(shown().alerts).toBe(3);
    toast.error("Error 4", undefined, true);
    const s = shown();
    expect(s.alerts).toBe(3);
    expect(s.html).not.toContain("Error 1");
    expect(s.html).toContain("Error 4");
  });

  test("a page change takes the screen's errors away, but not successes or an error meant for the next page", () => {
    toast.error("Could not save", "on this screen", true);
    toast.success("Saved");
    toast.show({ severity: "error", summary: "Project not found", forNextPage: true, sticky: true });
    toast.clearErrors();
    const s = shown();
    expect(s.html).not.toContain("Could not save");
    expect(s.html).toContain("Saved");
    expect(s.html).toContain("Project not found");
  });

  test("Dismiss removes a sticky error (the user decides when it goes)", () => {
    const id = toast.error("Could not save", undefined, true);
    expect(shown().alerts).toBe(1);
    expect(shown().html).toContain('aria-label="Dismiss"');
    toast.remove(id);
    expect(shown().alerts).toBe(0);
  });
});
