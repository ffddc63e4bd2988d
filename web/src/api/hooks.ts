// Data through swr over the typed client. Keys are arrays naming the call and its inputs, so
// `mutate` can refetch by prefix.
import useSWR, { type SWRConfiguration } from "swr";
import { api, unwrap } from "./client";

export { api, unwrap };

/** `useApi(["Projects", query], () => api.GET(...))`: null key skips the call. */
export function useApi<T>(key: unknown[] | null, call: () => Promise<{ data?: T; error?: unknown; response: Response }>, opts?: SWRConfiguration<T>) {
  return useSWR<T>(key, () => unwrap(call()), opts);
}
