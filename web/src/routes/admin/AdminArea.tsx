// /admin (IdeallyAdmin only; the gate is in SignedInArea): SPEC 2's admin pages behind one
// sub-navigation, plus the command runner. The area is one lazily loaded chunk.
import type { ReactNode } from "react";
import { Link, Redirect, Route, Switch, useLocation } from "wouter";
import { AppShell } from "../../app/AppShell";
import { cx } from "../../components/ui";
import { storedClientId } from "../../state/app";
import AiConversations, { AiConversationDetail } from "./AiConversations";
import Approvals from "./Approvals";
import ClientCredits from "./ClientCredits";
import Clients from "./Clients";
import Commands from "./Commands";
import EmailSummaries from "./EmailSummaries";
import Features from "./Features";
import Notifications from "./Notifications";
import { EditPrompt, Prompts } from "./Prompts";
import ProjectGroups, { ProjectGroupDetail } from "./ProjectGroups";
import Projects from "./Projects";
import ProjectSummaries from "./ProjectSummaries";
import Surveys from "./Surveys";
import Translations from "./Translations";
import Users from "./Users";

export const ADMIN_NAV: { path: string; label: string }[] = [
  { path: "users", label: "Users" },
  { path: "approvals", label: "Approvals" },
  { path: "clients", label: "Clients" },
  { path: "projects", label: "Projects" },
  { path: "project-groups", label: "Project groups" },
  { path: "surveys", label: "Surveys" },
  { path: "email-summaries", label: "Email summaries" },
  { path: "prompts", label: "Prompts" },
  { path: "project-summaries", label: "Project summaries" },
  { path: "ai-conversations", label: "AI conversations" },
  { path: "features", label: "Features" },
  { path: "notifications", label: "Notifications" },
  { path: "translations", label: "Translations" },
  { path: "commands", label: "Commands" },
];

function AdminNav() {
  const [path] = useLocation();
  const section = path.split("/")[1] ?? "";
  const current = section === "edit-prompt" ? "prompts" : section;
  return (
    // A row of links (scrolling on phones, wrapping on tablets and laptops) above the page, and a
    // column beside it only on wide screens, so the tables keep their width.
    <nav aria-label="Admin" className="-mx-4 mb-6 overflow-x-auto px-4 sm:mx-0 sm:overflow-visible sm:px-0 2xl:mb-0 2xl:w-48 2xl:shrink-0">
      <ul className="flex gap-1 sm:flex-wrap 2xl:flex-col">
        {ADMIN_NAV.map((n) => (
          <li key={n.path}>
            <Link
              href={`/${n.path}`}
              aria-current={current === n.path ? "page" : undefined}
              className={cx("block rounded-lg px-3 py-2 text-sm font-medium whitespace-nowrap", current === n.path ? "bg-brand-50 text-brand-800" : "text-ink-700 hover:bg-ink-100")}
            >
              {n.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function Layout({ children }: { children: ReactNode }) {
  return (
    <div className="2xl:flex 2xl:gap-8">
      <AdminNav />
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}

export default function AdminArea() {
  return (
    <AppShell clientId={storedClientId()}>
      <Layout>
        <Switch>
          <Route path="/users">
            <Users />
          </Route>
          <Route path="/approvals">
            <Approvals />
          </Route>
          <Route path="/clients/:clientId/credits">{(p) => <ClientCredits clientId={Number(p.clientId)} />}</Route>
          <Route path="/clients">
            <Clients />
          </Route>
          <Route path="/projects">
            <Projects />
          </Route>
          <Route path="/project-groups/:projectGroupId">{(p) => <ProjectGroupDetail id={Number(p.projectGroupId)} />}</Route>
          <Route path="/project-groups">
            <ProjectGroups />
          </Route>
          <Route path="/email-summaries">
            <EmailSummaries />
          </Route>
          <Route path="/prompts/:promptId?">{(p) => <Prompts promptId={p.promptId ? Number(p.promptId) : null} />}</Route>
          <Route path="/edit-prompt/:promptVersionId">{(p) => <EditPrompt versionId={Number(p.promptVersionId)} />}</Route>
          <Route path="/surveys">
            <Surveys />
          </Route>
          <Route path="/features">
            <Features />
          </Route>
          <Route path="/project-summaries">
            <ProjectSummaries />
          </Route>
          <Route path="/ai-conversations/:conversationId">{(p) => <AiConversationDetail id={Number(p.conversationId)} />}</Route>
          <Route path="/ai-conversations">
            <AiConversations />
          </Route>
          <Route path="/notifications">
            <Notifications />
          </Route>
          <Route path="/translations">
            <Translations />
          </Route>
          <Route path="/commands">
            <Commands />
          </Route>
          <Route>
            <Redirect to="/users" replace />
          </Route>
        </Switch>
      </Layout>
    </AppShell>
  );
}
