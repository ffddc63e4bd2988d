-- Reference data: the enumerations and fixed rows SPEC.md gives, plus the choices it leaves open
-- (documented in docs/reference-data.md). Runs after every migrate (api/src/db/migrate.ts), so it is
-- idempotent: every row is an upsert keyed by its fixed id that only writes when a value differs,
-- so a second run changes nothing (not even updated_at). Rows are never deleted here: retire a
-- value in a migration. Hand-maintained; keep ids stable, they are referenced by data.

-- ---- regions ------------------------------------------------------------------------------------
-- SPEC 9: 1 New Zealand (NZD, the default), 2 Australia (AUD), 15 USA (USD), 17 Singapore (SGD),
-- 999999 Other markets (USD); sort_order follows the spec's list of targetable regions. US states
-- (CanChooseUsStateMarkets): the 42 most populous states by the 2020 Census, ids 56..97 in
-- alphabetical order; 98..104 stay free. daily_completes feeds EstimatedProjectDuration.
insert into regions (id, region_name, region_code, country_code, currency_code, currency_symbol, parent_region_id, is_us_state, is_default, sort_order, daily_completes) values
  (1, 'New Zealand', 'NZ', 'NZ', 'NZD', '$', null, false, true, 2, 150),
  (2, 'Australia', 'AU', 'AU', 'AUD', '$', null, false, false, 1, 400),
  (15, 'USA', 'US', 'US', 'USD', '$', null, false, false, 3, 1500),
  (17, 'Singapore', 'SG', 'SG', 'SGD', '$', null, false, false, 4, 150),
  (999999, 'Other markets', 'OTHER', null, 'USD', '$', null, false, false, 5, 300),
  (56, 'Alabama', 'US-AL', 'US', 'USD', '$', 15, true, false, 100, 100),
  (57, 'Arizona', 'US-AZ', 'US', 'USD', '$', 15, true, false, 101, 100),
  (58, 'Arkansas', 'US-AR', 'US', 'USD', '$', 15, true, false, 102, 100),
  (59, 'California', 'US-CA', 'US', 'USD', '$', 15, true, false, 103, 100),
  (60, 'Colorado', 'US-CO', 'US', 'USD', '$', 15, true, false, 104, 100),
  (61, 'Connecticut', 'US-CT', 'US', 'USD', '$', 15, true, false, 105, 100),
  (62, 'Florida', 'US-FL', 'US', 'USD', '$', 15, true, false, 106, 100),
  (63, 'Georgia', 'US-GA', 'US', 'USD', '$', 15, true, false, 107, 100),
  (64, 'Hawaii', 'US-HI', 'US', 'USD', '$', 15, true, false, 108, 100),
  (65, 'Idaho', 'US-ID', 'US', 'USD', '$', 15, true, false, 109, 100),
  (66, 'Illinois', 'US-IL', 'US', 'USD', '$', 15, true, false, 110, 100),
  (67, 'Indiana', 'US-IN', 'US', 'USD', '$', 15, true, false, 111, 100),
  (68, 'Iowa', 'US-IA', 'US', 'USD', '$', 15, true, false, 112, 100),
  (69, 'Kansas', 'US-KS', 'US', 'USD', '$', 15, true, false, 113, 100),
  (70, 'Kentucky', 'US-KY', 'US', 'USD', '$', 15, true, false, 114, 100),
  (71, 'Louisiana', 'US-LA', 'US', 'USD', '$', 15, true, false, 115, 100),
  (72, 'Maine', 'US-ME', 'US', 'USD', '$', 15, true, false, 116, 100),
  (73, 'Maryland', 'US-MD', 'US', 'USD', '$', 15, true, false, 117, 100),
  (74, 'Massachusetts', 'US-MA', 'US', 'USD', '$', 15, true, false, 118, 100),
  (75, 'Michigan', 'US-MI', 'US', 'USD', '$', 15, true, false, 119, 100),
  (76, 'Minnesota', 'US-MN', 'US', 'USD', '$', 15, true, false, 120, 100),
  (77, 'Mississippi', 'US-MS', 'US', 'USD', '$', 15, true, false, 121, 100),
  (78, 'Missouri', 'US-MO', 'US', 'USD', '$', 15, true, false, 122, 100),
  (79, 'Nebraska', 'US-NE', 'US', 'USD', '$', 15, true, false, 123, 100),
  (80, 'Nevada', 'US-NV', 'US', 'USD', '$', 15, true, false, 124, 100),
  (81, 'New Hampshire', 'US-NH', 'US', 'USD', '$', 15, true, false, 125, 100),
  (82, 'New Jersey', 'US-NJ', 'US', 'USD', '$', 15, true, false, 126, 100),
  (83, 'New Mexico', 'US-NM', 'US', 'USD', '$', 15, true, false, 127, 100),
  (84, 'New York', 'US-NY', 'US', 'USD', '$', 15, true, false, 128, 100),
  (85, 'North Carolina', 'US-NC', 'US', 'USD', '$', 15, true, false, 129, 100),
  (86, 'Ohio', 'US-OH', 'US', 'USD', '$', 15, true, false, 130, 100),
  (87, 'Oklahoma', 'US-OK', 'US', 'USD', '$', 15, true, false, 131, 100),
  (88, 'Oregon', 'US-OR', 'US', 'USD', '$', 15, true, false, 132, 100),
  (89, 'Pennsylvania', 'US-PA', 'US', 'USD', '$', 15, true, false, 133, 100),
  (90, 'South Carolina', 'US-SC', 'US', 'USD', '$', 15, true, false, 134, 100),
  (91, 'Tennessee', 'US-TN', 'US', 'USD', '$', 15, true, false, 135, 100),
  (92, 'Texas', 'US-TX', 'US', 'USD', '$', 15, true, false, 136, 100),
  (93, 'Utah', 'US-UT', 'US', 'USD', '$', 15, true, false, 137, 100),
  (94, 'Virginia', 'US-VA', 'US', 'USD', '$', 15, true, false, 138, 100),
  (95, 'Washington', 'US-WA', 'US', 'USD', '$', 15, true, false, 139, 100),
  (96, 'West Virginia', 'US-WV', 'US', 'USD', '$', 15, true, false, 140, 100),
  (97, 'Wisconsin', 'US-WI', 'US', 'USD', '$', 15, true, false, 141, 100)
on conflict (id) do update set
  (region_name, region_code, country_code, currency_code, currency_symbol, parent_region_id, is_us_state, is_default, sort_order, daily_completes) =
  (excluded.region_name, excluded.region_code, excluded.country_code, excluded.currency_code, excluded.currency_symbol, excluded.parent_region_id, excluded.is_us_state, excluded.is_default, excluded.sort_order, excluded.daily_completes)
  where (regions.region_name, regions.region_code, regions.country_code, regions.currency_code, regions.currency_symbol, regions.parent_region_id, regions.is_us_state, regions.is_default, regions.sort_order, regions.daily_completes)
    is distinct from (excluded.region_name, excluded.region_code, excluded.country_code, excluded.currency_code, excluded.currency_symbol, excluded.parent_region_id, excluded.is_us_state, excluded.is_default, excluded.sort_order, excluded.daily_completes);

