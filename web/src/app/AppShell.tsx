// The frame of every signed-in page: a sidebar (drawer on phones) with the client's areas, a top
// bar with the client switcher, the notifications bell and the account menu (app version, beta
// flag, logout).
import { Menu, MenuButton, MenuItem, MenuItems } from "@headlessui/react";
import { useSetAtom } from "jotai";
import { Suspense, useEffect, useState, type ReactNode } from "react";
import { Link, useLocation } from "wouter";
import { api, unwrap } from "../api/client";
import { useApi } from "../api/hooks";
import { PageSkeleton, cx } from "../components/ui";
import { Logo } from "../components/Logo";
import { ErrorBoundary } from "../components/ErrorView";
import { moduleOf } from "../lib/history";
import { APP_VERSION, STORAGE } from "../lib/constants";
import { betaEnabledAtom, hasPolicy, tierHome, useBetaEnabled, useMe, usePolicies } from "../state/app";
import { onRealtime } from "../state/realtime";
import { SurveyInProgressModal } from "../components/ProjectLink";
import { toast } from "../components/toast";
import { PROJECT_NOT_FOUND } from "../features/useProject";
import { notificationTarget, type NotificationItem } from "../features/notifications";
import { useMyInvitations } from "../features/invitations";
import { logout } from "../state/session";
import type { CurrentClient } from "../state/client";

type NavItem = { href: string; label: string; icon: ReactNode };

