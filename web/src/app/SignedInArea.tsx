// Everything behind sign-in: onboarding, account, the admin area and the client area, with the
// redirect rules of SPEC 2 (/ and unmatched paths by tier; no client -> the default client).
import { Route, Switch } from "wouter";
import { storedClientId } from "../state/app";
import { AppShell } from "./AppShell";
import { ClientArea } from "./ClientArea";
import { Gate, TierRedirect } from "./gates";
import { Onboarding, Account, AdminArea } from "./signedInPages";

export default function SignedInArea() {
  return (
    <Switch>
      <Route path="/onboarding/user-details">
        <Onboarding />
      </Route>
      <Route path="/account">
        <AppShell clientId={storedClientId()}>
          <Account />
        </AppShell>
      </Route>
      <Route path="/admin" nest>
        <Gate policy="IdeallyAdmin" clientId={null}>
          <AdminArea />
        </Gate>
      </Route>
      <Route path="/:clientId" nest>
        {(params) => (/^\d+$/.test(params.clientId) ? <ClientArea clientId={Number(params.clientId)} /> : <TierRedirect />)}
      </Route>
      <Route>
        <TierRedirect />
      </Route>
    </Switch>
  );
}
