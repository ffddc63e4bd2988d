// /auth/*: the signed-out pages; empty and unknown paths go to /auth/login (SPEC 2).
import { lazy } from "react";
import { Redirect, Route, Switch } from "wouter";
import Login from "./Login";
import { AcceptInvite, ChangePassword, ForgotPassword, ResetPassword } from "./Password";
import { SamlError, SamlLogin } from "./Sso";

const SignUp = lazy(() => import("./SignUp"));

export default function AuthArea() {
  return (
    <Switch>
      <Route path="/login" component={Login} />
      <Route path="/sign-up" component={SignUp} />
      <Route path="/accept-invite" component={AcceptInvite} />
      <Route path="/forgot-password" component={ForgotPassword} />
      <Route path="/reset-password" component={ResetPassword} />
      <Route path="/change-password" component={ChangePassword} />
      <Route path="/saml/login" component={SamlLogin} />
      <Route path="/saml/error" component={SamlError} />
      <Route>
        <Redirect to="/login" replace />
      </Route>
    </Switch>
  );
}