function Icon({ d }: { d: string }) {
  return (
    <svg viewBox="0 0 24 24" className="size-5 shrink-0" fill="none" stroke="currentColor" strokeWidth="1.8" aria-hidden="true">
      <path d={d} strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

const icons = {
  home: "M3.5 10.5 12 4l8.5 6.5V20a1 1 0 0 1-1 1h-5v-6h-5v6h-5a1 1 0 0 1-1-1v-9.5Z",
  team: "M16 19v-1a4 4 0 0 0-4-4H7a4 4 0 0 0-4 4v1M9.5 10a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7ZM21 19v-1a4 4 0 0 0-3-3.9M15.5 3.1a3.5 3.5 0 0 1 0 6.8",
  admin: "M12 3 4 6.5v5c0 4.6 3.4 8.6 8 9.5 4.6-.9 8-4.9 8-9.5v-5L12 3Z",
  account: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8Zm-7 9a7 7 0 0 1 14 0",
};

function navFor(client: CurrentClient | undefined, policies: ReturnType<typeof usePolicies>["data"]): NavItem[] {
  const items: NavItem[] = [];
  if (client) {
    if (client.tier === "Team") items.push({ href: `/${client.id}/home`, label: "Projects", icon: <Icon d={icons.home} /> });
    const area = client.tier === "Team" ? "team" : client.tier === "Org" ? "org" : "enterprise";
    const policy = client.tier === "Team" ? "TeamAdmin" : client.tier === "Org" ? "OrgAdmin" : "EnterpriseAdmin";
    if (hasPolicy(policies, client.id, policy)) items.push({ href: `/${client.id}/manage-${area}`, label: `Manage ${area}`, icon: <Icon d={icons.team} /> });
  }
  if (policies?.isIdeallyAdmin) items.push({ href: "/admin", label: "Admin", icon: <Icon d={icons.admin} /> });
  items.push({ href: "/account", label: "Account", icon: <Icon d={icons.account} /> });
  return items;
}

function ClientSwitcher({ client }: { client?: CurrentClient }) {
  const { data: policies } = usePolicies();
  const [, navigate] = useLocation();
  const clients = [...(policies?.value ?? [])].sort((a, b) => a.clientName.localeCompare(b.clientName));
  return (
    <Menu as="div" className="relative">
      <MenuButton className="flex max-w-56 items-center gap-2 rounded-lg px-2.5 py-1.5 text-sm font-medium text-ink-800 ring-1 ring-ink-200 hover:bg-ink-50">
        <span className="sr-only">Switch client: </span>
        <span className="truncate">{client?.name ?? "Choose a client"}</span>
        {client ? <span className="text-xs text-ink-500">{client.tier}</span> : null}
        <svg viewBox="0 0 20 20" className="size-4 text-ink-400" fill="currentColor" aria-hidden="true">
          <path d="M5.2 7.2a.75.75 0 0 1 1.06 0L10 10.94l3.74-3.74a.75.75 0 1 1 1.06 1.06l-4.27 4.27a.75.75 0 0 1-1.06 0L5.2 8.26a.75.75 0 0 1 0-1.06Z" />
        </svg>
      </MenuButton>
      <MenuItems anchor="bottom start" className="z-40 mt-1 max-h-80 w-64 overflow-auto rounded-xl bg-white p-1 shadow-lg ring-1 ring-ink-200 focus:outline-none">
        {clients.map((c) => (
          <MenuItem key={c.clientId}>
            <button
              type="button"
              // The chosen client's tier landing (SPEC 2), from the root: this menu sits inside the
              // /{clientId} route, where a relative path would nest under the current client.
              onClick={() => navigate(`~${tierHome({ id: c.clientId, tier: c.tier })}`)}
              className="flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100"
            >
              <span className="truncate">{c.clientName}</span>
              <span className="text-xs text-ink-500">{c.tier}</span>
            </button>
          </MenuItem>
        ))}
      </MenuItems>
    </Menu>
  );
}

function NotificationsBell({ clientId }: { clientId: number | null }) {
  const { data, mutate } = useApi(["Notifications/All"], () => api.GET("/api/v1/Notifications/All"));
  const { data: policies } = usePolicies();
  const [, navigate] = useLocation();
  const [inProgress, setInProgress] = useState<{ teamId: number; project: { id: number; statusCode: number } } | null>(null);
  useEffect(() => onRealtime((ev) => ev.channel.startsWith("user-") && void mutate()), [mutate]);
  async function open(n: NotificationItem) {
    if (!n.isRead) await unwrap(api.POST("/api/v1/Notifications/MarkAsRead", { body: { ids: [n.id] } })).catch(() => {});
    void mutate();
    const target = await notificationTarget(n, policies, clientId);
    if (target.kind === "not-found") {
      toast.error(PROJECT_NOT_FOUND);
      return;
    }
    if (target.kind === "in-progress") {
      setInProgress({ teamId: target.teamId, project: target.project });
      return;
    }
    // From the root: the shell sits inside the /{clientId} route, where a bare path is relative.
    navigate(`~${target.href}`);
  }
  async function readAll() {
    await unwrap(api.POST("/api/v1/Notifications/MarkAsRead", { body: { all: true } })).catch(() => {});
    void mutate();
  }
  const unread = data?.unreadCount ?? 0;
  return (
    <Menu as="div" className="relative">
      <MenuButton className="relative rounded-lg p-2 text-ink-600 hover:bg-ink-100">
        <span className="sr-only">{`Notifications${unread ? `, ${unread} unread` : ""}`}</span>
        <Icon d="M6 8a6 6 0 1 1 12 0c0 7 3 8 3 8H3s3-1 3-8Zm4.3 12a2 2 0 0 0 3.4 0" />
        {unread ? (
          <span aria-hidden="true" className="absolute top-1 right-1 flex size-4 items-center justify-center rounded-full bg-rose-600 text-[10px] font-bold text-white">
            {unread > 9 ? "9+" : unread}
          </span>
        ) : null}
      </MenuButton>
      <MenuItems anchor="bottom end" className="z-40 mt-1 w-80 rounded-xl bg-white p-1 shadow-lg ring-1 ring-ink-200 focus:outline-none">
        <div className="flex items-center justify-between px-3 py-2">
          <span className="text-sm font-semibold">Notifications</span>
          {unread ? (
            // A menu's actions are its menu items (axe: aria-required-children).
            <MenuItem>
              <button type="button" className="text-xs font-medium text-brand-700 hover:underline data-[focus]:underline" onClick={() => void readAll()}>
                Mark all as read
              </button>
            </MenuItem>
          ) : null}
        </div>
        <div className="max-h-96 overflow-auto">
          {data?.value.length ? (
            data.value.slice(0, 30).map((n) => (
              <MenuItem key={n.id}>
                <button type="button" onClick={() => void open(n)} className="block w-full rounded-lg px-3 py-2 text-left data-[focus]:bg-ink-100">
                  <span className={cx("block text-sm", n.isRead ? "text-ink-600" : "font-semibold text-ink-900")}>{n.title}</span>
                  {n.body ? <span className="block truncate text-xs text-ink-500">{n.body}</span> : null}
                  <span className="block text-[11px] text-ink-500">{new Date(n.createdAt).toLocaleString()}</span>
                </button>
              </MenuItem>
            ))
          ) : (
            <p className="px-3 py-6 text-center text-sm text-ink-500">No notifications yet.</p>
          )}
        </div>
      </MenuItems>
      {inProgress ? <SurveyInProgressModal open onClose={() => setInProgress(null)} teamId={inProgress.teamId} project={inProgress.project} /> : null}
    </Menu>
  );
}

function AccountMenu() {
  const { data: me } = useMe();
  const beta = useBetaEnabled();
  const setBeta = useSetAtom(betaEnabledAtom);
  const [, navigate] = useLocation();
  function toggleBeta() {
    localStorage.setItem(STORAGE.betaEnabled, String(!beta));
    setBeta(!beta);
  }
  const { data: invitations } = useMyInvitations();
  const waiting = invitations?.value.length ?? 0;
  const initials = ((me?.firstName?.[0] ?? "") + (me?.lastName?.[0] ?? "")).toUpperCase() || (me?.email[0] ?? "?").toUpperCase();
  return (
    <Menu as="div" className="relative">
      <MenuButton className="relative flex size-9 items-center justify-center rounded-full bg-brand-100 text-sm font-semibold text-brand-800 hover:ring-2 hover:ring-brand-200">
        <span className="sr-only">Account menu{waiting ? ` (${waiting} invitation${waiting === 1 ? "" : "s"} waiting)` : ""}</span>
        <span aria-hidden="true">{initials}</span>
        {waiting ? <span aria-hidden="true" className="absolute -top-0.5 -right-0.5 size-2.5 rounded-full bg-rose-500 ring-2 ring-white" /> : null}
      </MenuButton>
      <MenuItems anchor="bottom end" className="z-40 mt-1 w-64 rounded-xl bg-white p-1 shadow-lg ring-1 ring-ink-200 focus:outline-none">
        <div className="px-3 py-2">
          <p className="truncate text-sm font-semibold">{[me?.firstName, me?.lastName].filter(Boolean).join(" ") || me?.email}</p>
          <p className="truncate text-xs text-ink-500">{me?.email}</p>
        </div>
        <MenuItem>
          <button type="button" onClick={() => navigate("~/account")} className="block w-full rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100">
            Account profile
          </button>
        </MenuItem>
        {waiting ? (
          <MenuItem>
            <button type="button" onClick={() => navigate("~/account")} className="flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100">
              Invitations <span className="rounded-full bg-rose-100 px-2 text-xs font-semibold text-rose-800">{waiting}</span>
            </button>
          </MenuItem>
        ) : null}
        <MenuItem>
          <button type="button" onClick={() => navigate("~/auth/change-password")} className="block w-full rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100">
            Change password
          </button>
        </MenuItem>
        <MenuItem>
          <button type="button" onClick={toggleBeta} className="flex w-full items-center justify-between rounded-lg px-3 py-2 text-left text-sm data-[focus]:bg-ink-100">
            Beta features <span className={cx("text-xs font-medium", beta ? "text-emerald-700" : "text-ink-500")}>{beta ? "On" : "Off"}</span>
          </button>
        </MenuItem>
        <MenuItem>
          <button type="button" onClick={() => void logout()} className="block w-full rounded-lg px-3 py-2 text-left text-sm text-rose-700 data-[focus]:bg-rose-50">
            Log out
          </button>
        </MenuItem>
        <p className="px-3 pt-1 pb-2 text-[11px] text-ink-400">Ideally {APP_VERSION}</p>
      </MenuItems>
    </Menu>
  );
}

export function AppShell({ clientId, client, children }: { clientId: number | null; client?: CurrentClient; children: ReactNode }) {
  const { data: policies } = usePolicies();
  const [path] = useLocation();
  const [drawer, setDrawer] = useState(false);
  useEffect(() => setDrawer(false), [path]);
  const items = navFor(client, policies);
  const here = location.pathname;
  const nav = (
    <nav aria-label="Main" className="flex flex-col gap-1 p-3">
      {items.map((i) => {
        const active = here === i.href || here.startsWith(`${i.href}/`);
        return (
          <Link
            key={i.href}
            href={`~${i.href}`}
            aria-current={active ? "page" : undefined}
            className={cx("flex items-center gap-3 rounded-lg px-3 py-2 text-sm font-medium", active ? "bg-brand-50 text-brand-800" : "text-ink-700 hover:bg-ink-100")}
          >
            {i.icon}
            {i.label}
          </Link>
        );
      })}
    </nav>
  );
  return (
    <div className="min-h-screen lg:pl-60" data-client-id={clientId ?? undefined}>
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:top-2 focus:left-2 focus:z-50 focus:rounded-lg focus:bg-white focus:px-3 focus:py-2 focus:text-sm focus:font-medium focus:text-brand-800 focus:shadow-lg"
      >
        Skip to content
      </a>
      <aside className="fixed inset-y-0 left-0 z-30 hidden w-60 flex-col border-r border-ink-200 bg-white lg:flex">
        <div className="flex h-16 items-center px-5">
          <Logo />
        </div>
        {nav}
      </aside>
      {drawer ? (
        <div className="fixed inset-0 z-40 lg:hidden">
          <button type="button" className="absolute inset-0 bg-ink-900/40" aria-label="Close menu" onClick={() => setDrawer(false)} />
          <aside className="absolute inset-y-0 left-0 w-64 bg-white shadow-xl">
            <div className="flex h-16 items-center px-5">
              <Logo />
            </div>
            {nav}
          </aside>
        </div>
      ) : null}
      <header className="sticky top-0 z-20 flex h-16 items-center gap-3 border-b border-ink-200 bg-white/90 px-4 backdrop-blur sm:px-6">
        <button type="button" className="rounded-lg p-2 text-ink-600 hover:bg-ink-100 lg:hidden" aria-label="Open menu" onClick={() => setDrawer(true)}>
          <Icon d="M4 7h16M4 12h16M4 17h16" />
        </button>
        <ClientSwitcher client={client} />
        <div className="ml-auto flex items-center gap-2">
          <NotificationsBell clientId={clientId} />
          <AccountMenu />
        </div>
      </header>
      <main id="main" tabIndex={-1} className="mx-auto max-w-7xl px-4 py-6 sm:px-6 lg:px-8 focus:outline-none">
        {/* Each module has its own error view; moving to another module clears it. */}
        <ErrorBoundary key={moduleOf(path)}>
          {/* A page whose chunk is still loading keeps the shell on screen. */}
          <Suspense fallback={<PageSkeleton />}>{children}</Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}
