// security (org and enterprise): single sign-on. Our service-provider details (entity id and ACS
// URL, read from /auth/Saml/Metadata) to give the identity provider, and the client's SAML
// identity providers (CognitoIdps/SamlProviders, each claimed email domain verified or pending:
// sign-in routes by verified domains only), add (CreateSaml), change or switch on/off (UpdateSaml),
// delete.
import { useState, type FormEvent, type ReactNode } from "react";
import { api, unwrap, type Schemas } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { ConfirmDialog } from "../../components/Dialog";
import { toast } from "../../components/toast";
import { Badge, Button, Card, EmptyState, Field, Input, PageHeader, Skeleton, Textarea, cx } from "../../components/ui";
import { fieldErrors, formatDate, type ManageProps } from "./manage";
import { FormModal } from "../../components/FormModal";
import { CopyValue } from "../../components/CopyValue";

type Idp = Schemas["SamlIdentityProvider"];

/** Our SP metadata as the API publishes it (entity id and ACS URL follow PUBLIC_URL there). */
function useSpMetadata() {
  return useApi<{ metadataUrl: string; entityId: string; acsUrl: string }>(["auth/Saml/Metadata"], async () => {
    const r = await api.GET("/auth/Saml/Metadata", { parseAs: "text" });
    if (!r.response.ok) return { error: r.error, response: r.response };
    const doc = new DOMParser().parseFromString(String(r.data), "application/xml");
    const entityId = doc.documentElement.getAttribute("entityID") ?? "";
    const acsUrl = doc.getElementsByTagNameNS("*", "AssertionConsumerService")[0]?.getAttribute("Location") ?? "";
    return { data: { metadataUrl: new URL("/auth/Saml/Metadata", location.origin).href, entityId, acsUrl }, response: r.response };
  });
}

