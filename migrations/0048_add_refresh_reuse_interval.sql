-- 0048: a reuse interval for refresh-token rotation (docs/decisions/0126). A token rotated by a
-- refresh records the token issued in its place (replaced_by); presented again within 30 seconds
-- while that successor is unused, it is taken as an answer the client never received (a page that
-- navigated away mid-refresh) rather than a stolen copy, once (grace_used_at): the successor is
-- retired and a new token issued. Any other reuse still ends the whole session.
alter table auth_refresh_tokens
  add column replaced_by text,
  add column grace_used_at timestamptz(3);