-- ---- classification -----------------------------------------------------------------------------
-- SPEC 1's industry options, in the spec's order; code is the value on the wire.
insert into industries (id, code, name) values
  (1, 'telecommunications', 'Telecommunications'),
  (2, 'energy', 'Energy'),
  (3, 'broadcast', 'Broadcast'),
  (4, 'qsr', 'Quick service restaurants'),
  (5, 'agency', 'Agency'),
  (6, 'financial', 'Financial services'),
  (7, 'government', 'Government'),
  (8, 'other', 'Other'),
  (9, 'retail', 'Retail'),
  (10, 'insurance', 'Insurance'),
  (11, 'fmcg', 'FMCG'),
  (12, 'tech', 'Technology'),
  (13, 'health', 'Health'),
  (14, 'hospitality', 'Hospitality')
on conflict (id) do update set
  (code, name) =
  (excluded.code, excluded.name)
  where (industries.code, industries.name)
    is distinct from (excluded.code, excluded.name);

-- Product categories: not enumerated by the spec; a two-level starter tree (parents 1..15,
-- children parent*100+n) so category (8) and parent-category (10) benchmarks have something to group by.
insert into categories (id, name, parent_id, industry, sort_order) values
  (1, 'Food', null, 'fmcg', 1),
  (2, 'Beverages', null, 'fmcg', 2),
  (3, 'Alcohol', null, 'fmcg', 3),
  (4, 'Personal care', null, 'fmcg', 4),
  (5, 'Household', null, 'fmcg', 5),
  (6, 'Financial services', null, 'financial', 6),
  (7, 'Telecommunications', null, 'telecommunications', 7),
  (8, 'Energy and utilities', null, 'energy', 8),
  (9, 'Restaurants and takeaway', null, 'qsr', 9),
  (10, 'Retail', null, 'retail', 10),
  (11, 'Media and entertainment', null, 'broadcast', 11),
  (12, 'Health', null, 'health', 12),
  (13, 'Travel and hospitality', null, 'hospitality', 13),
  (14, 'Technology', null, 'tech', 14),
  (15, 'Public sector', null, 'government', 15),
  (101, 'Snacks', 1, 'fmcg', 101),
  (102, 'Dairy', 1, 'fmcg', 102),
  (103, 'Confectionery', 1, 'fmcg', 103),
  (104, 'Bakery', 1, 'fmcg', 104),
  (105, 'Ready meals', 1, 'fmcg', 105),
  (201, 'Soft drinks', 2, 'fmcg', 201),
  (202, 'Coffee and tea', 2, 'fmcg', 202),
  (203, 'Water', 2, 'fmcg', 203),
  (204, 'Energy drinks', 2, 'fmcg', 204),
  (301, 'Beer and cider', 3, 'fmcg', 301),
  (302, 'Wine', 3, 'fmcg', 302),
  (303, 'Spirits and RTD', 3, 'fmcg', 303),
  (401, 'Skin care', 4, 'fmcg', 401),
  (402, 'Hair care', 4, 'fmcg', 402),
  (403, 'Oral care', 4, 'fmcg', 403),
  (501, 'Cleaning', 5, 'fmcg', 501),
  (502, 'Laundry', 5, 'fmcg', 502),
  (601, 'Banking', 6, 'financial', 601),
  (602, 'Insurance', 6, 'insurance', 602),
  (603, 'Investments and super', 6, 'financial', 603),
  (701, 'Mobile', 7, 'telecommunications', 701),
  (702, 'Broadband', 7, 'telecommunications', 702),
  (801, 'Electricity and gas', 8, 'energy', 801),
  (901, 'Quick service restaurants', 9, 'qsr', 901),
  (902, 'Food delivery', 9, 'qsr', 902)
on conflict (id) do update set
  (name, parent_id, industry, sort_order) =
  (excluded.name, excluded.parent_id, excluded.industry, excluded.sort_order)
  where (categories.name, categories.parent_id, categories.industry, categories.sort_order)
    is distinct from (excluded.name, excluded.parent_id, excluded.industry, excluded.sort_order);

-- ---- enumerations ---------------------------------------------------------------------------------
-- SPEC 3.
insert into project_types (id, name) values
  (1, 'Idea'),
  (2, 'Message'),
  (3, 'Question'),
  (4, 'Npd')
on conflict (id) do update set name = excluded.name
  where project_types.name is distinct from excluded.name;

-- SPEC 3.
insert into question_types (id, name) values
  (1, 'single'),
  (2, 'multiple'),
  (3, 'text'),
  (4, 'dropdown')
on conflict (id) do update set name = excluded.name
  where question_types.name is distinct from excluded.name;

-- SPEC 3 positions and display groups; sort_position is SPEC 9's sort key (7 counts as 1).
insert into question_positions (id, name, display_group, sort_position) values
  (1, 'Screener', 'Audience', 1),
  (2, 'InsideLoop', 'Test', 2),
  (3, 'OutsideLoop', 'Follow-up', 3),
  (4, 'Awareness', 'Audience', 4),
  (5, 'Standard', 'Framework', 5),
  (6, 'Custom', 'Custom', 6),
  (7, 'BeforeLoop', 'Audience', 1),
  (8, 'BeforeInsideLoop', 'Test', 8),
  (9, 'Segment', 'Segmentation', 9),
  (10, 'Occasions', 'Occasions', 10),
  (11, 'Needs', 'Needs', 11),
  (12, 'UsageAndAttitude', 'Usage & attitude', 12)
on conflict (id) do update set
  (name, display_group, sort_position) =
  (excluded.name, excluded.display_group, excluded.sort_position)
  where (question_positions.name, question_positions.display_group, question_positions.sort_position)
    is distinct from (excluded.name, excluded.display_group, excluded.sort_position);

-- SPEC 4 project status codes.
insert into project_statuses (id, name, code_name) values
  (0, 'Draft', 'Draft'),
  (50, 'Awaiting Approval', 'AwaitingApproval'),
  (100, 'Submitted', 'Submitted'),
  (200, 'Reviewing Questions', 'ReviewingQuestions'),
  (300, 'Awaiting Survey', 'AwaitingSurvey'),
  (400, 'Processing results', 'WaitingOnResponses'),
  (800, 'Completed Wave', 'CompletedWave'),
  (900, 'Complete', 'Complete'),
  (950, 'Demo', 'Demo')
