// text/{questionId}: the open answers to a group question across the group's projects, newest first, paged.
import { Badge, Button, EmptyState, Skeleton } from "../../components/ui";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { useSearchState } from "../../lib/search";
import { useGroup } from "../../features/results/group";

const PAGE_SIZE = 20;

export default function GroupText({ questionId }: { questionId: number }) {
  const { group, questions, filtersJson } = useGroup();
  const [search, setSearch] = useSearchState();
  const page = Math.max(1, Number(search.page ?? 1) || 1);
  const query = { projectGroupId: String(group.id), questionId: String(questionId), filters: filtersJson, page: String(page), pageSize: String(PAGE_SIZE) };
  const { data } = useApi(["VerbatimGroup", query], () => api.GET("/api/v1/TextResponses/VerbatimGroup", { params: { query } }));
  const { data: count } = useApi(["VerbatimCountGroup", query], () => api.GET("/api/v1/TextResponses/VerbatimCountGroup", { params: { query } }));
  const gq = questions.find((q) => q.questionId === questionId);
  const total = count?.count ?? 0;
  return (
    <div>
      <h2 className="mb-1 text-xl font-semibold text-ink-900">{gq?.title || gq?.question?.questionText || "Open answers"}</h2>
      <p className="mb-3 text-sm text-ink-600">{count ? `${total} answers` : "…"}</p>
      {!data ? <Skeleton className="h-60" /> : !data.value.length ? <EmptyState title="No answers" /> : (
        <ul className="space-y-2" aria-label="Answers">
          {data.value.map((v) => (
            <li key={v.id} className="rounded-lg border border-ink-200 bg-white p-3 text-sm shadow-sm">
              {v.translatedText ?? v.responseText}
              <div className="mt-1 flex gap-2 text-xs text-ink-500">{v.sentiment ? <Badge>{v.sentiment}</Badge> : null}<span>{new Date(v.createdAt).toLocaleDateString()}</span></div>
            </li>
          ))}
        </ul>
      )}
      {total > PAGE_SIZE ? (
        <div className="mt-4 flex justify-end gap-2">
          <Button size="sm" variant="secondary" disabled={page <= 1} onClick={() => setSearch({ page: page - 1 > 1 ? page - 1 : null })}>Previous</Button>
          <Button size="sm" variant="secondary" disabled={page * PAGE_SIZE >= total} onClick={() => setSearch({ page: page + 1 })}>Next</Button>
        </div>
      ) : null}
    </div>
  );
}
