-- A native app's sign-in (the CLI's `login --sso`) ends at its own loopback address (RFC 8252 7.3)
-- instead of the web app's /auth/saml/login: the address travels with the AuthnRequest.
alter table saml_requests add column redirect_uri text
  check (redirect_uri is null or redirect_uri ~ '^http://(127\.0\.0\.1|\[::1\]):[0-9]{1,5}/[A-Za-z0-9/_-]*$');