on conflict (id) do update set
  (name, code_name) =
  (excluded.name, excluded.code_name)
  where (project_statuses.name, project_statuses.code_name)
    is distinct from (excluded.name, excluded.code_name);

-- SPEC 3.
insert into survey_statuses (id, name) values
  (0, 'Draft'),
  (10, 'Testing'),
  (50, 'Live'),
  (90, 'Closed'),
  (130, 'Dev'),
  (1000, 'ErrorXml'),
  (1010, 'ErrorProcessing')
on conflict (id) do update set name = excluded.name
  where survey_statuses.name is distinct from excluded.name;

-- SPEC 3.
insert into schedule_types (id, name) values
  (1, 'Standard'),
  (10, 'DelayCharge'),
  (15, 'DelayChargeFuture')
on conflict (id) do update set name = excluded.name
  where schedule_types.name is distinct from excluded.name;

-- SPEC 9.
insert into sample_providers (id, name) values
  (1, 'Ideally'),
  (2, 'Customer')
on conflict (id) do update set name = excluded.name
  where sample_providers.name is distinct from excluded.name;

-- SPEC 3 credit log types; 80..85 and 90 are project-specific adjustments.
insert into credit_log_types (id, name, is_project_adjustment, is_pending, description) values
  (1, 'HubspotDeal', false, false, 'Credits bought through a CRM deal'),
  (2, 'CBSubscription', false, false, 'Credits from a subscription renewal'),
  (30, 'PendingSurveyRun', false, true, 'Credits reserved for a scheduled survey run'),
  (40, 'SurveyRun', false, false, 'Credits spent on a survey run'),
  (80, 'AddRunAdj', true, false, 'Adjustment: an added run'),
  (81, 'StdQuestionAdj', true, false, 'Adjustment: standard questions'),
  (82, 'AddProfilerAdj', true, false, 'Adjustment: added profiler questions'),
  (83, 'MakeGoodAdj', true, false, 'Adjustment: make-good'),
  (84, 'BoostedSampleAdj', true, false, 'Adjustment: boosted sample'),
  (85, 'MonadicAdj', true, false, 'Adjustment: monadic design'),
  (86, 'Freebie', false, false, 'Credits given free of charge'),
  (90, 'OtherAdj', true, false, 'Adjustment: other'),
  (130, 'PendingTransfer', false, true, 'Credits reserved for a transfer between clients'),
  (140, 'Transfer', false, false, 'Credits transferred between clients')
on conflict (id) do update set
  (name, is_project_adjustment, is_pending, description) =
  (excluded.name, excluded.is_project_adjustment, excluded.is_pending, excluded.description)
  where (credit_log_types.name, credit_log_types.is_project_adjustment, credit_log_types.is_pending, credit_log_types.description)
    is distinct from (excluded.name, excluded.is_project_adjustment, excluded.is_pending, excluded.description);

-- SPEC 4's user notifications; ids are ours (the spec gives names only), in the spec's order.
insert into notification_types (id, name, description, default_title) values
  (1, 'SurveySubmittedForApproval', 'A project was submitted and needs approval', 'Project submitted for approval'),
  (2, 'SurveyApproved', 'A submitted project was approved', 'Project approved'),
  (3, 'SurveyApprovalDeclined', 'A submitted project was declined', 'Project declined'),
  (4, 'ProjectSentOutForSurvey', 'A project''s survey went out to the panel', 'Project sent out for survey'),
  (5, 'ProjectReady', 'A project''s results are ready', 'Results are ready'),
  (6, 'PasswordReset', 'The user''s password was reset', 'Your password was reset'),
  (7, 'UserAddedToTeam', 'The user was added to a team', 'You were added to a team'),
  (8, 'CustomPanelProjectReadyForSurvey', 'A customer-panel project''s survey link is ready to send', 'Your survey link is ready')
on conflict (id) do update set
  (name, description, default_title) =
  (excluded.name, excluded.description, excluded.default_title)
  where (notification_types.name, notification_types.description, notification_types.default_title)
    is distinct from (excluded.name, excluded.description, excluded.default_title);

