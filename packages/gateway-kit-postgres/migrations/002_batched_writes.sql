-- @svc/gateway-kit-postgres migration 002: job writes of one instance coalesced into one statement.
--
-- `svc_gateway` is the schema name (replaced as in 001). Replaces trim_share (cheaper, same
-- rule) and create_job (now create_job_row + the count), adds write_jobs; no table changes.
--
-- write_jobs runs a batch of creates and updates, each as create_job / update_job run it alone
-- (through the same per-row functions; the batch's new jobs are counted once, at its end), in one
-- transaction: one round trip and one commit for the batch instead of one per write. Rows are written in job id order (ties in the order given), so two batches
-- lock the rows they share in the same order. Argument arrays are parallel: element i of each is
-- write i. p_kind[i] is 'create' or 'update'; the fields a kind does not use are NULL.
--
-- Any error inside the batch (a deadlock with another transaction, a value a column refuses)
-- rolls the whole batch back and answers 'retry' for every write: nothing of it is stored, and
-- the store sends each write again alone, so that an error reaches only the caller it belongs to.
-- (The block's savepoint is the batch's only subtransaction.)

-- trim_share as in 001, without locking the p_max rows it keeps: 001's single
-- `… OFFSET p_max FOR UPDATE SKIP LOCKED` locked every row it skipped too (FOR UPDATE applies
-- below OFFSET), p_max row locks per trim. Now the cut is read first, unlocked, and only the
-- rows older than it are locked (skipping those another transaction holds) and deleted.
CREATE OR REPLACE FUNCTION svc_gateway.trim_share(p_share text, p_seq bigint, p_max bigint)
RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_cut bigint;
  v_deleted bigint;
BEGIN
  IF p_max <= 0 OR p_seq % 8 <> 0 THEN RETURN; END IF;
  SELECT finished_seq INTO v_cut FROM svc_gateway.jobs
  WHERE share = p_share AND finished_seq IS NOT NULL
  ORDER BY finished_seq DESC OFFSET p_max LIMIT 1;
  IF v_cut IS NULL THEN RETURN; END IF;
  WITH gone AS (
    DELETE FROM svc_gateway.jobs WHERE job_id IN (
      SELECT job_id FROM svc_gateway.jobs
      WHERE share = p_share AND finished_seq IS NOT NULL AND finished_seq <= v_cut
      FOR UPDATE SKIP LOCKED)
    RETURNING 1)
  SELECT count(*) INTO v_deleted FROM gone;
  PERFORM svc_gateway.count_add('jobs', -v_deleted);
END
$$;

-- create_job's body (001), except that the job it creates is counted by its caller: the count
-- is bumped once per batch (write_jobs) instead of once per job; p_uncounted is how many jobs the
-- caller created and has not counted yet, so the maxJobs check stays exact within a batch.
-- Results: created | exists | full.
CREATE FUNCTION svc_gateway.create_job_row(
  p_job_id text, p_owner_id text, p_status text, p_max_jobs bigint, p_lease_owner text,
  p_lease_ms bigint, p_invocation_id text, p_action_id text, p_action_name text,
  p_created_at text, p_deadline_at text, p_output_text text, p_machine_summary text,
  p_data_schema_version text, p_data text, p_error text, p_payload text, p_approval_id text,
  p_request text, p_uncounted bigint
) RETURNS svc_gateway.job_reply
LANGUAGE plpgsql AS $$
DECLARE
  r svc_gateway.jobs;
  v_total bigint;
  v_evicted integer;
BEGIN
  SELECT * INTO r FROM svc_gateway.jobs WHERE job_id = p_job_id;
  IF FOUND THEN
    IF r.expires_at IS NULL OR r.expires_at > clock_timestamp() THEN
      RETURN svc_gateway.reply('exists', r);
    END IF;
    -- Its retention ran out: as good as absent.
    DELETE FROM svc_gateway.jobs WHERE job_id = p_job_id AND expires_at <= clock_timestamp();
    GET DIAGNOSTICS v_evicted = ROW_COUNT;
    PERFORM svc_gateway.count_add('jobs', -v_evicted);
  END IF;
  IF p_max_jobs > 0 THEN
    SELECT sum(n) + p_uncounted INTO v_total FROM svc_gateway.counts WHERE name = 'jobs';
    WHILE v_total >= p_max_jobs LOOP
      -- Evict the earliest-finished job of the share holding the most finished jobs (one
      -- principal's churn never evicts another's); active jobs are never evicted.
      DELETE FROM svc_gateway.jobs WHERE job_id = (
        SELECT job_id FROM svc_gateway.jobs
        WHERE finished_seq IS NOT NULL AND share = (
          SELECT share FROM svc_gateway.jobs WHERE finished_seq IS NOT NULL
          GROUP BY share ORDER BY count(*) DESC, min(finished_seq) LIMIT 1)
        ORDER BY finished_seq LIMIT 1 FOR UPDATE SKIP LOCKED);
      GET DIAGNOSTICS v_evicted = ROW_COUNT;
      IF v_evicted = 0 THEN
        RETURN svc_gateway.reply('full', NULL);
      END IF;
      PERFORM svc_gateway.count_add('jobs', -1);
      v_total := v_total - 1;
    END LOOP;
  END IF;
  INSERT INTO svc_gateway.jobs (job_id, owner_id, status, version, cancel_requested, updated_at,
    invocation_id, action_id, action_name, created_at, deadline_at, output_text, machine_summary,
    data_schema_version, data, error, payload, approval_id, request, share, lease_owner,
    lease_expires_at)
  VALUES (p_job_id, p_owner_id, p_status, 1, false, date_trunc('milliseconds', clock_timestamp()),
    p_invocation_id, p_action_id, p_action_name, p_created_at, p_deadline_at, p_output_text,
    p_machine_summary, p_data_schema_version, p_data, p_error, p_payload, p_approval_id, p_request,
    p_owner_id || CASE WHEN p_approval_id IS NULL THEN '' ELSE E'\napproved' END, p_lease_owner,
    clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0))
  ON CONFLICT (job_id) DO NOTHING
  RETURNING * INTO r;
  IF NOT FOUND THEN
    SELECT * INTO r FROM svc_gateway.jobs WHERE job_id = p_job_id;
    RETURN svc_gateway.reply('exists', r);
  END IF;
  RETURN svc_gateway.reply('created', r);