export default function Security({ client }: ManageProps) {
  const sp = useSpMetadata();
  const idps = useApi(["CognitoIdps/SamlProviders", client.id], () => api.GET("/api/v1/CognitoIdps/SamlProviders"));
  const [editing, setEditing] = useState<Idp | "new" | null>(null);
  const [deleting, setDeleting] = useState<Idp | null>(null);
  const [busy, setBusy] = useState(false);

  async function toggle(idp: Idp) {
    try {
      await unwrap(api.POST("/api/v1/CognitoIdps({key})/UpdateSaml", { params: { path: { key: String(idp.id) } }, body: { isEnabled: !idp.isEnabled } }));
      toast.success(idp.isEnabled ? "Single sign-on switched off" : "Single sign-on switched on", `${idp.providerName} ${idp.isEnabled ? "no longer signs people in" : "signs people in again"}.`);
    } catch (e) {
      handleError(e);
    }
    void idps.mutate();
  }

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    try {
      await unwrap(api.DELETE("/api/v1/CognitoIdps({key})", { params: { path: { key: String(deleting.id) } } }));
      toast.success("Identity provider deleted", `People of ${deleting.emailDomains.join(", ")} sign in another way now.`);
      setDeleting(null);
      void idps.mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <PageHeader title="Security" subtitle={`${client.name} · single sign-on (SAML 2.0)`} actions={<Button onClick={() => setEditing("new")}>Add identity provider</Button>} />
      <div className="grid gap-4 lg:grid-cols-[1fr_22rem]">
        <div className="space-y-4">
          <h2 className="text-sm font-semibold text-ink-900">Identity providers</h2>
          {idps.isLoading ? (
            <Skeleton className="h-28" />
          ) : !idps.data?.value.length ? (
            <EmptyState title="No single sign-on yet" action={<Button onClick={() => setEditing("new")}>Add identity provider</Button>}>
              Connect your identity provider (Okta, Entra ID, Google Workspace, ADFS...) so people with your email domains sign in with it.
            </EmptyState>
          ) : (
            idps.data.value.map((idp) => (
              <Card
                key={idp.id}
                title={
                  <span className="flex flex-wrap items-center gap-2 break-all">
                    {idp.providerName} <Badge tone={idp.isEnabled ? "green" : "neutral"}>{idp.isEnabled ? "On" : "Off"}</Badge>
                  </span>
                }
                actions={
                  <div className="flex flex-wrap justify-end gap-1">
                    <Button variant="ghost" size="sm" onClick={() => setEditing(idp)} aria-label={`Edit ${idp.providerName}`}>
                      Edit
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => void toggle(idp)}>
                      {idp.isEnabled ? "Switch off" : "Switch on"}
                    </Button>
                    <Button variant="ghost" size="sm" className="text-rose-700" onClick={() => setDeleting(idp)} aria-label={`Delete ${idp.providerName}`}>
                      Delete
                    </Button>
                  </div>
                }
              >
                <dl className="grid gap-3 text-sm sm:grid-cols-3">
                  <Detail term="Email domains">
                    <DomainStates idp={idp} />
                  </Detail>
                  <Detail term="Type">{idp.providerType}</Detail>
                  <Detail term="Updated">{formatDate(idp.updatedAt ?? idp.createdAt)}</Detail>
                </dl>
              </Card>
            ))
          )}
        </div>
        <Card title="Our service provider details">
          <p className="mb-4 text-sm text-ink-600">Give these to your identity provider when you register Ideally as an application.</p>
          <div className="space-y-4">
            <CopyValue id="sp-metadata" label="Metadata URL" value={sp.data?.metadataUrl} />
            <CopyValue id="sp-entity" label="Entity ID (audience)" value={sp.data?.entityId} />
            <CopyValue id="sp-acs" label="ACS URL (reply URL)" value={sp.data?.acsUrl} />
          </div>
          <p className="mt-4 text-xs text-ink-500">Assertions must be signed and carry the person's email. Only existing members sign in; invite people first.</p>
        </Card>
      </div>
      {editing ? <IdpDialog idp={editing === "new" ? null : editing} onClose={() => setEditing(null)} onSaved={() => void idps.mutate()} /> : null}
      <ConfirmDialog
        open={!!deleting}
        title="Delete identity provider"
        message={`Delete ${deleting?.providerName ?? ""}? People of ${deleting?.emailDomains.join(", ") ?? ""} can no longer sign in through it.`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}

/** Each claimed domain with its state: verified (sign-in routes by it) or pending (it routes nobody yet). */
function DomainStates({ idp }: { idp: Idp }) {
  const pending = idp.emailDomains.filter((d) => !idp.verifiedEmailDomains.includes(d));
  return (
    <>
      <ul className="space-y-1" aria-label={`Email domains of ${idp.providerName}`}>
        {idp.emailDomains.map((d) => {
          const ok = idp.verifiedEmailDomains.includes(d);
          return (
            <li key={d} className="flex flex-wrap items-center gap-2">
              <span className="break-all">{d}</span>
              <Badge tone={ok ? "green" : "amber"}>{ok ? "Verified" : "Pending verification"}</Badge>
            </li>
          );
        })}
      </ul>
      {pending.length ? (
        <p className="mt-1 text-xs text-ink-600">People of a pending domain sign in with a password until your organisation proves it owns the domain (a DNS record Ideally support checks).</p>
      ) : null}
    </>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs text-ink-500">{term}</dt>
      <dd className="mt-0.5 text-ink-900">{children}</dd>
    </div>
  );
}

function IdpDialog({ idp, onClose, onSaved }: { idp: Idp | null; onClose: () => void; onSaved: () => void }) {
  const [providerName, setProviderName] = useState("");
  const [domains, setDomains] = useState(idp?.emailDomains.join(", ") ?? "");
  const [mode, setMode] = useState<"metadata" | "parts">("metadata");
  const [metadataXml, setMetadataXml] = useState("");
  const [entryPoint, setEntryPoint] = useState("");
  const [idpIssuer, setIdpIssuer] = useState("");
  const [idpCert, setIdpCert] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});

  async function submit(e: FormEvent) {
    e.preventDefault();
    setErrors({});
    const emailDomains = domains
      .split(/[\s,;]+/)
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean);
    const config =
      mode === "metadata"
        ? metadataXml.trim()
          ? { metadataXml: metadataXml.trim() }
          : {}
        : { ...(entryPoint.trim() ? { entryPoint: entryPoint.trim() } : {}), ...(idpIssuer.trim() ? { idpIssuer: idpIssuer.trim() } : {}), ...(idpCert.trim() ? { idpCert: idpCert.trim() } : {}) };
    if (!idp && !Object.keys(config).length)
      return setErrors({ [mode === "metadata" ? "metadataXml" : "entryPoint"]: "Give the identity provider's metadata or its sign-on URL, issuer and certificate." });
    setBusy(true);
    try {
      let saved: Schemas["SamlIdentityProvider"];
      if (idp) {
        saved = await unwrap(api.POST("/api/v1/CognitoIdps({key})/UpdateSaml", { params: { path: { key: String(idp.id) } }, body: { emailDomains, ...config } }));
      } else {
        saved = await unwrap(api.POST("/api/v1/CognitoIdps/CreateSaml", { body: { providerName: providerName.trim(), emailDomains, ...config } }));
      }
      const cert = saved.certificates[0];
      toast.success(
        idp ? "Identity provider saved" : "Identity provider added",
        cert ? `${saved.providerName}: signing certificate valid until ${formatDate(cert.notAfter)}.` : `${saved.providerName} is saved.`,
      );
      onSaved();
      onClose();
    } catch (err) {
      handleError(err, {
        status: {
          400: (x) => setErrors(fieldErrors(x, "form")),
          409: (x) => setErrors({ form: x.message }),
        },
      });
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormModal
      id="idp-form"
      size="lg"
      title={idp ? `Edit ${idp.providerName}` : "Add identity provider"}
      submitLabel={idp ? "Save" : "Add"}
      busy={busy}
      onSubmit={(e) => void submit(e)}
      onClose={onClose}
    >
      <div className="space-y-4">
        {errors.form ? (
          <p className="rounded-lg bg-rose-50 px-3 py-2 text-rose-800" role="alert">
            {errors.form}
          </p>
        ) : null}
        {idp ? null : (
          <Field id="idp-name" label="Name" hint="Letters, digits, dot, dash and underscore; unique, e.g. AcmeSSO." error={errors.providerName}>
            <Input id="idp-name" required pattern="[A-Za-z0-9_.\-]{1,32}" value={providerName} onChange={(e) => setProviderName(e.target.value)} />
          </Field>
        )}
        <Field
          id="idp-domains"
          label="Email domains"
          hint="Separated by commas, e.g. acme.com, acme.co.nz. People with these emails sign in through this provider once your organisation's ownership of the domain is verified (a DNS record, checked by Ideally support)."
          error={errors.emailDomains}
        >
          <Input id="idp-domains" required value={domains} onChange={(e) => setDomains(e.target.value)} />
        </Field>
        <fieldset>
          <legend className="text-sm font-medium text-ink-800">Identity provider configuration{idp ? " (leave empty to keep the current one)" : ""}</legend>
          <div className="mt-2 inline-flex rounded-lg bg-ink-100 p-1" role="radiogroup" aria-label="Configuration by">
            {(["metadata", "parts"] as const).map((m) => (
              <label
                key={m}
                className={cx(
                  "relative rounded-md px-3 py-1.5 text-sm font-medium has-focus-visible:ring-2 has-focus-visible:ring-brand-500",
                  mode === m ? "bg-white text-ink-900 shadow-sm" : "text-ink-600",
                )}
              >
                <input type="radio" name="idp-configuration" value={m} checked={mode === m} onChange={() => setMode(m)} className="absolute inset-0 cursor-pointer opacity-0" />
                {m === "metadata" ? "Metadata XML" : "Sign-on URL and certificate"}
              </label>
            ))}
          </div>
        </fieldset>
        {mode === "metadata" ? (
          <Field id="idp-metadata" label="Metadata XML" hint="Paste the identity provider's SAML 2.0 metadata document." error={errors.metadataXml}>
            <Textarea id="idp-metadata" rows={6} className="font-mono text-xs" value={metadataXml} onChange={(e) => setMetadataXml(e.target.value)} />
          </Field>
        ) : (
          <>
            <Field id="idp-entry" label="Single sign-on URL" error={errors.entryPoint}>
              <Input id="idp-entry" type="url" value={entryPoint} onChange={(e) => setEntryPoint(e.target.value)} />
            </Field>
            <Field id="idp-issuer" label="Issuer (entity ID)" error={errors.idpIssuer}>
              <Input id="idp-issuer" value={idpIssuer} onChange={(e) => setIdpIssuer(e.target.value)} />
            </Field>
            <Field id="idp-cert" label="Signing certificate (PEM)" error={errors.idpCert}>
              <Textarea id="idp-cert" rows={5} className="font-mono text-xs" value={idpCert} onChange={(e) => setIdpCert(e.target.value)} />
            </Field>
          </>
        )}
      </div>
    </FormModal>
  );
}
