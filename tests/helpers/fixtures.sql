-- Test fixtures: a two-tenant world with every role, and at least two rows in every table, so a
-- registry walk never passes on an empty table. Runs after the migrations and reference-data.sql
-- on an empty database (tests/helpers/db.ts builds a template database with it).
--
-- Tenants:
--   1001 Acme Enterprise (Enterprise) -> 1002 Acme Org (Org) -> 1003 Acme Team A (Team)
--                                                            -> 1004 Acme Team B (Team)
--   2001 Globex (Team, no parent)
--   3001 Initech Enterprise -> 3002 Initech Org: an empty tree, only so that enterprises and orgs
--   have two rows each. No users, no data.
-- Users (password for all: Password123!):
--   9001 staff@ideally.test    staff, user role 3 SuperAdmin
--   9002 ops@ideally.test      staff, user role 2 Staff (not super admin)
--   9003 admin@acme.test       Admin of 1003 and of 1001 (inherits down to 1002, 1003, 1004)
--   9004 user@acme.test        User of 1003
--   9005 viewer@acme.test      Viewer of 1003
--   9006 admin@globex.test     Admin of 2001
-- Cross-tenant on purpose: project 1001 (Acme Team A) is shared with 9006 (admin@globex), the one
-- project share with a user; project 2002's share is to an e-mail without an account.
-- Client-scoped tables have rows for both 1003 and 2001. Ids: 1xxx Acme, 2xxx Globex, 3xxx other,
-- 9xxx users; sequences are moved past them at the end.

-- ---- tenants and people -----------------------------------------------------------------------

insert into clients (id, name, tier, parent_id, hs_company_id, industry, domain, overdraft_limit) values
  (1001, 'Acme Enterprise', 'Enterprise', null, 'hs-1001', 'fmcg', 'acme.test', 0),
  (1002, 'Acme Org', 'Org', 1001, null, 'fmcg', null, 0),
  (1003, 'Acme Team A', 'Team', 1002, null, 'fmcg', null, 100),
  (1004, 'Acme Team B', 'Team', 1002, null, 'fmcg', null, 0),
  (2001, 'Globex', 'Team', null, 'hs-2001', 'telecommunications', 'globex.test', 0),
  (3001, 'Initech Enterprise', 'Enterprise', null, null, 'tech', null, 0),
  (3002, 'Initech Org', 'Org', 3001, null, 'tech', null, 0),
  -- Initech's tree holds the users whose roles differ between a team, its org and its enterprise
  -- (role inheritance: the most privileged applicable membership wins, docs/decisions.md).
  (3003, 'Initech Team', 'Team', 3002, null, 'tech', null, 0);

insert into enterprises (id, client_id, sso_required, allowed_email_domains) values
  (1001, 1001, false, '["acme.test"]'),
  (3001, 3001, false, '[]');

insert into orgs (id, client_id, sso_required, allowed_email_domains) values
  (1002, 1002, false, '["acme.test"]'),
  (3002, 3002, true, '[]');

insert into teams (id, client_id, auto_project_watch, default_region_id) values
  (1003, 1003, true, 1),
  (1004, 1004, false, 2),
  (2001, 2001, false, 15),
  (3003, 3003, false, 1);

insert into linked_clients (id, client_id, hs_company_id, name, industry, domain, properties, synced_at) values
  (1001, 1003, 'hs-1003', 'Acme Foods Ltd', 'fmcg', 'acme.test', '{"tier": "gold"}', '2025-01-10 08:00+00'),
  (2001, 2001, 'hs-2001', 'Globex Telecom', 'telecommunications', 'globex.test', '{}', '2025-01-10 08:00+00');

