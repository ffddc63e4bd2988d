-- 0024: the Newton-Miller-Smith (1993) follow-ups of the price questions: how likely a respondent is
-- to buy at their own bargain (standard question 20) and getting-expensive (21) prices, 5 very
-- likely .. 1 very unlikely, kept on that price's response row.
alter table responses
  add column purchase_intent smallint check (purchase_intent between 1 and 5);
