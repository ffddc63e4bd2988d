// admin/ai-conversations and admin/ai-conversations/{conversationId}: users' AI conversations
// across clients (who, which project, status, model, last message) and one conversation with its
// evaluations. The conversation's messages and the debug view need AiConversations GetMessages and
// DebugConversation, which the API does not have yet (see docs/decisions.md).
import { Link } from "wouter";
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Badge, Card, EmptyState, PageHeader, Select } from "../../components/ui";
import { useSearchState } from "../../lib/search";
import { DataTable, LoadingRows, Pager, Td, fmtDate, keyed, useSet } from "./shared";

const PAGE = 25;
type Evaluation = { id: number; score: number | null; passed: boolean | null; notes: string | null; criteria: unknown; createdAt: string; evaluatorUser: { email: string } | null };
type Conversation = {
  id: number;
  title: string | null;
  status: string;
  model: string | null;
  projectId: number | null;
  clientId: number | null;
  lastMessageAt: string | null;
  createdAt: string;
  user: { email: string } | null;
  client: { name: string } | null;
  project: { projectName: string } | null;
  "aiConversationEvaluations@odata.count"?: number;
  aiConversationEvaluations?: Evaluation[];
};

export default function AiConversations() {
  const [search, setSearch] = useSearchState();
  const status = String(search.status ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const { data, isLoading } = useSet<Conversation>("AiConversations", {
    $select: "id,title,status,model,projectId,clientId,lastMessageAt,createdAt",
    $expand: "user($select=email),client($select=name),project($select=projectName),aiConversationEvaluations/$count",
    $orderby: "id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(status === "Active" || status === "Closed" ? { $filter: `status eq '${status}'` } : {}),
  });
  return (
    <div>
      <PageHeader title="AI conversations" subtitle="Conversations users had with the AI, across clients" />
      <div className="mb-4 max-w-48">
        <label htmlFor="conv-status" className="sr-only">Status</label>
        <Select id="conv-status" value={status} onChange={(e) => setSearch({ status: e.target.value, page: null })}>
          <option value="">All statuses</option>
          <option value="Active">Active</option>
          <option value="Closed">Closed</option>
        </Select>
      </div>
      <DataTable
        caption="AI conversations"
        head={["Conversation", "User", "Project", "Status", "Evaluations", "Last message"]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No AI conversations yet"
        render={(c) => (
          <tr key={c.id}>
            <Td className="min-w-48"><Link href={`/ai-conversations/${c.id}`} className="font-medium text-ink-900 hover:text-brand-700 hover:underline">{c.title ?? `Conversation ${c.id}`}</Link><p className="text-xs text-ink-500">{c.model ?? "default model"}</p></Td>
            <Td>{c.user?.email}<p className="text-xs text-ink-500">{c.client?.name}</p></Td>
            <Td>{c.project?.projectName ?? "—"}</Td>
            <Td><Badge tone={c.status === "Active" ? "blue" : "neutral"}>{c.status}</Badge></Td>
            <Td>{c["aiConversationEvaluations@odata.count"] ?? 0}</Td>
            <Td className="whitespace-nowrap">{fmtDate(c.lastMessageAt)}</Td>
          </tr>
        )}
      />
      <Pager page={page} size={PAGE} total={data?.["@odata.count"] ?? 0} onPage={(p) => setSearch({ page: p || null })} />
    </div>
  );
}

export function AiConversationDetail({ id }: { id: number }) {
  const { data: c, isLoading, error } = useApi<Conversation>(["AiConversations", id], () =>
    api.GET(keyed("AiConversations", id) as never, {
      params: { query: { $expand: "user($select=email),client($select=name),project($select=projectName),aiConversationEvaluations($orderby=id desc;$expand=evaluatorUser($select=email))" } },
    } as never) as never,
  );
  return (
    <div>
      <p className="mb-2 text-sm"><Link href="/ai-conversations" className="text-brand-700 hover:underline">← AI conversations</Link></p>
      {error ? <EmptyState title="Conversation not found">It may have been deleted, or the id is wrong.</EmptyState> : isLoading || !c ? <LoadingRows label="Loading conversation" /> : (
        <>
          <PageHeader title={c.title ?? `Conversation ${c.id}`} subtitle={`${c.user?.email ?? "—"} · ${c.client?.name ?? "no client"}`} />
          <Card title="Conversation">
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
              <dt className="text-ink-500">Status</dt><dd><Badge tone={c.status === "Active" ? "blue" : "neutral"}>{c.status}</Badge></dd>
              <dt className="text-ink-500">Project</dt><dd>{c.project?.projectName ?? "—"}</dd>
              <dt className="text-ink-500">Model</dt><dd>{c.model ?? "default"}</dd>
              <dt className="text-ink-500">Started</dt><dd>{fmtDate(c.createdAt)}</dd>
              <dt className="text-ink-500">Last message</dt><dd>{fmtDate(c.lastMessageAt)}</dd>
            </dl>
          </Card>
          <Card title="Evaluations" className="mt-6">
            {!c.aiConversationEvaluations?.length ? <p className="text-sm text-ink-600">Not evaluated yet.</p> : (
              <ul className="divide-y divide-ink-100 text-sm">
                {c.aiConversationEvaluations.map((e) => (
                  <li key={e.id} className="py-2.5">
                    <div className="flex flex-wrap items-center gap-3">
                      {e.passed === null ? null : <Badge tone={e.passed ? "green" : "red"}>{e.passed ? "Passed" : "Failed"}</Badge>}
                      {e.score !== null ? <span className="font-medium">Score {e.score}</span> : null}
                      <span className="text-ink-500">{e.evaluatorUser?.email ?? "automatic"} · {fmtDate(e.createdAt)}</span>
                    </div>
                    {e.notes ? <p className="mt-1 text-ink-700">{e.notes}</p> : null}
                    {e.criteria ? <code className="mt-1 block text-xs break-all text-ink-600">{JSON.stringify(e.criteria)}</code> : null}
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </>
      )}
    </div>
  );
}