-- Every fixture login's password is Password123!, hashed at the test cost (argon2id m=1024, t=1:
-- PASSWORD_HASH_COST=test, api/src/config.ts); verifying reads the cost from the hash, so a sign-in
-- in a test takes milliseconds where production's m=65536, t=2 takes most of a second.
insert into users (id, email, first_name, last_name, password_hash, is_staff, role_id, default_client_id, onboarded_at, last_login_at) values
  (9001, 'staff@ideally.test', 'Sam', 'Staff', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', true, 3, null, '2025-01-01 00:00+00', null),
  (9002, 'ops@ideally.test', 'Olive', 'Ops', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', true, 2, null, '2025-01-01 00:00+00', null),
  (9003, 'admin@acme.test', 'Ada', 'Admin', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 1003, '2025-01-01 00:00+00', null),
  (9004, 'user@acme.test', 'Uma', 'User', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 1003, '2025-01-01 00:00+00', null),
  (9005, 'viewer@acme.test', 'Vic', 'Viewer', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 1003, '2025-01-01 00:00+00', null),
  (9006, 'admin@globex.test', 'Gil', 'Globex', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 2001, '2025-01-01 00:00+00', null),
  (9007, 'mixed@initech.test', 'Mia', 'Mixed', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 3003, '2025-01-01 00:00+00', null),
  (9008, 'lifted@initech.test', 'Lee', 'Lifted', '$argon2id$v=19$m=1024,t=1,p=1$sR3gLtxMjBaFjFg6wMc5pmtWhHwZF5gJ+LQUZPrG1OY$3S2EV8ufT+2MuAvkO1YifUYxqB/I8cfBVhX9vJSED20', false, 1, 3003, '2025-01-01 00:00+00', null);

insert into user_and_clients (id, user_id, client_id, role_id) values
  (1001, 9003, 1003, 1),
  (1002, 9003, 1001, 1),
  (1003, 9004, 1003, 2),
  (1004, 9005, 1003, 3),
  (2001, 9006, 2001, 1),
  -- Mia: Admin of Initech Team, Viewer of Initech Org, User of Initech Enterprise.
  --   Effective: Team Admin (direct beats the inherited User), Org User (inherited beats the direct
  --   Viewer), Enterprise User.
  (3001, 9007, 3003, 1),
  (3002, 9007, 3002, 3),
  (3003, 9007, 3001, 2),
  -- Lee: Viewer of Initech Team, Admin of Initech Enterprise. Effective: Admin everywhere in the tree.
  (3004, 9008, 3003, 3),
  (3005, 9008, 3001, 1);

-- Email domains the clients own (as ValidateDomainRecord records them): Acme's enterprise owns
-- acme.test, so AcmeSSO's claim on it (Team A is beneath the enterprise) is verified; Globex owns
-- globex.test.
insert into verified_email_domains (domain, client_id, method) values
  ('acme.test', 1001, 'dns'),
  ('globex.test', 2001, 'dns');

insert into cognito_idps (id, client_id, provider_name, provider_type, metadata_url, email_domains, is_enabled) values
  (1001, 1003, 'AcmeSSO', 'SAML', 'https://sso.acme.test/metadata.xml', '["acme.test"]', true),
  (2001, 2001, 'GlobexSSO', 'SAML', 'https://sso.globex.test/metadata.xml', '["globex.test"]', false);

insert into cognito_users (id, user_id, cognito_idp_id, username, status, external_subject) values
  (9001, 9001, null, 'staff@ideally.test', 'CONFIRMED', null),
  (9002, 9002, null, 'ops@ideally.test', 'CONFIRMED', null),
  (9003, 9003, null, 'admin@acme.test', 'CONFIRMED', null),
  (9004, 9004, null, 'user@acme.test', 'CONFIRMED', null),
  (9005, 9005, null, 'viewer@acme.test', 'CONFIRMED', null),
  (9006, 9006, null, 'admin@globex.test', 'CONFIRMED', null),
  (9013, 9003, 1001, 'AcmeSSO_admin@acme.test', 'EXTERNAL_PROVIDER', 'admin@acme.test');

insert into client_features (id, client_id, feature_flag_id, is_enabled) values
  (1001, 1003, 3, true),
  (2001, 2001, 2, true);

-- ---- project groups (projects reference their versions) ---------------------------------------

insert into project_groups (id, client_id, name, description, created_by_user_id) values
  (1001, 1003, 'Snacking U&A', 'Usage and attitude study of snacking', 9001),
  (2001, 2001, 'Mobile plans U&A', 'Usage and attitude study of mobile plans', 9001);

insert into project_group_versions (id, client_id, project_group_id, version_number, name) values
  (1001, 1003, 1001, 1, 'First wave'),
  (2001, 2001, 2001, 1, 'First wave');

update project_groups set active_version_id = id where id in (1001, 2001);

-- ---- projects ---------------------------------------------------------------------------------

insert into projects (id, client_id, project_name, project_type_id, status_code, framework_id, category_id, product_type,
                      launch_date, schedule_start_date, schedule_frequency_weeks, waves_required, is_branded, brand_name,
                      research_note, project_group_version_id, owner_user_id, created_by_user_id, incidence_estimate,
                      submitted_at, approved_at, completed_at, created_at, deleted_at) values
  (1001, 1003, 'Snack bar ideas', 1, 900, 1000, 101, 'fmcg', null, '2025-03-03', null, false, true, 'Acme',
   'Two bar concepts for the winter range.', 1001, 9003, 9003, 0.8, '2025-02-24 10:00+00', '2025-02-25 10:00+00', '2025-03-10 10:00+00', '2025-02-20 10:00+00', null),
  (1002, 1003, 'Oat bar launch tracking', 4, 300, 4000, 101, 'fmcg', '2025-02-03', '2025-02-10', 1, true, true, 'Acme',
   null, null, 9003, 9003, null, '2025-02-05 10:00+00', '2025-02-06 10:00+00', null, '2025-02-01 10:00+00', null),
  (1003, 1003, 'Old message test', 2, 0, 2000, null, 'fmcg', null, null, null, false, false, null,
   null, null, 9004, 9004, null, null, null, null, '2025-01-15 10:00+00', '2025-01-20 10:00+00'),
  (1004, 1004, 'Team B concept', 1, 0, 1000, 102, 'fmcg', null, null, null, false, false, null,
   null, null, 9003, 9003, null, null, null, null, '2025-02-15 10:00+00', null),
  (2001, 2001, 'Mobile plan ideas', 1, 900, 1010, 701, 'telecommunications', null, '2025-04-07', null, false, true, 'Globex',
   'Price test of two plans.', 2001, 9006, 9006, 0.6, '2025-04-01 10:00+00', '2025-04-02 10:00+00', '2025-04-14 10:00+00', '2025-03-30 10:00+00', null),
  (2002, 2001, 'Customer questions', 3, 0, 3000, null, 'telecommunications', null, null, null, false, false, null,
   null, null, 9006, 9006, null, null, null, null, '2025-04-10 10:00+00', null),
  (2003, 2001, 'Old campaign', 2, 0, 2000, null, 'telecommunications', null, null, null, false, false, null,
   null, null, 9006, 9006, null, null, null, null, '2025-01-05 10:00+00', '2025-01-06 10:00+00'),
  (2004, 2001, 'Handset launch tracking', 4, 800, 4000, 701, 'telecommunications', '2025-01-06', '2025-01-13', 1, true, true, 'Globex',
   null, null, 9006, 9006, 0.5, '2025-01-08 10:00+00', '2025-01-09 10:00+00', null, '2025-01-02 10:00+00', null);

insert into projects_regions (id, client_id, project_id, region_id, sample_size, is_customer_panel) values
  (1001, 1003, 1001, 1, 200, false),
  (1002, 1003, 1001, 2, 150, false),
  (1003, 1003, 1002, 1, 100, false),
  (1004, 1004, 1004, 1, 200, false),
  (2001, 2001, 2001, 15, 300, true),
  (2002, 2001, 2002, 17, 200, false),
  (2003, 2001, 2004, 59, 150, false);

insert into test_options (id, client_id, project_id, concept_text, concept_description, file, sort_order, deleted_at) values
  (1001, 1003, 1001, 'Protein crunch bar', 'A high-protein bar with a crunchy coating.', '{"key": "clients/1003/bar1.png", "fileType": "image/png", "fileName": "bar1.png"}', 1, null),
  (1002, 1003, 1001, 'Berry oat bar', 'A soft oat bar with real berries.', null, 2, null),
  (1003, 1003, 1002, 'Oat bar', 'The launched oat bar.', null, 1, null),
  (1004, 1003, 1003, 'Message A', 'Snack smarter.', null, 1, null),
  (1005, 1003, 1001, 'Discarded bar', null, null, 3, '2025-02-21 10:00+00'),
  (2001, 2001, 2001, 'Unlimited plan', 'Unlimited data for a flat monthly price.', null, 1, null),
  (2002, 2001, 2001, 'Family plan', 'Four lines sharing one data pool.', null, 2, null),
  (2003, 2001, 2004, 'Handset X', 'The launched handset.', null, 1, null),
  (2004, 2001, 2001, 'Discarded plan', null, null, 3, '2025-03-31 10:00+00');

insert into questions (id, client_id, project_id, question_text, question_title, question_type_id, market_reach_enabled,
                       created_by_user_id, deleted_at) values
  (1001, 1003, 1001, 'Overall, how much do you like this?', 'Likability', 1, false, 9003, null),
  (1002, 1003, 1001, 'How much would you want this?', 'Desire', 1, false, 9003, null),
  (1003, 1003, 1001, 'What, if anything, do you like most about this?', 'What you like most', 3, false, 9003, null),
  (1004, 1003, 1001, 'Do you buy snack bars?', 'Snack bar buyer', 1, false, 9003, null),
  (1005, 1003, null, 'How often do you snack between meals?', 'Snacking frequency', 1, false, 9003, null),
  (1006, 1003, 1001, 'A question that was removed', null, 3, false, 9003, '2025-02-22 10:00+00'),
  (2001, 2001, 2001, 'Overall, how much do you like this?', 'Likability', 1, false, 9006, null),
  (2002, 2001, 2001, 'At what price would you consider this product to be a bargain - a great buy for the money?', 'Bargain', 3, false, 9006, null),
  (2003, 2001, 2001, 'What, if anything, do you like most about this?', 'What you like most', 3, false, 9006, null),
  (2004, 2001, 2001, 'Do you have a mobile phone plan?', 'Plan holder', 1, false, 9006, null),
  (2005, 2001, null, 'What kind of plan do you have?', 'Plan type', 1, false, 9006, null),
  (2006, 2001, 2001, 'A question that was removed', null, 3, false, 9006, '2025-03-31 10:00+00');

insert into question_options (id, client_id, project_id, question_id, option_text, sort_order, exclusive, is_not_sure, standard_answer_value) values
  (1001, 1003, 1001, 1001, 'Like it a lot', 1, false, false, 1),
  (1002, 1003, 1001, 1001, 'Like it a little', 2, false, false, 2),
  (1003, 1003, 1001, 1001, 'Dislike it a little', 3, false, false, 3),
  (1004, 1003, 1001, 1001, 'Dislike it a lot', 4, false, false, 4),
  (1005, 1003, 1001, 1002, 'I would really want it', 1, false, false, 1),
  (1006, 1003, 1001, 1002, 'I would quite like it', 2, false, false, 2),
  (1007, 1003, 1001, 1002, 'I would not really want it', 3, false, false, 3),
  (1008, 1003, 1001, 1002, 'I would not want it at all', 4, false, false, 4),
  (1009, 1003, 1001, 1004, 'Yes', 1, false, false, null),
  (1010, 1003, 1001, 1004, 'No', 2, false, false, null),
  (1011, 1003, null, 1005, 'Every day', 1, false, false, null),
  (1012, 1003, null, 1005, 'A few times a week', 2, false, false, null),
  (2001, 2001, 2001, 2001, 'Like it a lot', 1, false, false, 1),
  (2002, 2001, 2001, 2001, 'Like it a little', 2, false, false, 2),
  (2003, 2001, 2001, 2001, 'Dislike it a little', 3, false, false, 3),
  (2004, 2001, 2001, 2001, 'Dislike it a lot', 4, false, false, 4),
  (2005, 2001, 2001, 2004, 'Yes', 1, false, false, null),
  (2006, 2001, 2001, 2004, 'No', 2, false, false, null),
  (2007, 2001, null, 2005, 'Monthly plan', 1, false, false, null),
  (2008, 2001, null, 2005, 'Prepaid', 2, false, false, null);

insert into question_templates (id, client_id, question_id, name, description, question_position_id, created_by_user_id, deleted_at) values
  (1001, 1003, 1005, 'Snacking frequency', 'Screener for snackers', 1, 9003, null),
  (1002, 1003, 1005, 'Old snacking template', null, 6, 9003, '2025-02-01 10:00+00'),
  (2001, 2001, 2005, 'Plan type', null, 6, 9006, null),
  (2002, 2001, 2005, 'Old plan template', null, 6, 9006, '2025-03-01 10:00+00');

insert into project_questions (id, client_id, project_id, question_id, standard_question_id, question_position_id, sort_order,
                               test_option_id, routing, deleted_at) values
  (1001, 1003, 1001, 1004, null, 1, 1, null, null, null),
  (1002, 1003, 1001, 1001, 5, 5, 1, null, null, null),
  (1003, 1003, 1001, 1002, 1, 5, 2, null, null, null),
  (1004, 1003, 1001, 1003, 7, 3, 1, null, '{"routingConditions": [{"projectQuestionId": 1002, "questionOptionIds": [1001, 1002]}]}', null),
  (1005, 1003, 1001, 1006, null, 6, 1, 1001, null, '2025-02-22 10:00+00'),
  (2001, 2001, 2001, 2004, null, 1, 1, null, null, null),
  (2002, 2001, 2001, 2001, 5, 5, 1, null, null, null),
  (2003, 2001, 2001, 2002, 20, 5, 2, null, null, null),
  (2004, 2001, 2001, 2003, 7, 3, 1, null, null, null),
  (2005, 2001, 2001, 2006, null, 6, 1, null, null, '2025-03-31 10:00+00');

insert into project_objectives (id, client_id, project_id, summary, created_by_user_id) values
  (1001, 1003, 1001, 'Summarize the overall performance and highlight any significant audience skews in the results.', 9003),
  (1002, 1003, 1001, 'Which bar should we launch first?', 9003),
  (2001, 2001, 2001, 'Which plan is priced right?', 9006),
  (2002, 2001, 2004, 'Summarize the overall performance and highlight any significant audience skews in the results.', 9006);

update projects set active_project_objective_id = 1002 where id = 1001;
update projects set active_project_objective_id = 2001 where id = 2001;

insert into targets (id, client_id, project_id, region_id, question_id, system_question_option_id, question_option_id, quota_percent) values
  (1001, 1003, 1001, 1, null, 5100002, null, 30),
  (1002, 1003, 1001, null, 1004, null, 1009, null),
  (2001, 2001, 2001, 15, null, 4500002, null, 50),
  (2002, 2001, 2001, null, 2004, null, 2005, null);

-- Crossed quota cells (record 0128): gender x age band, one crossing in each tenant, on the two
-- deleted drafts (no test submits or retargets them, so these rows change no other test's design).
insert into crossed_quota_cells (id, client_id, project_id, region_id, first_option_id, second_option_id, quota_percent) values
  (1001, 1003, 1003, 1, 4500001, 5100001, 50),
  (1002, 1003, 1003, 1, 4500002, 5100001, 50),
  (2001, 2001, 2003, 17, 4500001, 5100002, 60),
  (2002, 2001, 2003, 17, 4500002, 5100002, 40);

insert into link_invites (id, client_id, identifier, invite_type, project_id, email, role_id, invited_by_user_id, expires_at,
                          accepted_at, accepted_by_user_id) values
  (1001, 1003, '00000000-0000-4000-8000-000000001001', 'TeamInvite', null, 'newbie@acme.test', 2, 9003, '2099-01-01 00:00+00', null, null),
  (1002, 1003, '00000000-0000-4000-8000-000000001002', 'ProjectShare', 1001, 'admin@globex.test', null, 9003, null, '2025-03-11 10:00+00', 9006),
  (2001, 2001, '00000000-0000-4000-8000-000000002001', 'Demo', 2001, null, null, 9006, null, null, null);

insert into project_shares (id, client_id, project_id, user_id, email, shared_by_user_id, link_invite_id, accepted_at) values
  (1001, 1003, 1001, 9006, 'admin@globex.test', 9003, 1002, '2025-03-11 10:00+00'),
  (2001, 2001, 2002, null, 'partner@example.test', 9006, null, null);

insert into project_watchers (id, client_id, project_id, user_id) values
  (1001, 1003, 1001, 9003),
  (1002, 1003, 1001, 9004),
  (2001, 2001, 2001, 9006);

insert into project_price_sensitivities (id, client_id, project_id, test_option_id, currency_code, min_price, max_price) values
  (1001, 1003, 1001, 1001, 'NZD', 1.00, 10.00),
  (2001, 2001, 2001, null, 'USD', 10.00, 120.00);

insert into project_market_reach (id, client_id, project_id, reach_depth, max_combination_size) values
  (1001, 1003, 1001, 1, 2),
  (2001, 2001, 2001, 1, 2);

insert into project_market_reach_options (id, client_id, project_market_reach_id, test_option_id) values
  (1001, 1003, 1001, 1001),
  (1002, 1003, 1001, 1002),
  (2001, 2001, 2001, 2001),
  (2002, 2001, 2001, 2002);

insert into project_group_questions (id, client_id, project_group_id, project_group_version_id, question_id, question_position_id,
                                     title, sort_order) values
  (1001, 1003, 1001, 1001, 1004, 9, 'Snack bar buyers', 1),
  (1002, 1003, 1001, 1001, 1005, 10, 'Snacking occasions', 2),
  (2001, 2001, 2001, 2001, 2004, 9, 'Plan holders', 1),
  (2002, 2001, 2001, 2001, 2005, 12, 'Plan type', 2);

insert into project_group_segments (id, client_id, project_group_version_id, name, description, is_category_segment, definition, color, sort_order) values
  (1001, 1003, 1001, 'Health seekers', 'Choose snacks for nutrition', false, '{"rules": [{"questionOptionIds": [1009]}]}', '#2e7d32', 1),
  (1002, 1003, 1001, 'Snack bar buyers', null, true, '{}', null, 2),
  (2001, 2001, 2001, 'Heavy data users', null, false, '{}', '#1565c0', 1),
  (2002, 2001, 2001, 'Plan holders', null, true, '{}', null, 2);

insert into project_group_tags (id, client_id, project_group_id, project_id, name) values
  (1001, 1003, 1001, 1001, 'Wave 1'),
  (1002, 1003, 1001, 1002, 'Tracking'),
  (2001, 2001, 2001, 2001, 'Pricing'),
  (2002, 2001, 2001, 2004, 'Tracking');

-- ---- fielding ---------------------------------------------------------------------------------

insert into survey_runs (id, client_id, region_id, survey_status_id, sample_provider_id, schedule_date, target_completes, survey_link,
                         is_simulated, launched_at, closed_at, processed_at) values
  (1001, 1003, 1, 90, 1, '2025-03-03', 200, '00000000-0000-4000-9000-000000001001', true, '2025-03-03 09:00+00', '2025-03-07 09:00+00', '2025-03-08 09:00+00'),
  (1002, 1003, 2, 90, 1, '2025-03-03', 150, '00000000-0000-4000-9000-000000001002', true, '2025-03-03 09:00+00', '2025-03-07 09:00+00', '2025-03-08 09:00+00'),
  (2001, 2001, 15, 90, 2, '2025-04-07', 300, '00000000-0000-4000-9000-000000002001', false, '2025-04-07 09:00+00', '2025-04-12 09:00+00', '2025-04-13 09:00+00'),
  (2002, 2001, 59, 0, 1, '2026-06-01', 150, '00000000-0000-4000-9000-000000002002', false, null, null, null);

insert into survey_sessions (id, client_id, survey_run_id, region_id, respondent_uuid, panel_respondent_id, status, is_simulated,
                             started_at, completed_at) values
  (1001, 1003, 1001, 1, '00000000-0000-4000-a000-000000001001', 'sim-1', 'Complete', true, '2025-03-04 09:00+00', '2025-03-04 09:12+00'),
  (1002, 1003, 1001, 1, '00000000-0000-4000-a000-000000001002', 'sim-2', 'Complete', true, '2025-03-04 10:00+00', '2025-03-04 10:09+00'),
  (1003, 1003, 1002, 2, '00000000-0000-4000-a000-000000001003', 'sim-3', 'Complete', true, '2025-03-05 09:00+00', '2025-03-05 09:15+00'),
  (1004, 1003, 1001, 1, '00000000-0000-4000-a000-000000001004', 'sim-4', 'ScreenedOut', true, '2025-03-05 11:00+00', null),
  (2001, 2001, 2001, 15, '00000000-0000-4000-a000-000000002001', null, 'Complete', false, '2025-04-08 09:00+00', '2025-04-08 09:20+00'),
  (2002, 2001, 2001, 15, '00000000-0000-4000-a000-000000002002', null, 'Complete', false, '2025-04-08 12:00+00', '2025-04-08 12:10+00');

insert into project_survey_sessions (id, client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, status,
                                     weight, week, completed_at) values
  (1001, 1003, 1001, 1001, 1001, 1, false, 'Complete', 0.9, null, '2025-03-04 09:12+00'),
  (1002, 1003, 1001, 1002, 1001, 1, false, 'Complete', 1.1, null, '2025-03-04 10:09+00'),
  (1003, 1003, 1001, 1003, 1002, 2, false, 'Complete', 1.0, null, '2025-03-05 09:15+00'),
  (2001, 2001, 2001, 2001, 2001, 15, true, 'Complete', 1.2, null, '2025-04-08 09:20+00'),
  (2002, 2001, 2001, 2002, 2001, 15, true, 'Complete', 0.8, null, '2025-04-08 12:10+00');

-- The ledger: Acme Team A bought 1000, spent on two runs and an adjustment, and moved 50 to Team B
-- (a transfer is two rows sharing transfer_id); Globex subscribed, spent, and holds a reservation.
insert into credit_logs (id, client_id, type, credit_amount, project_id, survey_run_id, related_client_id, transfer_id, description,
                         hubspot_deal_id, created_by_user_id, created_at) values
  (1001, 1003, 1, 1000.00, null, null, null, null, 'Annual credits', 'deal-1001', 5380, '2025-01-05 10:00+00'),
  (1002, 1003, 40, -200.00, 1001, 1001, null, null, 'Survey run NZ', null, 5380, '2025-03-03 09:00+00'),
  (1003, 1003, 40, -150.00, 1001, 1002, null, null, 'Survey run AU', null, 5380, '2025-03-03 09:00+00'),
  (1004, 1003, 81, -10.00, 1001, null, null, null, 'Extra standard question', null, 9001, '2025-03-03 09:30+00'),
  (1005, 1003, 140, -50.00, null, null, 1004, '00000000-0000-4000-b000-000000001005', 'Transfer to Team B', null, 9003, '2025-02-01 10:00+00'),
  (1006, 1004, 140, 50.00, null, null, 1003, '00000000-0000-4000-b000-000000001005', 'Transfer from Team A', null, 9003, '2025-02-01 10:00+00'),
  (2001, 2001, 2, 500.00, null, null, null, null, 'Subscription', null, 5380, '2025-01-01 10:00+00'),
  (2002, 2001, 40, -300.00, 2001, 2001, null, null, 'Survey run USA', null, 5380, '2025-04-07 09:00+00'),
  (2003, 2001, 30, -150.00, 2001, null, null, null, 'Reserved: wave 2', null, 5380, '2025-04-15 09:00+00');

insert into project_schedules (id, client_id, project_id, region_id, survey_run_id, schedule_date, schedule_type_id, is_customer_panel,
                               credit_log_id, wave_number, sample_size, created_at) values
  (1001, 1003, 1001, 1, 1001, '2025-03-03', 1, false, 1002, 1, 200, '2025-02-25 10:00+00'),
  (1002, 1003, 1001, 2, 1002, '2025-03-03', 1, false, 1003, 1, 150, '2025-02-25 10:01+00'),
  (2001, 2001, 2001, 15, 2001, '2025-04-07', 1, true, 2002, 1, 300, '2025-04-02 10:00+00'),
  (2002, 2001, 2001, 15, null, '2026-06-01', 10, true, 2003, 2, 300, '2025-04-15 09:00+00');

insert into project_weeks (id, client_id, project_id, region_id, survey_run_id, week, schedule_date) values
  (1001, 1003, 1002, 1, null, 1, '2025-02-10'),
  (1002, 1003, 1002, 1, null, 2, '2025-02-17'),
  (2001, 2001, 2004, 59, null, 1, '2025-01-13'),
  (2002, 2001, 2004, 59, 2002, 9, '2025-03-10');

insert into project_group_segment_sessions (id, client_id, project_group_segment_id, survey_session_id) values
  (1001, 1003, 1001, 1001),
  (1002, 1003, 1002, 1002),
  (2001, 2001, 2001, 2001),
  (2002, 2001, 2002, 2002);

-- ---- results ----------------------------------------------------------------------------------

insert into segments (id, client_id, project_id, name, responses_filters, created_by_user_id) values
  (1001, 1003, 1001, 'Young adults', '{"filterIds": [5100001, 5100002], "regionIds": [1]}', 9003),
  (1002, 1003, 1001, 'Women', '{"filterIds": [4500002]}', 9004),
  (2001, 2001, 2001, 'Customers', '{"panelType": "Customer", "regionIds": [15]}', 9006),
  (2002, 2001, 2001, 'Plan holders', '{"questionOptionsIds": [2005]}', 9006);

-- Long format: per session, its demographics, the screener, then each measure per test option.
insert into responses (id, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
                       project_question_id, question_id, standard_question_id, test_option_id, question_option_id,
                       system_question_id, system_question_option_id, standard_answer_value, numeric_value, created_at) values
  -- Acme, project 1001, session 1001 (NZ)
  (1001, 1003, 1001, 1001, 1001, 1001, 1, false, null, null, null, null, null, 51, 5100002, null, null, '2025-03-04 09:12+00'),
  (1002, 1003, 1001, 1001, 1001, 1001, 1, false, null, null, null, null, null, 45, 4500002, null, null, '2025-03-04 09:12+00'),
  (1003, 1003, 1001, 1001, 1001, 1001, 1, false, 1001, 1004, null, null, 1009, null, null, null, null, '2025-03-04 09:12+00'),
  (1004, 1003, 1001, 1001, 1001, 1001, 1, false, 1002, 1001, 5, 1001, 1001, null, null, 1, null, '2025-03-04 09:12+00'),
  (1005, 1003, 1001, 1001, 1001, 1001, 1, false, 1002, 1001, 5, 1002, 1002, null, null, 2, null, '2025-03-04 09:12+00'),
  (1006, 1003, 1001, 1001, 1001, 1001, 1, false, 1003, 1002, 1, 1001, 1005, null, null, 1, null, '2025-03-04 09:12+00'),
  (1007, 1003, 1001, 1001, 1001, 1001, 1, false, 1003, 1002, 1, 1002, 1007, null, null, 3, null, '2025-03-04 09:12+00'),
  -- session 1002 (NZ)
  (1008, 1003, 1001, 1001, 1002, 1002, 1, false, null, null, null, null, null, 51, 5100003, null, null, '2025-03-04 10:09+00'),
  (1009, 1003, 1001, 1001, 1002, 1002, 1, false, null, null, null, null, null, 45, 4500001, null, null, '2025-03-04 10:09+00'),
  (1010, 1003, 1001, 1001, 1002, 1002, 1, false, 1001, 1004, null, null, 1009, null, null, null, null, '2025-03-04 10:09+00'),
  (1011, 1003, 1001, 1001, 1002, 1002, 1, false, 1002, 1001, 5, 1001, 1003, null, null, 3, null, '2025-03-04 10:09+00'),
  (1012, 1003, 1001, 1001, 1002, 1002, 1, false, 1002, 1001, 5, 1002, 1001, null, null, 1, null, '2025-03-04 10:09+00'),
  -- session 1003 (AU)
  (1013, 1003, 1001, 1002, 1003, 1003, 2, false, null, null, null, null, null, 51, 5100004, null, null, '2025-03-05 09:15+00'),
  (1014, 1003, 1001, 1002, 1003, 1003, 2, false, 1002, 1001, 5, 1001, 1002, null, null, 2, null, '2025-03-05 09:15+00'),
  -- Globex, project 2001, session 2001 (USA, customer panel)
  (2001, 2001, 2001, 2001, 2001, 2001, 15, true, null, null, null, null, null, 51, 5100005, null, null, '2025-04-08 09:20+00'),
  (2002, 2001, 2001, 2001, 2001, 2001, 15, true, null, null, null, null, null, 45, 4500002, null, null, '2025-04-08 09:20+00'),
  (2003, 2001, 2001, 2001, 2001, 2001, 15, true, 2001, 2004, null, null, 2005, null, null, null, null, '2025-04-08 09:20+00'),
  (2004, 2001, 2001, 2001, 2001, 2001, 15, true, 2002, 2001, 5, 2001, 2001, null, null, 1, null, '2025-04-08 09:20+00'),
  (2005, 2001, 2001, 2001, 2001, 2001, 15, true, 2002, 2001, 5, 2002, 2003, null, null, 3, null, '2025-04-08 09:20+00'),
  (2006, 2001, 2001, 2001, 2001, 2001, 15, true, 2003, 2002, 20, 2001, null, null, null, null, 35.00, '2025-04-08 09:20+00'),
  (2007, 2001, 2001, 2001, 2001, 2001, 15, true, 2003, 2002, 20, 2002, null, null, null, null, 50.00, '2025-04-08 09:20+00'),
  -- session 2002
  (2008, 2001, 2001, 2001, 2002, 2002, 15, true, null, null, null, null, null, 51, 5100002, null, null, '2025-04-08 12:10+00'),
  (2009, 2001, 2001, 2001, 2002, 2002, 15, true, 2002, 2001, 5, 2001, 2002, null, null, 2, null, '2025-04-08 12:10+00'),
  (2010, 2001, 2001, 2001, 2002, 2002, 15, true, 2003, 2002, 20, 2001, null, null, null, null, 30.00, '2025-04-08 12:10+00');

insert into text_responses (id, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id,
                            project_question_id, question_id, standard_question_id, test_option_id, response_text, translated_text,
                            language_code, sentiment, sentiment_score, created_at) values
  (1001, 1003, 1001, 1001, 1001, 1001, 1, 1004, 1003, 7, 1001, 'Love the crunch', null, 'en', 'Positive', 0.8, '2025-03-04 09:12+00'),
  (1002, 1003, 1001, 1001, 1002, 1002, 1, 1004, 1003, 7, 1002, 'Too sweet for me', null, 'en', 'Negative', -0.6, '2025-03-04 10:09+00'),
  (2001, 2001, 2001, 2001, 2001, 2001, 15, 2004, 2003, 7, 2001, 'Unlimited data is what I need', null, 'en', 'Positive', 0.7, '2025-04-08 09:20+00'),
  (2002, 2001, 2001, 2001, 2002, 2002, 15, 2004, 2003, 7, 2002, 'Sharing data sounds confusing', null, 'en', 'Negative', -0.4, '2025-04-08 12:10+00');

insert into themes (id, client_id, project_id, project_question_id, test_option_id, name, description, sentiment, sort_order, is_ai_generated) values
  (1001, 1003, 1001, 1004, null, 'Texture', 'Comments on crunch and chew', 'Positive', 1, true),
  (1002, 1003, 1001, 1004, null, 'Sweetness', 'Comments on sugar and taste', 'Negative', 2, true),
  (2001, 2001, 2001, 2004, null, 'Data allowance', 'Comments on how much data', 'Positive', 1, true),
  (2002, 2001, 2001, 2004, null, 'Complexity', 'Comments on how hard plans are to understand', 'Negative', 2, true);

insert into text_responses_themes (id, client_id, project_id, text_response_id, theme_id, confidence) values
  (1001, 1003, 1001, 1001, 1001, 0.92),
  (1002, 1003, 1001, 1002, 1002, 0.85),
  (2001, 2001, 2001, 2001, 2001, 0.9),
  (2002, 2001, 2001, 2002, 2002, 0.75);

insert into diagnose_score_themes (id, client_id, project_id, test_option_id, standard_question_id, theme_id, title, summary, impact, score, sort_order) values
  (1001, 1003, 1001, 1001, 5, 1001, 'The crunch wins people over', 'Texture drives liking.', 'Positive', 0.6, 1),
  (1002, 1003, 1001, 1002, 5, 1002, 'Too sweet for some', 'Sweetness holds liking back.', 'Negative', -0.3, 2),
  (2001, 2001, 2001, 2001, 5, 2001, 'Unlimited data appeals', null, 'Positive', 0.5, 1),
  (2002, 2001, 2001, 2002, 5, 2002, 'Sharing is confusing', null, 'Negative', -0.2, 2);

insert into regression_scores (id, client_id, project_id, test_option_id, region_id, outcome_standard_question_id, standard_question_id,
                               coefficient, importance, r_squared, sample_size) values
  (1001, 1003, 1001, null, null, 3, 5, 0.42, 0.6, 0.51, 3),
  (1002, 1003, 1001, null, null, 3, 1, 0.28, 0.4, 0.51, 3),
  (2001, 2001, 2001, null, 15, 3, 5, 0.35, 0.7, 0.44, 2),
  (2002, 2001, 2001, null, 15, 3, 1, 0.15, 0.3, 0.44, 2);

-- ---- AI and administration --------------------------------------------------------------------

insert into prompts (id, name, prompt_type, description, is_active) values
  (1001, 'Full test summary', 'FullTestSummary', 'Summarises a whole project''s results', true),
  (1002, 'Results chat', 'Chat', 'Answers questions about a project''s results', true);

insert into prompt_versions (id, prompt_id, version_number, system_prompt, template, model, temperature, settings, notes,
                             is_published, published_at, published_by_user_id, created_by_user_id) values
  (1001, 1001, 1, 'You are a research analyst.', 'Summarise: {{results}}', 'local', 0.2, '{}', 'First version', true, '2025-01-02 10:00+00', 9001, 9001),
  (1002, 1001, 2, 'You are a research analyst.', 'Summarise briefly: {{results}}', 'local', 0.2, '{}', 'Draft', false, null, null, 9002),
  (1003, 1002, 1, 'You answer from the results only.', '{{question}}', 'local', 0, '{}', null, true, '2025-01-02 10:00+00', 9001, 9001);

update prompts set published_version_id = 1001 where id = 1001;
update prompts set published_version_id = 1003 where id = 1002;

insert into ai_project_summaries (id, client_id, project_id, summary_type, segment_id, test_option_id, project_question_id, project_objective_id,
                                  region_id, prompt_version_id, filters, status, title, content, generated_at, created_by_user_id) values
  (1001, 1003, 1001, 'FullTestSummary', null, null, null, 1002, null, 1001, null, 'Ready', 'Protein crunch bar leads',
   'The protein crunch bar scores higher on likability than the berry oat bar.', '2025-03-08 10:00+00', 5380),
  (1002, 1003, 1001, 'ListView', 1001, null, null, null, 1, 1001, '{"filterIds": [5100001, 5100002]}', 'Ready', 'Young adults',
   'Young adults prefer the berry oat bar.', '2025-03-08 10:05+00', 9003),
  (2001, 2001, 2001, 'FullTestSummary', null, null, null, 2001, null, 1001, null, 'Ready', 'Unlimited plan leads',
   'The unlimited plan is liked more than the family plan.', '2025-04-13 10:00+00', 5380),
  (2002, 2001, 2001, 'PriceSensitivity', null, 2001, null, null, 15, null, null, 'Pending', null, null, null, 9006);

insert into project_email_summaries (id, client_id, project_id, subject, body, status, recipients, prompt_version_id, sent_at) values
  (1001, 1003, 1001, 'Your results: Snack bar ideas', 'The protein crunch bar leads.', 'Sent', '["admin@acme.test", "user@acme.test"]', 1001, '2025-03-08 11:00+00'),
  (2001, 2001, 2001, 'Your results: Mobile plan ideas', 'The unlimited plan leads.', 'Draft', '["admin@globex.test"]', 1001, null);

insert into ai_conversations (id, user_id, client_id, project_id, title, status, model, last_message_at) values
  (1001, 9003, 1003, 1001, 'Snack bar launch', 'Active', 'local', '2025-03-09 10:01+00'),
  (1002, 9004, 1003, null, 'Questionnaire help', 'Closed', 'local', '2025-03-09 11:00+00'),
  (2001, 9006, 2001, 2001, 'Plan pricing', 'Active', 'local', '2025-04-14 10:01+00');

insert into ai_conversation_messages (id, ai_conversation_id, user_id, role, content, reference_files) values
  (1001, 1001, 9003, 'user', 'Which bar should we launch?', '[]'),
  (1002, 1001, 9003, 'assistant', 'The protein crunch bar: it is liked more.', '[{"referenceId": "r1", "fileName": "summary.csv", "key": "exports/1001.csv"}]'),
  (2001, 2001, 9006, 'user', 'Is the family plan priced right?', '[]'),
  (2002, 2001, 9006, 'assistant', 'Most respondents see 30 to 50 dollars as a bargain.', '[]');

insert into ai_conversation_evaluations (id, ai_conversation_id, user_id, evaluator_user_id, score, passed, notes, criteria) values
  (1001, 1001, 9003, 9001, 4, true, 'Grounded in the results', '{"grounded": true}'),
  (2001, 2001, 9006, 9002, 3, true, null, '{"grounded": true}');

insert into results_ai_threads (id, client_id, project_id, user_id, title, filters) values
  (1001, 1003, 1001, 9003, 'Which bar wins?', null),
  (1002, 1003, 1001, 9004, 'Regional differences', '{"regionIds": [2]}'),
  (2001, 2001, 2001, 9006, 'Pricing', null);

insert into results_ai_messages (id, client_id, project_id, user_id, results_ai_thread_id, role, content, references_data, feedback, feedback_comment) values
  (1001, 1003, 1001, 9003, 1001, 'user', 'Which bar wins?', null, null, null),
  (1002, 1003, 1001, 9003, 1001, 'assistant', 'The protein crunch bar, on likability and desire.', '{"standardQuestionIds": [5, 1]}', 'Positive', null),
  (2001, 2001, 2001, 9006, 2001, 'user', 'What is the bargain price?', null, null, null),
  (2002, 2001, 2001, 9006, 2001, 'assistant', 'Around 35 dollars for the unlimited plan.', null, 'Negative', 'Too vague');

insert into notifications (id, user_id, client_id, notification_type_id, title, body, project_id, url, data, read_at) values
  (1001, 9003, 1003, 5, 'Results are ready', 'Snack bar ideas has results.', 1001, '/1003/results/1001', '{}', null),
  (1002, 9004, 1003, 7, 'You were added to a team', null, null, '/1003/home', '{}', '2025-01-03 10:00+00'),
  (2001, 9006, 2001, 5, 'Results are ready', 'Mobile plan ideas has results.', 2001, '/2001/results/2001', '{}', null),
  (3001, 9001, null, 1, 'Project submitted for approval', 'Oat bar launch tracking needs approval.', 1002, '/admin/projects', '{}', null);

insert into data_events_log (id, client_id, user_id, entity_type, entity_id, event, project_id, prompt_id, data, created_at) values
  (1001, 1003, 9003, 'Project', 1001, 'Created', 1001, null, '{}', '2025-02-20 10:00+00'),
  (1002, 1003, 9001, 'Project', 1001, 'StatusChanged', 1001, null, '{"from": 800, "to": 900}', '2025-03-10 10:00+00'),
  (2001, 2001, 9006, 'Project', 2001, 'Created', 2001, null, '{}', '2025-03-30 10:00+00'),
  (2002, 2001, 9006, 'Project', 2001, 'SubmittedForSurvey', 2001, null, '{}', '2025-04-01 10:00+00'),
  (3001, null, 9001, 'PromptVersion', 1001, 'Published', null, 1001, '{"versionNumber": 1}', '2025-01-02 10:00+00');

insert into translated_text_regions (id, region_id, language_code, source_type, source_id, source_text, translated_text, is_verified, updated_by_user_id) values
  (1001, 17, 'zh', 'SystemQuestion', 51, 'How old are you?', '您今年多大？', true, 9002),
  (1002, 999999, 'es', 'SystemQuestion', 45, 'Which gender do you identify as?', '¿Con qué género se identifica?', false, 9002);

-- Explicit ids above must not be handed out again.
select sync_identity_sequences();
