-- Events the web app reports: errors from its error view and usage events such as logout
-- (GET /Logger, SPEC 7 "Other"). Not tenant data: written by the server for whoever reported.
create table client_events (
  id bigint generated always as identity primary key,
  user_id int references users (id) on delete set null,
  event_id text not null check (length(event_id) between 1 and 100),
  url text check (length(url) <= 2000),
  message text check (length(message) <= 2000),
  trace_id text not null,
  ip text,
  user_agent text check (length(user_agent) <= 500),
  created_at timestamptz not null default now()
);
create index client_events_recent on client_events (created_at desc);
create index client_events_by_ip on client_events (ip, created_at desc);
