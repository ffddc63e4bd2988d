-- 0039: an invited person may also decline (issue 19, finding 6: existing accounts are invited, not
-- added). Like accepting, the person is not a member of the inviting client, so row-level security
-- would hide the row from a delete; this removes the caller's own live invitation of that client.
-- Returns true when there was one.
create or replace function app_decline_membership(p_client int) returns boolean
language plpgsql volatile security definer set search_path = public as $$
declare
  v_user int := (select app_user_id());
  v_found boolean;
begin
  if v_user is null then return false; end if;
  delete from pending_memberships where client_id = p_client and user_id = v_user and expires_at > now()
  returning true into v_found;
  return coalesce(v_found, false);
end $$;
