// Files from the API (CSV, Excel, PowerPoint) come through the typed client as blobs, so the
// bearer token and clientId header go with them; the browser saves them under the server's name.
import { ApiError } from "../../api/client";
import { saveFile } from "../../lib/download";

export async function saveResponse(call: Promise<{ data?: unknown; error?: unknown; response: Response }>, fallbackName: string): Promise<string> {
  const r = await call;
  if (!r.response.ok) throw ApiError.from(r.response, r.error);
  const blob = r.data as Blob;
  const cd = r.response.headers.get("content-disposition") ?? "";
  const m = /filename\*=UTF-8''([^;]+)|filename="?([^";]+)"?/i.exec(cd);
  const name = m ? decodeURIComponent(m[1] ?? m[2] ?? fallbackName) : fallbackName;
  saveFile(blob, name);
  return name;
}

/**
 * A data export's answer (ExportCsv, ExportExcel): the file, saved, or, beyond the bound on exports
 * in flight (record 0134), 202 with the job that will make it.
 */
export async function saveOrQueued(call: Promise<{ data?: unknown; error?: unknown; response: Response }>, fallbackName: string): Promise<{ saved: string } | { jobId: string }> {
  const r = await call;
  if (r.response.status !== 202) return { saved: await saveResponse(Promise.resolve(r), fallbackName) };
  const started = JSON.parse(await (r.data as Blob).text()) as { jobId: string };
  return { jobId: started.jobId };
}
