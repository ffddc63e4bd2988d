// Under the results header when "All markets" is chosen: how the total weights the markets
// (QualResults allMarkets: by population, or by sample where a population is unknown), with a
// link to the market-by-market table.
import { Link } from "wouter";
import { resultsLink } from "../../lib/projectLinks";
import { useResults } from "../../features/results/context";
import { weightingNote } from "../../features/results/markets";
import { useQualResults } from "../../features/results/queries";

export function AllMarketsNote() {
  const { project, clientId, projectId } = useResults();
  const { data } = useQualResults();
  const name = (regionId: number) => project.projectsRegions.find((r) => r.regionId === regionId)?.region?.regionName ?? `Region ${regionId}`;
  return (
    <p className="mt-1 text-sm text-ink-700" data-testid="all-markets-note">
      {data ? weightingNote(data.allMarkets, name) : "All markets."}{" "}
      <Link href={`~${resultsLink(clientId, projectId, "markets")}`} className="font-medium text-brand-700 hover:underline">
        Market by market
      </Link>
    </p>
  );
}
