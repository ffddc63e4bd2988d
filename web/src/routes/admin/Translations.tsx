// admin/translations: translated texts per region and language (TranslatedTextRegions
// AdminFiltered: search, verified or not, paged), edited in place (PATCH, marks verified).
import { useState } from "react";
import { api, selected, type Page, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Badge, Button, Input, PageHeader, Select } from "../../components/ui";
import { useSearchState } from "../../lib/search";
import { AuditLog, DataTable, Pager, SearchBox, Td, act, keyPath } from "./shared";

const PAGE = 50;
type Translation = Schemas["TranslationsFiltered"]["value"][number];

export default function Translations() {
  const [search, setSearch] = useSearchState();
  const q = String(search.q ?? "");
  const regionId = String(search.region ?? "");
  const verified = String(search.verified ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const [audit, setAudit] = useState(0);
  const { data: regions } = useApi(["Regions"], () =>
    selected<Page<Row<"Regions", "id" | "regionName">>>(api.GET("/api/v1/Regions", { params: { query: { $select: "id,regionName", $orderby: "id", $top: 200 } } })),
  );
  const query = {
    ...(q ? { search: q } : {}),
    ...(regionId ? { regionId } : {}),
    ...(verified ? { isVerified: verified === "yes" ? ("true" as const) : ("false" as const) } : {}),
    top: String(PAGE),
    skip: String(page * PAGE),
  };
  const { data, isLoading, mutate } = useApi(["TranslatedTextRegions/AdminFiltered", query], () => api.GET("/api/v1/TranslatedTextRegions/AdminFiltered", { params: { query } }));
  const regionName = new Map((regions?.value ?? []).map((r) => [r.id, r.regionName]));
  return (
    <div>
      <PageHeader title="Translations" subtitle="Questionnaire and demographic texts per market and language" />
      <div className="mb-4 grid gap-3 sm:grid-cols-[1fr_12rem_10rem]">
        <SearchBox id="tr-search" label="Search texts" value={q} onChange={(v) => setSearch({ q: v, page: null })} />
        <div>
          <label htmlFor="tr-region" className="sr-only">
            Region
          </label>
          <Select id="tr-region" value={regionId} onChange={(e) => setSearch({ region: e.target.value, page: null })}>
            <option value="">All regions</option>
            {regions?.value.map((r) => (
              <option key={r.id} value={r.id}>
                {r.regionName}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <label htmlFor="tr-verified" className="sr-only">
            Verified
          </label>
          <Select id="tr-verified" value={verified} onChange={(e) => setSearch({ verified: e.target.value, page: null })}>
            <option value="">All</option>
            <option value="yes">Verified</option>
            <option value="no">Not verified</option>
          </Select>
        </div>
      </div>
      <DataTable
        caption="Translations"
        head={["Source", "Translation", "Market", "Kind", ""]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No translations match"
        render={(r) => (
          <TranslationRow
            key={r.id}
            row={r}
            region={regionName.get(r.regionId) ?? String(r.regionId)}
            onSaved={() => {
              void mutate();
              setAudit((n) => n + 1);
            }}
          />
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.count ?? 0} onPage={(p) => setSearch({ page: p || null })} />
      <AuditLog filter="entityType eq 'TranslatedTextRegions'" title="Translation changes" refreshKey={audit} />
    </div>
  );
}

function TranslationRow({ row, region, onSaved }: { row: Translation; region: string; onSaved: () => void }) {
  const [text, setText] = useState(row.translatedText);
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    const r = await act(api.PATCH("/api/v1/TranslatedTextRegions({key})", { params: keyPath(row.id), body: { translatedText: text, isVerified: true } }), "Translation saved");
    setBusy(false);
    if (r) onSaved();
  }
  return (
    <tr>
      <Td className="max-w-72">{row.sourceText}</Td>
      <Td className="min-w-64">
        <label htmlFor={`tr-${row.id}`} className="sr-only">
          Translation of {row.sourceText}
        </label>
        <Input id={`tr-${row.id}`} value={text} onChange={(e) => setText(e.target.value)} />
      </Td>
      <Td>
        {region} <span className="text-xs text-ink-500">{row.languageCode}</span>
      </Td>
      <Td>
        {row.sourceType} {row.isVerified ? <Badge tone="green">Verified</Badge> : <Badge tone="amber">Unverified</Badge>}
      </Td>
      <Td>
        <Button size="sm" variant="secondary" busy={busy} disabled={text === row.translatedText && row.isVerified} onClick={() => void save()}>
          Save
        </Button>
      </Td>
    </tr>
  );
}
