-- A test option added without a sort order goes last in its project (the generic POST of
-- TestOptions answers with it; ties from concurrent inserts fall back to the id order).
create or replace function test_options_default_order() returns trigger
language plpgsql as $$
begin
  if new.sort_order is null or new.sort_order = 0 then
    select coalesce(max(t.sort_order), 0) + 1 into new.sort_order
    from test_options t where t.project_id = new.project_id;
  end if;
  return new;
end $$;

create trigger test_options_default_order before insert on test_options
  for each row execute function test_options_default_order();
