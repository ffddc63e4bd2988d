-- 0031: an assistant answer of the results chat names the question it answers, so the job that
-- writes it runs at most once per question (pg-boss delivers at least once).
alter table results_ai_messages
  add column reply_to_message_id integer references results_ai_messages (id) on delete cascade;
create unique index results_ai_messages_one_answer on results_ai_messages (reply_to_message_id) where reply_to_message_id is not null;
