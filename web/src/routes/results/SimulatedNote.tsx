// Under the results header on every results page: what the view's respondents are when the
// simulated panel answered any of them (issue 36). The sentence is the API's
// (Projects SimulatedRespondents, the one computation the exports and AI answers also say), for
// the filters the page shows; nothing when every respondent is a person.
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useResults } from "../../features/results/context";

export function SimulatedNote() {
  const { projectId, filtersJson } = useResults();
  const { data } = useApi(
    ["SimulatedRespondents", projectId, filtersJson],
    () => api.GET("/api/v1/Projects({key})/SimulatedRespondents", { params: { path: { key: String(projectId) }, query: { filters: filtersJson } } }),
    { keepPreviousData: true },
  );
  if (!data?.words) return null;
  return (
    <p role="note" className="mt-2 rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" data-testid="simulated-note">
      {data.words}
    </p>
  );
}