-- SPEC 3 and 9 benchmark types; week 26 falls in band 7 (DESIGN.md decides SPEC 5's 'above 26').
insert into benchmark_types (id, name, description, min_week, max_week) values
  (1, 'AllCustomers', 'All customers and historical data', null, null),
  (2, 'Team', 'Tests in your team', null, null),
  (3, 'Industry', 'Tests in your industry', null, null),
  (4, 'NpdWeeks1To8', 'New product launches in their first 8 weeks', null, 8),
  (5, 'NpdWeeks9To16', 'New product launches in weeks 9 to 16', 9, 16),
  (6, 'NpdWeeks17To25', 'New product launches in weeks 17 to 25', 17, 25),
  (7, 'NpdWeeks26Plus', 'New product launches from week 26 onward', 26, null),
  (8, 'Category', 'Tests within this category', null, null),
  (10, 'ParentCategory', 'Tests within the parent category', null, null)
on conflict (id) do update set
  (name, description, min_week, max_week) =
  (excluded.name, excluded.description, excluded.min_week, excluded.max_week)
  where (benchmark_types.name, benchmark_types.description, benchmark_types.min_week, benchmark_types.max_week)
    is distinct from (excluded.name, excluded.description, excluded.min_week, excluded.max_week);

-- User roles (the user's own role, not a client role): a super admin is a staff user with
-- role 3 (DESIGN.md). Ids are ours.
insert into user_roles (id, role_name) values
  (1, 'User'),
  (2, 'Staff'),
  (3, 'SuperAdmin')
on conflict (id) do update set role_name = excluded.role_name
  where user_roles.role_name is distinct from excluded.role_name;

-- SPEC 1 client roles.
insert into user_client_roles (id, role_name) values
  (1, 'Admin'),
  (2, 'User'),
  (3, 'Viewer')
on conflict (id) do update set role_name = excluded.role_name
  where user_client_roles.role_name is distinct from excluded.role_name;

-- SPEC 6 and 9 feature flags, off by default (clients get them through client_features).
-- Only ff and description are kept in step: the switches belong to staff once seeded.
insert into feature_flags (id, ff, description) values
  (1, 'beta-enabled', 'Beta features (also toggled locally in the browser)'),
  (2, 'CanChooseUsStateMarkets', 'US states (regions 56..104) can be chosen as markets'),
  (3, 'MarketReach', 'Market reach (TURF) add-on and its results pages')
on conflict (id) do update set
  (ff, description) =
  (excluded.ff, excluded.description)
  where (feature_flags.ff, feature_flags.description)
    is distinct from (excluded.ff, excluded.description);

-- ---- frameworks and standard questions -----------------------------------------------------------
-- SPEC 3 frameworks. The project type each belongs to follows its thousand (1xxx Idea, 2xxx Message,
-- 3xxx Question, 4xxx Npd); descriptions and objectives beyond SPEC 9's default are ours.
insert into frameworks (id, title, project_type_id, description, objective_summaries, is_price_sensitivity, is_market_reach, is_ab_test, sort_order) values
  (1000, 'Idea default', 1, 'Tests ideas on the core concept measures.', '["Summarize the overall performance and highlight any significant audience skews in the results."]'::jsonb, false, false, false, 1),
  (1003, 'Execution A/B test', 1, 'Compares executions of one idea head to head.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "Which execution performs best, and for whom?"]'::jsonb, false, false, true, 2),
  (1010, 'Price sensitivity', 1, 'Idea measures plus Van Westendorp price questions.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "Identify the acceptable price range and the optimal price point."]'::jsonb, true, false, false, 3),
  (1020, 'Market reach', 1, 'Idea measures plus the market reach (TURF) add-on.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "Find the combination of ideas that reaches the most people."]'::jsonb, false, true, false, 4),
  (2000, 'Message comprehension', 2, 'Tests how messages land and what people take out of them.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "Which message is understood and believed best?"]'::jsonb, false, false, false, 5),
  (2003, 'Message A/B test', 2, 'Compares messages head to head.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "Which message performs best, and for whom?"]'::jsonb, false, false, true, 6),
  (3000, 'Ad hoc', 3, 'Custom questions only.', '["Summarize the overall performance and highlight any significant audience skews in the results."]'::jsonb, false, false, false, 7),
  (3998, 'Usage and attitude seeding', 3, 'Seeds a project group''s usage and attitude study.', '["Summarize the overall performance and highlight any significant audience skews in the results."]'::jsonb, false, false, false, 8),
  (4000, 'NPD', 4, 'Tracks a launched product by weeks since launch.', '["Summarize the overall performance and highlight any significant audience skews in the results.", "How are awareness, trial and repeat building since launch?"]'::jsonb, false, false, false, 9)
on conflict (id) do update set
  (title, project_type_id, description, objective_summaries, is_price_sensitivity, is_market_reach, is_ab_test, sort_order) =
  (excluded.title, excluded.project_type_id, excluded.description, excluded.objective_summaries, excluded.is_price_sensitivity, excluded.is_market_reach, excluded.is_ab_test, excluded.sort_order)
  where (frameworks.title, frameworks.project_type_id, frameworks.description, frameworks.objective_summaries, frameworks.is_price_sensitivity, frameworks.is_market_reach, frameworks.is_ab_test, frameworks.sort_order)
    is distinct from (excluded.title, excluded.project_type_id, excluded.description, excluded.objective_summaries, excluded.is_price_sensitivity, excluded.is_market_reach, excluded.is_ab_test, excluded.sort_order);

-- SPEC 3 standard questions (there is no 12). Price sensitivity 19..22 use Van Westendorp's (1976)
-- wordings and take a number; 25 Market reach is the add-on; texts of the others are ours.
-- display_order is SPEC 9's order (5, 1, 4, 3, 2, 6, then the rest).
insert into standard_questions (id, title, question_text, question_type_id, description, display_order, is_price_sensitivity, is_add_on, is_scaled) values
  (1, 'Desire', 'How much would you want this?', 1, 'How strongly people want the idea.', 2, false, false, true),
  (2, 'Brand Fit', 'How well does this fit the brand?', 1, 'How well the idea fits the brand it is from.', 5, false, false, true),
  (3, 'Purchase intent', 'If this were available, how likely would you be to buy it?', 1, 'How likely people are to buy.', 4, false, false, true),
  (4, 'Distinctiveness', 'How different is this from what is available today?', 1, 'How different the idea is from what is on offer.', 3, false, false, true),
  (5, 'Likability', 'Overall, how much do you like this?', 1, 'How much people like the idea.', 1, false, false, true),
  (6, 'Brand Recognition', 'How easy is it to tell which brand this is from?', 1, 'How clearly the brand comes through.', 6, false, false, true),
  (7, 'What you like most', 'What, if anything, do you like most about this?', 3, 'What people like most, in their own words.', 6, false, false, false),
  (8, 'Trial', 'Have you tried this product?', 1, 'Whether people have tried the product.', 6, false, false, true),
  (9, 'NPD recognition', 'Before today, had you seen or heard of this product?', 1, 'Awareness of the new product.', 6, false, false, true),
  (10, 'Advertisement Outtake', 'In your own words, what is this ad telling you?', 3, 'What people take out of the ad.', 6, false, false, false),
  (11, 'In-store visibility', 'Have you noticed this product in store?', 1, 'Whether people notice the product in store.', 6, false, false, true),
  (13, 'Trial barriers', 'What, if anything, has stopped you from trying this product?', 2, 'What holds trial back.', 6, false, false, false),
  (14, 'Trial drivers', 'What made you try this product?', 2, 'What drives trial.', 6, false, false, false),
  (15, 'Positive experience', 'How would you rate your experience of this product?', 1, 'How good the product experience is.', 6, false, false, true),
  (16, 'Repeat purchase', 'How likely are you to buy this product again?', 1, 'How likely triallists are to buy again.', 6, false, false, true),
  (17, 'Repeat barriers', 'What, if anything, would stop you from buying it again?', 2, 'What holds repeat purchase back.', 6, false, false, false),
  (18, 'Repeat drivers', 'What would make you buy it again?', 2, 'What drives repeat purchase.', 6, false, false, false),
  (19, 'Too Cheap', 'At what price would you consider this product to be priced so low that you would feel the quality couldn''t be very good?', 3, 'Van Westendorp: too cheap.', 6, true, false, false),
  (20, 'Bargain', 'At what price would you consider this product to be a bargain - a great buy for the money?', 3, 'Van Westendorp: cheap, a bargain.', 6, true, false, false),
  (21, 'Expensive', 'At what price would you say this product is starting to get expensive - not out of the question, but you would have to give some thought to buying it?', 3, 'Van Westendorp: getting expensive.', 6, true, false, false),
  (22, 'Too Expensive', 'At what price would you consider this product to be so expensive that you would not consider buying it?', 3, 'Van Westendorp: too expensive.', 6, true, false, false),
  (23, 'Consideration', 'Next time you buy in this category, how likely are you to consider this?', 1, 'How likely people are to consider it.', 6, false, false, true),
  (24, 'Believability', 'How believable is this?', 1, 'How believable the idea or message is.', 6, false, false, true),
  (25, 'Market reach', 'Which of these, if any, would you consider buying?', 2, 'Market reach (TURF) add-on: which options each person would accept.', 6, false, true, false)
on conflict (id) do update set
  (title, question_text, question_type_id, description, display_order, is_price_sensitivity, is_add_on, is_scaled) =
  (excluded.title, excluded.question_text, excluded.question_type_id, excluded.description, excluded.display_order, excluded.is_price_sensitivity, excluded.is_add_on, excluded.is_scaled)
  where (standard_questions.title, standard_questions.question_text, standard_questions.question_type_id, standard_questions.description, standard_questions.display_order, standard_questions.is_price_sensitivity, standard_questions.is_add_on, standard_questions.is_scaled)
    is distinct from (excluded.title, excluded.question_text, excluded.question_type_id, excluded.description, excluded.display_order, excluded.is_price_sensitivity, excluded.is_add_on, excluded.is_scaled);

-- SPEC 3: the 4-point scale and its value labels.
insert into standard_answer_values (id, name, value_label) values
  (1, 'Top', 'High'),
  (2, 'SecondTop', 'Average'),
  (3, 'SecondBottom', 'Neutral'),
  (4, 'Bottom', 'Low')
on conflict (id) do update set
  (name, value_label) =
  (excluded.name, excluded.value_label)
  where (standard_answer_values.name, standard_answer_values.value_label)
    is distinct from (excluded.name, excluded.value_label);

-- Answer options of the standard questions (ours; the spec gives only the scale): id = question * 100 + n.
-- Scaled questions map options 1..4 to the scale; 'Not sure' sits off the scale.
insert into standard_question_options (id, standard_question_id, option_text, standard_answer_value, is_not_sure, exclusive, sort_order) values
  (101, 1, 'I would really want it', 1, false, false, 1),
  (102, 1, 'I would quite like it', 2, false, false, 2),
  (103, 1, 'I would not really want it', 3, false, false, 3),
  (104, 1, 'I would not want it at all', 4, false, false, 4),
  (201, 2, 'Fits very well', 1, false, false, 1),
  (202, 2, 'Fits quite well', 2, false, false, 2),
  (203, 2, 'Does not fit very well', 3, false, false, 3),
  (204, 2, 'Does not fit at all', 4, false, false, 4),
  (205, 2, 'Not sure', null, true, true, 5),
  (301, 3, 'Definitely would buy', 1, false, false, 1),
  (302, 3, 'Probably would buy', 2, false, false, 2),
  (303, 3, 'Probably would not buy', 3, false, false, 3),
  (304, 3, 'Definitely would not buy', 4, false, false, 4),
  (401, 4, 'Very different', 1, false, false, 1),
  (402, 4, 'Quite different', 2, false, false, 2),
  (403, 4, 'Slightly different', 3, false, false, 3),
  (404, 4, 'Not at all different', 4, false, false, 4),
  (501, 5, 'Like it a lot', 1, false, false, 1),
  (502, 5, 'Like it a little', 2, false, false, 2),
  (503, 5, 'Dislike it a little', 3, false, false, 3),
  (504, 5, 'Dislike it a lot', 4, false, false, 4),
  (601, 6, 'Very easy', 1, false, false, 1),
  (602, 6, 'Quite easy', 2, false, false, 2),
  (603, 6, 'Quite hard', 3, false, false, 3),
  (604, 6, 'Very hard', 4, false, false, 4),
  (605, 6, 'Not sure', null, true, true, 5),
  (801, 8, 'Yes, several times', 1, false, false, 1),
  (802, 8, 'Yes, once', 2, false, false, 2),
  (803, 8, 'No, but I intend to', 3, false, false, 3),
  (804, 8, 'No, and I do not intend to', 4, false, false, 4),
  (901, 9, 'Yes, definitely', 1, false, false, 1),
  (902, 9, 'I think so', 2, false, false, 2),
  (903, 9, 'I do not think so', 3, false, false, 3),
  (904, 9, 'Definitely not', 4, false, false, 4),
  (1101, 11, 'Yes, many times', 1, false, false, 1),
  (1102, 11, 'Yes, once or twice', 2, false, false, 2),
  (1103, 11, 'I do not think so', 3, false, false, 3),
  (1104, 11, 'Definitely not', 4, false, false, 4),
  (1105, 11, 'Not sure', null, true, true, 5),
  (1301, 13, 'The price', null, false, false, 1),
  (1302, 13, 'It is not available where I shop', null, false, false, 2),
  (1303, 13, 'I am happy with what I buy now', null, false, false, 3),
  (1304, 13, 'It does not appeal to me', null, false, false, 4),
  (1305, 13, 'I did not know about it', null, false, false, 5),
  (1306, 13, 'Something else', null, false, false, 6),
  (1307, 13, 'Nothing in particular', null, false, true, 7),
  (1401, 14, 'A price promotion', null, false, false, 1),
  (1402, 14, 'I saw it in store', null, false, false, 2),
  (1403, 14, 'Advertising', null, false, false, 3),
  (1404, 14, 'A recommendation', null, false, false, 4),
  (1405, 14, 'Curiosity', null, false, false, 5),
  (1406, 14, 'Something else', null, false, false, 6),
  (1501, 15, 'Very good', 1, false, false, 1),
  (1502, 15, 'Good', 2, false, false, 2),
  (1503, 15, 'Poor', 3, false, false, 3),
  (1504, 15, 'Very poor', 4, false, false, 4),
  (1601, 16, 'Definitely will', 1, false, false, 1),
  (1602, 16, 'Probably will', 2, false, false, 2),
  (1603, 16, 'Probably will not', 3, false, false, 3),
  (1604, 16, 'Definitely will not', 4, false, false, 4),
  (1701, 17, 'It is too expensive', null, false, false, 1),
  (1702, 17, 'I did not like the quality', null, false, false, 2),
  (1703, 17, 'It is hard to find', null, false, false, 3),
  (1704, 17, 'I prefer another brand', null, false, false, 4),
  (1705, 17, 'Something else', null, false, false, 5),
  (1706, 17, 'Nothing would stop me', null, false, true, 6),
  (1801, 18, 'The quality', null, false, false, 1),
  (1802, 18, 'Good value', null, false, false, 2),
  (1803, 18, 'I liked it', null, false, false, 3),
  (1804, 18, 'It is convenient', null, false, false, 4),
  (1805, 18, 'Something else', null, false, false, 5),
  (2301, 23, 'Definitely would consider', 1, false, false, 1),
  (2302, 23, 'Probably would consider', 2, false, false, 2),
  (2303, 23, 'Probably would not consider', 3, false, false, 3),
  (2304, 23, 'Definitely would not consider', 4, false, false, 4),
  (2401, 24, 'Very believable', 1, false, false, 1),
  (2402, 24, 'Quite believable', 2, false, false, 2),
  (2403, 24, 'Not very believable', 3, false, false, 3),
  (2404, 24, 'Not at all believable', 4, false, false, 4)
on conflict (id) do update set
  (standard_question_id, option_text, standard_answer_value, is_not_sure, exclusive, sort_order) =
  (excluded.standard_question_id, excluded.option_text, excluded.standard_answer_value, excluded.is_not_sure, excluded.exclusive, excluded.sort_order)
  where (standard_question_options.standard_question_id, standard_question_options.option_text, standard_question_options.standard_answer_value, standard_question_options.is_not_sure, standard_question_options.exclusive, standard_question_options.sort_order)
    is distinct from (excluded.standard_question_id, excluded.option_text, excluded.standard_answer_value, excluded.is_not_sure, excluded.exclusive, excluded.sort_order);

-- The standard questions each framework asks (ours; 3000 Ad hoc and 3998 seeding ask none).
insert into framework_standard_questions (framework_id, standard_question_id, sort_order) values
  (1000, 5, 1),
  (1000, 1, 2),
  (1000, 4, 3),
  (1000, 3, 4),
  (1000, 2, 5),
  (1000, 7, 6),
  (1003, 5, 1),
  (1003, 1, 2),
  (1003, 4, 3),
  (1003, 3, 4),
  (1003, 2, 5),
  (1003, 6, 6),
  (1003, 7, 7),
  (1010, 5, 1),
  (1010, 1, 2),
  (1010, 4, 3),
  (1010, 3, 4),
  (1010, 2, 5),
  (1010, 7, 6),
  (1010, 19, 7),
  (1010, 20, 8),
  (1010, 21, 9),
  (1010, 22, 10),
  (1020, 5, 1),
  (1020, 1, 2),
  (1020, 4, 3),
  (1020, 3, 4),
  (1020, 2, 5),
  (1020, 7, 6),
  (1020, 25, 7),
  (2000, 5, 1),
  (2000, 24, 2),
  (2000, 1, 3),
  (2000, 4, 4),
  (2000, 2, 5),
  (2000, 10, 6),
  (2003, 5, 1),
  (2003, 24, 2),
  (2003, 1, 3),
  (2003, 4, 4),
  (2003, 2, 5),
  (2003, 6, 6),
  (2003, 10, 7),
  (4000, 9, 1),
  (4000, 11, 2),
  (4000, 8, 3),
  (4000, 13, 4),
  (4000, 14, 5),
  (4000, 15, 6),
  (4000, 16, 7),
  (4000, 17, 8),
  (4000, 18, 9),
  (4000, 23, 10),
  (4000, 3, 11)
on conflict (framework_id, standard_question_id) do update set sort_order = excluded.sort_order
  where framework_standard_questions.sort_order is distinct from excluded.sort_order;

-- ---- system (demographic) questions --------------------------------------------------------------
-- SPEC 3 system questions; 60 'can drink alcohol' has no id in the spec (ours). is_always_shown marks
-- SPEC 3's always-shown demographic filters.
insert into system_question (id, question_label, question_code, question_text, is_filterable, is_always_shown, sort_order) values
  (51, 'Age group', 'AGE', 'How old are you?', true, true, 1),
  (45, 'Gender', 'GENDER', 'Which gender do you identify as?', true, true, 2),
  (42, 'Region', 'REGION', 'Where do you live?', true, true, 3),
  (37, 'Household structure', 'HOUSEHOLD', 'Which best describes your household?', true, true, 4),
  (60, 'Can drink alcohol', 'ALCOHOL', 'Are you of legal drinking age where you live, and do you drink alcohol, even occasionally?', true, true, 5),
  (41, 'Ethnicity', 'ETHNICITY', 'Which ethnic group do you belong to?', true, false, 6),
  (46, 'Household income', 'INCOME', 'What is your household''s total income before tax?', true, false, 7),
  (43, 'Technology adoption', 'TECH_ADOPTION', 'Which statement best describes you when it comes to new technology?', true, false, 8)
on conflict (id) do update set
  (question_label, question_code, question_text, is_filterable, is_always_shown, sort_order) =
  (excluded.question_label, excluded.question_code, excluded.question_text, excluded.is_filterable, excluded.is_always_shown, excluded.sort_order)
  where (system_question.question_label, system_question.question_code, system_question.question_text, system_question.is_filterable, system_question.is_always_shown, system_question.sort_order)
    is distinct from (excluded.question_label, excluded.question_code, excluded.question_text, excluded.is_filterable, excluded.is_always_shown, excluded.sort_order);

-- System question options (ours; see docs/reference-data.md). id = question * 100000 + region key * 100 + n,
-- region key = the region id (0 for every region, 999 for Other markets). Age, gender, household,
-- alcohol and technology adoption are the same everywhere (region null); region, ethnicity and
-- income are per market.
insert into system_question_option (id, system_question_id, region_id, answer_label, filter_subtext, is_visible, sort_order) values
  (5100001, 51, null, '18-24', null, true, 1),
  (5100002, 51, null, '25-34', null, true, 2),
  (5100003, 51, null, '35-44', null, true, 3),
  (5100004, 51, null, '45-54', null, true, 4),
  (5100005, 51, null, '55-64', null, true, 5),
  (5100006, 51, null, '65+', null, true, 6),
  (4500001, 45, null, 'Male', null, true, 1),
  (4500002, 45, null, 'Female', null, true, 2),
  (4500003, 45, null, 'Another gender', null, true, 3),
  (3700001, 37, null, 'Single, no children at home', null, true, 1),
  (3700002, 37, null, 'Couple, no children at home', null, true, 2),
  (3700003, 37, null, 'Family with children at home', null, true, 3),
  (3700004, 37, null, 'Single parent with children at home', null, true, 4),
  (3700005, 37, null, 'Flatting or shared household', null, true, 5),
  (3700006, 37, null, 'Living with parents or other family', null, true, 6),
  (6000001, 60, null, 'Yes', null, true, 1),
  (6000002, 60, null, 'No', null, true, 2),
  (4300001, 43, null, 'I am usually the first to try new technology', null, true, 1),
  (4300002, 43, null, 'I try new technology before most people', null, true, 2),
  (4300003, 43, null, 'I try new technology once it is proven', null, true, 3),
  (4300004, 43, null, 'I try new technology once most people have it', null, true, 4),
  (4300005, 43, null, 'I avoid new technology as long as I can', null, true, 5),
  (4200101, 42, 1, 'Northland', null, true, 1),
  (4200102, 42, 1, 'Auckland', null, true, 2),
  (4200103, 42, 1, 'Waikato', null, true, 3),
  (4200104, 42, 1, 'Bay of Plenty', null, true, 4),
  (4200105, 42, 1, 'Gisborne', null, true, 5),
  (4200106, 42, 1, 'Hawke''s Bay', null, true, 6),
  (4200107, 42, 1, 'Taranaki', null, true, 7),
  (4200108, 42, 1, 'Manawatū-Whanganui', null, true, 8),
  (4200109, 42, 1, 'Wellington', null, true, 9),
  (4200110, 42, 1, 'Tasman', null, true, 10),
  (4200111, 42, 1, 'Nelson', null, true, 11),
  (4200112, 42, 1, 'Marlborough', null, true, 12),
  (4200113, 42, 1, 'West Coast', null, true, 13),
  (4200114, 42, 1, 'Canterbury', null, true, 14),
  (4200115, 42, 1, 'Otago', null, true, 15),
  (4200116, 42, 1, 'Southland', null, true, 16),
  (4200201, 42, 2, 'New South Wales', null, true, 1),
  (4200202, 42, 2, 'Victoria', null, true, 2),
  (4200203, 42, 2, 'Queensland', null, true, 3),
  (4200204, 42, 2, 'Western Australia', null, true, 4),
  (4200205, 42, 2, 'South Australia', null, true, 5),
  (4200206, 42, 2, 'Tasmania', null, true, 6),
  (4200207, 42, 2, 'Australian Capital Territory', null, true, 7),
  (4200208, 42, 2, 'Northern Territory', null, true, 8),
  (4201501, 42, 15, 'Northeast', null, true, 1),
  (4201502, 42, 15, 'Midwest', null, true, 2),
  (4201503, 42, 15, 'South', null, true, 3),
  (4201504, 42, 15, 'West', null, true, 4),
  (4201701, 42, 17, 'Central', null, true, 1),
  (4201702, 42, 17, 'East', null, true, 2),
  (4201703, 42, 17, 'North', null, true, 3),
  (4201704, 42, 17, 'North-East', null, true, 4),
  (4201705, 42, 17, 'West', null, true, 5),
  (4299901, 42, 999999, 'United Kingdom', null, true, 1),
  (4299902, 42, 999999, 'Ireland', null, true, 2),
  (4299903, 42, 999999, 'Canada', null, true, 3),
  (4299904, 42, 999999, 'Southeast Asia', null, true, 4),
  (4299905, 42, 999999, 'Europe (other)', null, true, 5),
  (4299906, 42, 999999, 'Elsewhere', null, true, 6),
  (4100101, 41, 1, 'European', null, true, 1),
  (4100102, 41, 1, 'Māori', null, true, 2),
  (4100103, 41, 1, 'Pacific Peoples', null, true, 3),
  (4100104, 41, 1, 'Asian', null, true, 4),
  (4100105, 41, 1, 'Middle Eastern, Latin American or African', null, true, 5),
  (4100106, 41, 1, 'Other ethnicity', null, true, 6),
  (4100107, 41, 1, 'Prefer not to say', null, true, 7),
  (4100201, 41, 2, 'Australian or New Zealander', null, true, 1),
  (4100202, 41, 2, 'Aboriginal and/or Torres Strait Islander', null, true, 2),
  (4100203, 41, 2, 'European', null, true, 3),
  (4100204, 41, 2, 'Asian', null, true, 4),
  (4100205, 41, 2, 'Middle Eastern or African', null, true, 5),
  (4100206, 41, 2, 'Other', null, true, 6),
  (4100207, 41, 2, 'Prefer not to say', null, true, 7),
  (4101501, 41, 15, 'White', null, true, 1),
  (4101502, 41, 15, 'Black or African American', null, true, 2),
  (4101503, 41, 15, 'Hispanic or Latino', null, true, 3),
  (4101504, 41, 15, 'Asian', null, true, 4),
  (4101505, 41, 15, 'American Indian or Alaska Native', null, true, 5),
  (4101506, 41, 15, 'Native Hawaiian or Pacific Islander', null, true, 6),
  (4101507, 41, 15, 'Two or more, or other', null, true, 7),
  (4101508, 41, 15, 'Prefer not to say', null, true, 8),
  (4101701, 41, 17, 'Chinese', null, true, 1),
  (4101702, 41, 17, 'Malay', null, true, 2),
  (4101703, 41, 17, 'Indian', null, true, 3),
  (4101704, 41, 17, 'Others', null, true, 4),
  (4101705, 41, 17, 'Prefer not to say', null, true, 5),
  (4199901, 41, 999999, 'White or European', null, true, 1),
  (4199902, 41, 999999, 'Asian', null, true, 2),
  (4199903, 41, 999999, 'Black or African', null, true, 3),
  (4199904, 41, 999999, 'Hispanic or Latino', null, true, 4),
  (4199905, 41, 999999, 'Middle Eastern', null, true, 5),
  (4199906, 41, 999999, 'Mixed or other', null, true, 6),
  (4199907, 41, 999999, 'Prefer not to say', null, true, 7),
  (4600101, 46, 1, 'Under $30,000', 'NZD, per year before tax', true, 1),
  (4600102, 46, 1, '$30,000 - $49,999', 'NZD, per year before tax', true, 2),
  (4600103, 46, 1, '$50,000 - $69,999', 'NZD, per year before tax', true, 3),
  (4600104, 46, 1, '$70,000 - $99,999', 'NZD, per year before tax', true, 4),
  (4600105, 46, 1, '$100,000 - $149,999', 'NZD, per year before tax', true, 5),
  (4600106, 46, 1, '$150,000 or more', 'NZD, per year before tax', true, 6),
  (4600107, 46, 1, 'Prefer not to say', 'NZD, per year before tax', true, 7),
  (4600201, 46, 2, 'Under $40,000', 'AUD, per year before tax', true, 1),
  (4600202, 46, 2, '$40,000 - $79,999', 'AUD, per year before tax', true, 2),
  (4600203, 46, 2, '$80,000 - $119,999', 'AUD, per year before tax', true, 3),
  (4600204, 46, 2, '$120,000 - $159,999', 'AUD, per year before tax', true, 4),
  (4600205, 46, 2, '$160,000 - $199,999', 'AUD, per year before tax', true, 5),
  (4600206, 46, 2, '$200,000 or more', 'AUD, per year before tax', true, 6),
  (4600207, 46, 2, 'Prefer not to say', 'AUD, per year before tax', true, 7),
  (4601501, 46, 15, 'Under $25,000', 'USD, per year before tax', true, 1),
  (4601502, 46, 15, '$25,000 - $49,999', 'USD, per year before tax', true, 2),
  (4601503, 46, 15, '$50,000 - $74,999', 'USD, per year before tax', true, 3),
  (4601504, 46, 15, '$75,000 - $99,999', 'USD, per year before tax', true, 4),
  (4601505, 46, 15, '$100,000 - $149,999', 'USD, per year before tax', true, 5),
  (4601506, 46, 15, '$150,000 or more', 'USD, per year before tax', true, 6),
  (4601507, 46, 15, 'Prefer not to say', 'USD, per year before tax', true, 7),
  (4601701, 46, 17, 'Under $3,000', 'SGD, per month before tax', true, 1),
  (4601702, 46, 17, '$3,000 - $5,999', 'SGD, per month before tax', true, 2),
  (4601703, 46, 17, '$6,000 - $8,999', 'SGD, per month before tax', true, 3),
  (4601704, 46, 17, '$9,000 - $11,999', 'SGD, per month before tax', true, 4),
  (4601705, 46, 17, '$12,000 - $19,999', 'SGD, per month before tax', true, 5),
  (4601706, 46, 17, '$20,000 or more', 'SGD, per month before tax', true, 6),
  (4601707, 46, 17, 'Prefer not to say', 'SGD, per month before tax', true, 7),
  (4699901, 46, 999999, 'Under $25,000', 'USD, per year before tax', true, 1),
  (4699902, 46, 999999, '$25,000 - $49,999', 'USD, per year before tax', true, 2),
  (4699903, 46, 999999, '$50,000 - $74,999', 'USD, per year before tax', true, 3),
  (4699904, 46, 999999, '$75,000 - $99,999', 'USD, per year before tax', true, 4),
  (4699905, 46, 999999, '$100,000 - $149,999', 'USD, per year before tax', true, 5),
  (4699906, 46, 999999, '$150,000 or more', 'USD, per year before tax', true, 6),
  (4699907, 46, 999999, 'Prefer not to say', 'USD, per year before tax', true, 7)
on conflict (id) do update set
  (system_question_id, region_id, answer_label, filter_subtext, is_visible, sort_order) =
  (excluded.system_question_id, excluded.region_id, excluded.answer_label, excluded.filter_subtext, excluded.is_visible, excluded.sort_order)
  where (system_question_option.system_question_id, system_question_option.region_id, system_question_option.answer_label, system_question_option.filter_subtext, system_question_option.is_visible, system_question_option.sort_order)
    is distinct from (excluded.system_question_id, excluded.region_id, excluded.answer_label, excluded.filter_subtext, excluded.is_visible, excluded.sort_order);

-- US states take the USA's ethnicity and income options (same ids scheme, region key = state id).
-- They have no region options: the state is the region.
insert into system_question_option (id, system_question_id, region_id, answer_label, filter_subtext, is_visible, sort_order)
select o.system_question_id * 100000 + r.id * 100 + o.id % 100, o.system_question_id, r.id,
       o.answer_label, o.filter_subtext, o.is_visible, o.sort_order
from system_question_option o
cross join regions r
where o.region_id = 15 and o.system_question_id in (41, 46) and r.is_us_state
order by 1
on conflict (id) do update set
  (system_question_id, region_id, answer_label, filter_subtext, is_visible, sort_order) =
  (excluded.system_question_id, excluded.region_id, excluded.answer_label, excluded.filter_subtext, excluded.is_visible, excluded.sort_order)
  where (system_question_option.system_question_id, system_question_option.region_id, system_question_option.answer_label,
         system_question_option.filter_subtext, system_question_option.is_visible, system_question_option.sort_order)
    is distinct from (excluded.system_question_id, excluded.region_id, excluded.answer_label, excluded.filter_subtext,
                      excluded.is_visible, excluded.sort_order);

-- Census margins for rim weighting on age group (adults 18+), gender and region, per market
-- (approximate shares rounded to 0.1 point; see docs/reference-data.md for sources and caveats).
-- 'Another gender' has no census margin: respondents without a margin are left out of that variable.
insert into census_margins (region_id, system_question_option_id, share, source) values
  (1, 5100001, 0.117, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 5100002, 0.189, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 5100003, 0.169, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 5100004, 0.161, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 5100005, 0.154, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 5100006, 0.21, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4500001, 0.49, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4500002, 0.51, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200101, 0.039, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200102, 0.334, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200103, 0.1, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200104, 0.069, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200105, 0.01, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200106, 0.035, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200107, 0.025, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200108, 0.05, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200109, 0.104, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200110, 0.012, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200111, 0.01, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200112, 0.01, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200113, 0.006, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200114, 0.128, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200115, 0.048, 'Stats NZ, 2023 Census (usually resident population)'),
  (1, 4200116, 0.02, 'Stats NZ, 2023 Census (usually resident population)'),
  (2, 5100001, 0.113, 'ABS, 2021 Census of Population and Housing'),
  (2, 5100002, 0.183, 'ABS, 2021 Census of Population and Housing'),
  (2, 5100003, 0.172, 'ABS, 2021 Census of Population and Housing'),
  (2, 5100004, 0.16, 'ABS, 2021 Census of Population and Housing'),
  (2, 5100005, 0.151, 'ABS, 2021 Census of Population and Housing'),
  (2, 5100006, 0.221, 'ABS, 2021 Census of Population and Housing'),
  (2, 4500001, 0.492, 'ABS, 2021 Census of Population and Housing'),
  (2, 4500002, 0.508, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200201, 0.318, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200202, 0.257, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200203, 0.202, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200204, 0.104, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200205, 0.07, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200206, 0.022, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200207, 0.018, 'ABS, 2021 Census of Population and Housing'),
  (2, 4200208, 0.009, 'ABS, 2021 Census of Population and Housing'),
  (15, 5100001, 0.118, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 5100002, 0.176, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 5100003, 0.166, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 5100004, 0.157, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 5100005, 0.165, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 5100006, 0.218, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4500001, 0.487, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4500002, 0.513, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4201501, 0.171, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4201502, 0.208, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4201503, 0.384, 'US Census Bureau, 2020 Census (DHC)'),
  (15, 4201504, 0.237, 'US Census Bureau, 2020 Census (DHC)'),
  (17, 5100001, 0.1, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 5100002, 0.175, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 5100003, 0.185, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 5100004, 0.18, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 5100005, 0.174, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 5100006, 0.186, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4500001, 0.489, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4500002, 0.511, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4201701, 0.228, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4201702, 0.172, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4201703, 0.146, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4201704, 0.23, 'Department of Statistics Singapore, Census of Population 2020 (residents)'),
  (17, 4201705, 0.224, 'Department of Statistics Singapore, Census of Population 2020 (residents)')
on conflict (region_id, system_question_option_id) do update set
  (share, source) =
  (excluded.share, excluded.source)
  where (census_margins.share, census_margins.source)
    is distinct from (excluded.share, excluded.source);

-- ---- people -------------------------------------------------------------------------------------
-- The backend services user (SPEC 9): the actor of jobs and system writes. No password, so no one
-- can sign in as it; .invalid is a reserved domain, so it never receives mail.
insert into users (id, email, first_name, last_name, is_staff, role_id) values
  (5380, 'backend-services@ideally.invalid', 'Backend', 'Services', true, 2)
on conflict (id) do update set
  (email, first_name, last_name, is_staff, role_id) =
  (excluded.email, excluded.first_name, excluded.last_name, excluded.is_staff, excluded.role_id)
  where (users.email, users.first_name, users.last_name, users.is_staff, users.role_id)
    is distinct from (excluded.email, excluded.first_name, excluded.last_name, excluded.is_staff, excluded.role_id);

-- Ids inserted above must not be handed out again by identity columns.
select sync_identity_sequences();