END
$$;

-- create_job as in 001, through create_job_row.
CREATE OR REPLACE FUNCTION svc_gateway.create_job(
  p_job_id text, p_owner_id text, p_status text, p_max_jobs bigint, p_lease_owner text,
  p_lease_ms bigint, p_invocation_id text, p_action_id text, p_action_name text,
  p_created_at text, p_deadline_at text, p_output_text text, p_machine_summary text,
  p_data_schema_version text, p_data text, p_error text, p_payload text, p_approval_id text,
  p_request text
) RETURNS svc_gateway.job_reply
LANGUAGE plpgsql AS $$
DECLARE
  v svc_gateway.job_reply;
BEGIN
  v := svc_gateway.create_job_row(p_job_id, p_owner_id, p_status, p_max_jobs, p_lease_owner,
    p_lease_ms, p_invocation_id, p_action_id, p_action_name, p_created_at, p_deadline_at,
    p_output_text, p_machine_summary, p_data_schema_version, p_data, p_error, p_payload,
    p_approval_id, p_request, 0);
  IF v.result = 'created' THEN PERFORM svc_gateway.count_add('jobs', 1); END IF;
  RETURN v;
END
$$;

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
  v_reply svc_gateway.job_reply;
  v_uncounted bigint := 0;
BEGIN
  BEGIN
    FOR i IN
      SELECT o FROM generate_subscripts(p_job_id, 1) o ORDER BY p_job_id[o] COLLATE "C", o
    LOOP
      v_ords := array_append(v_ords, i);
      IF p_kind[i] = 'create' THEN
        v_reply := svc_gateway.create_job_row(p_job_id[i], p_owner_id[i], p_status[i],
          p_max_jobs, p_lease_owner, p_lease_ms, p_invocation_id[i], p_action_id[i],
          p_action_name[i], p_created_at[i], p_deadline_at[i], p_output_text[i],
          p_machine_summary[i], p_data_schema_version[i], p_data[i], p_error[i], p_payload[i],
          p_approval_id[i], p_request[i], v_uncounted);
        IF v_reply.result = 'created' THEN v_uncounted := v_uncounted + 1; END IF;
        v_replies := array_append(v_replies, v_reply);
      ELSE
        v_replies := array_append(v_replies, svc_gateway.update_job(p_job_id[i], p_expected[i], p_status[i],
          p_retention_ms, p_lease_owner, p_lease_ms, p_claim[i], p_callback_ttl_ms,
          p_output_text[i], p_machine_summary[i], p_data_schema_version[i], p_data[i],
          p_error[i], p_payload[i], p_max_finished));
      END IF;
    END LOOP;
    -- The batch's new jobs counted at once: one update of this backend's counter row, last, so
    -- the row is locked for the end of the transaction only.
    PERFORM svc_gateway.count_add('jobs', v_uncounted);
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
