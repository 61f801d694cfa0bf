-- @svc/gateway-kit-postgres migration 002: job writes of one instance coalesced into one statement.
--
-- `svc_gateway` is the schema name (replaced as in 001). Adds one function; no table changes.
--
-- write_jobs runs a batch of creates and updates, each exactly as create_job / update_job run it
-- alone (it calls them), in one transaction: one round trip and one commit for the batch instead
-- of one per write. Rows are written in job id order (ties in the order given), so two batches
-- lock the rows they share in the same order. Argument arrays are parallel: element i of each is
-- write i. p_kind[i] is 'create' or 'update'; the fields a kind does not use are NULL.
--
-- Any error inside the batch (a deadlock with another transaction, a value a column refuses)
-- rolls the whole batch back and answers 'retry' for every write: nothing of it is stored, and
-- the store sends each write again alone, so that an error reaches only the caller it belongs to.
-- (The block's savepoint is the batch's only subtransaction.)

CREATE FUNCTION svc_gateway.write_jobs(
  p_kind text[], p_job_id text[], p_owner_id text[], p_status text[], p_expected integer[],
  p_claim text[], p_invocation_id text[], p_action_id text[], p_action_name text[],
  p_created_at text[], p_deadline_at text[], p_output_text text[], p_machine_summary text[],
  p_data_schema_version text[], p_data text[], p_error text[], p_payload text[],
  p_approval_id text[], p_request text[],
  p_max_jobs bigint, p_lease_owner text, p_lease_ms bigint, p_retention_ms bigint,
  p_callback_ttl_ms bigint, p_max_finished bigint
) RETURNS TABLE (ord integer, reply svc_gateway.job_reply)
LANGUAGE plpgsql AS $$
DECLARE
  i integer;
  v_ords integer[] := '{}';
  v_replies svc_gateway.job_reply[] := '{}';
BEGIN
  BEGIN
    FOR i IN
      SELECT o FROM generate_subscripts(p_job_id, 1) o ORDER BY p_job_id[o] COLLATE "C", o
    LOOP
      v_ords := array_append(v_ords, i);
      IF p_kind[i] = 'create' THEN
        v_replies := array_append(v_replies, svc_gateway.create_job(p_job_id[i], p_owner_id[i], p_status[i],
          p_max_jobs, p_lease_owner, p_lease_ms, p_invocation_id[i], p_action_id[i],
          p_action_name[i], p_created_at[i], p_deadline_at[i], p_output_text[i],
          p_machine_summary[i], p_data_schema_version[i], p_data[i], p_error[i], p_payload[i],
          p_approval_id[i], p_request[i]));
      ELSE
        v_replies := array_append(v_replies, svc_gateway.update_job(p_job_id[i], p_expected[i], p_status[i],
          p_retention_ms, p_lease_owner, p_lease_ms, p_claim[i], p_callback_ttl_ms,
          p_output_text[i], p_machine_summary[i], p_data_schema_version[i], p_data[i],
          p_error[i], p_payload[i], p_max_finished));
      END IF;
    END LOOP;
  EXCEPTION WHEN OTHERS THEN
    FOR i IN SELECT generate_subscripts(p_job_id, 1) LOOP
      ord := i;
      reply := svc_gateway.reply('retry', NULL);
      RETURN NEXT;
    END LOOP;
    RETURN;
  END;
  FOR i IN 1 .. coalesce(array_length(v_ords, 1), 0) LOOP
    ord := v_ords[i];
    reply := v_replies[i];
    RETURN NEXT;
  END LOOP;
END
$$;
INSERT INTO svc_gateway.schema_migrations (version, name) VALUES (2, 'batched_writes');
