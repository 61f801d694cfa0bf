-- @svc/gateway-kit-postgres migration 001: jobs, records, sets and the callback outbox.
--
-- `svc_gateway` is the schema name; `migrate({ schema })` and `svc-gateway-postgres migrate
-- --schema NAME` replace it (as a quoted identifier) before running this file. To apply it with
-- psql instead, replace it yourself, e.g.
--   sed 's/svc_gateway/acme_gateway/g' 001_initial.sql | psql "$DATABASE_URL" -v ON_ERROR_STOP=1 --single-transaction
-- Needs no extension (PL/pgSQL is built in). Every time is the database server's clock. Range
-- scans compare with now() (the statement's transaction start, usable as an index condition);
-- single-row checks with clock_timestamp().
-- JSON values are stored as JSON text (`text`, not `jsonb`): they round-trip byte for byte,
-- including escapes such as \u0000 that jsonb refuses.

CREATE SCHEMA IF NOT EXISTS svc_gateway;

CREATE TABLE IF NOT EXISTS svc_gateway.schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
);

-- Jobs. `owner_id` is the principal that created the job (per-principal retention or quotas
-- can use jobs_owner_idx). Contract fields other than job_id, owner_id, status, version,
-- cancel_requested and updated_at hold the JSON text of the StoredJob field.
CREATE TABLE svc_gateway.jobs (
  job_id text COLLATE "C" PRIMARY KEY,
  owner_id text COLLATE "C" NOT NULL,
  status text NOT NULL CHECK (status IN ('queued', 'running', 'completed', 'failed', 'cancelled')),
  version integer NOT NULL,
  cancel_requested boolean NOT NULL DEFAULT false,
  updated_at timestamptz NOT NULL,
  invocation_id text NOT NULL,
  action_id text NOT NULL,
  action_name text NOT NULL,
  created_at text NOT NULL,
  deadline_at text,
  output_text text,
  machine_summary text,
  data_schema_version text,
  data text,
  error text,
  payload text,
  approval_id text,
  -- What the caller sent (input, context) as the gateway encodes it; dropped when the job ends.
  request text,
  -- The principal's retention share: owner_id, or owner_id + E'\napproved' for the jobs of
  -- approved actions (kept apart, so the principal's churn never evicts an approval's job).
  share text COLLATE "C" NOT NULL,
  -- Queued and running jobs: the instance that runs the job and until when its lease holds.
  lease_owner text,
  lease_expires_at timestamptz,
  -- Finished jobs: finish order (eviction order), end of retention, and when another instance
  -- reports the job unless the gateway announced its end first (NULL once announced).
  finished_seq bigint,
  expires_at timestamptz,
  announce_at timestamptz
);
CREATE SEQUENCE svc_gateway.jobs_finished_seq;
-- Worker-loss sweep: active jobs by lease end.
CREATE INDEX jobs_lease_idx ON svc_gateway.jobs (lease_expires_at) WHERE finished_seq IS NULL;
-- Eviction when full: earliest-finished first.
CREATE INDEX jobs_finished_idx ON svc_gateway.jobs (finished_seq) WHERE finished_seq IS NOT NULL;
-- Retention: batched deletes by expiry.
CREATE INDEX jobs_expires_idx ON svc_gateway.jobs (expires_at) WHERE expires_at IS NOT NULL;
-- Unannounced-jobs sweep.
CREATE INDEX jobs_announce_idx ON svc_gateway.jobs (announce_at) WHERE announce_at IS NOT NULL;
-- Per principal (operators' queries) and per retention share (eviction when full).
CREATE INDEX jobs_owner_idx ON svc_gateway.jobs (owner_id, finished_seq);
CREATE INDEX jobs_share_idx ON svc_gateway.jobs (share, finished_seq) WHERE finished_seq IS NOT NULL;

-- Row counts for the maxJobs / maxRecords bounds, sharded by backend so that concurrent writers
-- do not queue on one row; only the sum means anything.
CREATE TABLE svc_gateway.counts (
  name text NOT NULL,
  shard integer NOT NULL,
  n bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (name, shard)
);
INSERT INTO svc_gateway.counts (name, shard)
  SELECT name, shard FROM unnest(ARRAY['jobs', 'records']) AS name, generate_series(0, 15) AS shard;

-- Idempotency and approval records (RecordStore).
CREATE TABLE svc_gateway.records (
  key text COLLATE "C" PRIMARY KEY,
  value text NOT NULL,
  version integer NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX records_expires_idx ON svc_gateway.records (expires_at);

-- Time-ordered sets (quotas, approvals index): expiry in ms of the server clock.
CREATE TABLE svc_gateway.set_members (
  set_name text COLLATE "C" NOT NULL,
  member text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (set_name, member)
);
CREATE INDEX set_members_order_idx ON svc_gateway.set_members (set_name, expires_at, member);
CREATE INDEX set_members_expires_idx ON svc_gateway.set_members (expires_at);

-- The callback outbox: pending callbacks, due by `due_at`; a claim is a due time in the future.
CREATE TABLE svc_gateway.outbox (
  webhook_id text COLLATE "C" PRIMARY KEY,
  url text NOT NULL,
  payload text NOT NULL,
  "authorization" text,
  attempts integer NOT NULL DEFAULT 0,
  claim text,
  due_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  -- The job (and its principal) a job-result callback belongs to; NULL for other callbacks.
  job_id text,
  owner_id text,
  -- A delivered (or abandoned) job-result callback stays until it expires, so that reporting the
  -- same job's end again (another instance's unannounced sweep) cannot send it twice.
  done boolean NOT NULL DEFAULT false
);
CREATE INDEX outbox_due_idx ON svc_gateway.outbox (due_at) WHERE NOT done;
CREATE INDEX outbox_expires_idx ON svc_gateway.outbox (expires_at);
-- Per-principal shares of the outbox (owner_id: the principal, '' for anonymous).
CREATE INDEX outbox_owner_idx ON svc_gateway.outbox (owner_id) WHERE NOT done;

-- The answer of every job function: what happened, and the job as the store returns it.
CREATE TYPE svc_gateway.job_reply AS (
  result text,
  job_id text,
  owner_id text,
  status text,
  version integer,
  cancel_requested boolean,
  updated_at text,
  invocation_id text,
  action_id text,
  action_name text,
  created_at text,
  deadline_at text,
  output_text text,
  machine_summary text,
  data_schema_version text,
  data text,
  error text,
  payload text,
  approval_id text,
  request text
);

CREATE FUNCTION svc_gateway.reply(p_result text, j svc_gateway.jobs) RETURNS svc_gateway.job_reply
LANGUAGE sql IMMUTABLE AS $$
  SELECT p_result, j.job_id, j.owner_id, j.status, j.version, j.cancel_requested,
    to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    j.invocation_id, j.action_id, j.action_name, j.created_at, j.deadline_at, j.output_text,
    j.machine_summary, j.data_schema_version, j.data, j.error, j.payload, j.approval_id, j.request
$$;

CREATE FUNCTION svc_gateway.is_terminal(p_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$ SELECT p_status IN ('completed', 'failed', 'cancelled') $$;

CREATE FUNCTION svc_gateway.can_transition(p_from text, p_to text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT (p_from = 'queued' AND p_to IN ('running', 'cancelled', 'failed'))
      OR (p_from = 'running' AND p_to IN ('completed', 'failed', 'cancelled'))
$$;

-- The job resource of the contract as JSON text (the job-result callback body's `job`).
CREATE FUNCTION svc_gateway.job_resource(j svc_gateway.jobs) RETURNS text
LANGUAGE sql IMMUTABLE AS $$
  SELECT '{"jobId":' || to_json(j.job_id)::text
    || ',"invocationId":' || j.invocation_id
    || ',"status":' || to_json(j.status)::text
    || ',"createdAt":' || j.created_at
    || ',"updatedAt":"' || to_char(j.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"'
    || ',"actionId":' || j.action_id
    || ',"actionName":' || j.action_name
    || coalesce(',"outputText":' || j.output_text, '')
    || coalesce(',"machineSummary":' || j.machine_summary, '')
    || coalesce(',"dataSchemaVersion":' || j.data_schema_version, '')
    || coalesce(',"data":' || j.data, '')
    || coalesce(',"error":' || j.error, '')
    || '}'
$$;

-- A finished job's job-result callback: when its payload names a jobResultUrl and p_claim is not
-- NULL, it enters the outbox in the caller's transaction (the terminal write's), claimed by
-- p_claim for p_grace_ms, or due at once when p_claim is ''.
CREATE FUNCTION svc_gateway.store_job_callback(
  r svc_gateway.jobs, p_grace_ms bigint, p_claim text, p_callback_ttl_ms bigint
) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_callbacks json;
  v_url text;
BEGIN
  IF p_claim IS NULL OR r.payload IS NULL THEN RETURN; END IF;
  v_callbacks := (r.payload::json) -> 'callbacks';
  v_url := v_callbacks ->> 'jobResultUrl';
  IF v_url IS NULL OR v_url = '' THEN RETURN; END IF;
  INSERT INTO svc_gateway.outbox
    (webhook_id, url, payload, "authorization", attempts, claim, due_at, expires_at, job_id, owner_id)
  VALUES (
    'job_' || r.job_id || '_' || r.status, v_url,
    '{"job":' || svc_gateway.job_resource(r) || '}',
    v_callbacks ->> 'authorization', 0, nullif(p_claim, ''),
    CASE WHEN p_claim = '' THEN clock_timestamp()
      ELSE clock_timestamp() + make_interval(secs => p_grace_ms / 1000.0) END,
    clock_timestamp() + make_interval(secs => p_callback_ttl_ms / 1000.0),
    r.job_id, r.owner_id)
  ON CONFLICT (webhook_id) DO NOTHING;
END
$$;

CREATE FUNCTION svc_gateway.count_add(p_name text, p_delta bigint) RETURNS void
LANGUAGE sql AS $$
  UPDATE svc_gateway.counts SET n = n + p_delta
  WHERE name = p_name AND shard = pg_backend_pid() % 16 AND p_delta <> 0
$$;

-- Keeps at most p_max finished jobs in one retention share (a principal's, or its approved jobs'),
-- evicting its earliest-finished ones: one principal's churn never evicts another's. Runs for one
-- terminal write in 8 (finish sequence divisible by 8), so that its index scan of p_max entries is
-- amortised; a share may hold a few more than p_max meanwhile.
CREATE FUNCTION svc_gateway.trim_share(p_share text, p_seq bigint, p_max bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  v_deleted bigint;
BEGIN
  IF p_max <= 0 OR p_seq % 8 <> 0 THEN RETURN; END IF;
  WITH gone AS (
    DELETE FROM svc_gateway.jobs WHERE job_id IN (
      SELECT job_id FROM svc_gateway.jobs
      WHERE share = p_share AND finished_seq IS NOT NULL
      ORDER BY finished_seq DESC OFFSET p_max
      FOR UPDATE SKIP LOCKED)
    RETURNING 1)
  SELECT count(*) INTO v_deleted FROM gone;
  PERFORM svc_gateway.count_add('jobs', -v_deleted);
END
$$;

-- Create-if-absent, leased to p_lease_owner. Results: created | exists | full.
CREATE FUNCTION svc_gateway.create_job(
  p_job_id text, p_owner_id text, p_status text, p_max_jobs bigint, p_lease_owner text,
  p_lease_ms bigint, p_invocation_id text, p_action_id text, p_action_name text,
  p_created_at text, p_deadline_at text, p_output_text text, p_machine_summary text,
  p_data_schema_version text, p_data text, p_error text, p_payload text, p_approval_id text,
  p_request text
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
    SELECT sum(n) INTO v_total FROM svc_gateway.counts WHERE name = 'jobs';
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
  PERFORM svc_gateway.count_add('jobs', 1);
  RETURN svc_gateway.reply('created', r);
END
$$;

-- Compare-and-set on version with the state machine (p_status NULL: patch a non-terminal job).
-- Results: ok | not_found | conflict | invalid_transition.
CREATE FUNCTION svc_gateway.update_job(
  p_job_id text, p_expected integer, p_status text, p_retention_ms bigint, p_lease_owner text,
  p_lease_ms bigint, p_claim text, p_callback_ttl_ms bigint, p_output_text text,
  p_machine_summary text, p_data_schema_version text, p_data text, p_error text, p_payload text,
  p_max_finished bigint
) RETURNS svc_gateway.job_reply
LANGUAGE plpgsql AS $$
DECLARE
  r svc_gateway.jobs;
  v_finished boolean := p_status IS NOT NULL AND svc_gateway.is_terminal(p_status);
BEGIN
  -- The common case in one statement: the live row at the expected version, a legal move. (A
  -- concurrent writer's row lock makes this wait, then re-check the conditions on its result.)
  UPDATE svc_gateway.jobs SET
    status = coalesce(p_status, status),
    version = version + 1,
    updated_at = greatest(date_trunc('milliseconds', clock_timestamp()), updated_at),
    output_text = coalesce(p_output_text, output_text),
    machine_summary = coalesce(p_machine_summary, machine_summary),
    data_schema_version = coalesce(p_data_schema_version, data_schema_version),
    data = coalesce(p_data, data),
    error = coalesce(p_error, error),
    payload = coalesce(p_payload, payload),
    request = CASE WHEN v_finished THEN NULL ELSE request END,
    -- Started here: leased to this instance. Finished: the lease ends, the job joins the finish
    -- order, expires after retention and waits to be announced (all in this one row version).
    lease_owner = CASE WHEN v_finished THEN NULL
      WHEN p_status = 'running' AND status <> 'running' THEN p_lease_owner ELSE lease_owner END,
    lease_expires_at = CASE WHEN v_finished THEN NULL
      WHEN p_status = 'running' AND status <> 'running'
      THEN clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0) ELSE lease_expires_at END,
    finished_seq = CASE WHEN v_finished THEN nextval('svc_gateway.jobs_finished_seq') END,
    expires_at = CASE WHEN v_finished
      THEN clock_timestamp() + make_interval(secs => p_retention_ms / 1000.0) END,
    announce_at = CASE WHEN v_finished
      THEN clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0) END
  WHERE job_id = p_job_id AND version = p_expected
    AND (expires_at IS NULL OR expires_at > clock_timestamp())
    AND CASE WHEN p_status IS NULL THEN NOT svc_gateway.is_terminal(status)
      ELSE svc_gateway.can_transition(status, p_status) END
  RETURNING * INTO r;
  IF FOUND THEN
    IF v_finished THEN
      PERFORM svc_gateway.store_job_callback(r, p_lease_ms, p_claim, p_callback_ttl_ms);
      PERFORM svc_gateway.trim_share(r.share, r.finished_seq, p_max_finished);
    END IF;
    RETURN svc_gateway.reply('ok', r);
  END IF;
  -- Refused: say why, from the row as it is now. Version first: a stale writer must re-read
  -- before learning anything else.
  SELECT * INTO r FROM svc_gateway.jobs
  WHERE job_id = p_job_id AND (expires_at IS NULL OR expires_at > clock_timestamp());
  IF NOT FOUND THEN RETURN svc_gateway.reply('not_found', NULL); END IF;
  IF r.version <> p_expected THEN RETURN svc_gateway.reply('conflict', r); END IF;
  RETURN svc_gateway.reply('invalid_transition', r);
END
$$;

-- Cancels a queued or running job and NOTIFYs p_channel (delivered at commit).
-- Results: ok | not_found | invalid_transition.
CREATE FUNCTION svc_gateway.cancel_job(
  p_job_id text, p_retention_ms bigint, p_lease_ms bigint, p_channel text, p_claim text,
  p_callback_ttl_ms bigint, p_max_finished bigint
) RETURNS svc_gateway.job_reply
LANGUAGE plpgsql AS $$
DECLARE
  r svc_gateway.jobs;
BEGIN
  UPDATE svc_gateway.jobs SET
    status = 'cancelled', cancel_requested = true, version = version + 1, request = NULL,
    updated_at = greatest(date_trunc('milliseconds', clock_timestamp()), updated_at),
    lease_owner = NULL,
    lease_expires_at = NULL,
    finished_seq = nextval('svc_gateway.jobs_finished_seq'),
    expires_at = clock_timestamp() + make_interval(secs => p_retention_ms / 1000.0),
    announce_at = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0)
  WHERE job_id = p_job_id AND status IN ('queued', 'running')
  RETURNING * INTO r;
  IF NOT FOUND THEN
    SELECT * INTO r FROM svc_gateway.jobs
    WHERE job_id = p_job_id AND (expires_at IS NULL OR expires_at > clock_timestamp());
    IF NOT FOUND THEN RETURN svc_gateway.reply('not_found', NULL); END IF;
    RETURN svc_gateway.reply('invalid_transition', r);
  END IF;
  PERFORM svc_gateway.store_job_callback(r, p_lease_ms, p_claim, p_callback_ttl_ms);
  PERFORM svc_gateway.trim_share(r.share, r.finished_seq, p_max_finished);
  PERFORM pg_notify(p_channel, p_job_id);
  RETURN svc_gateway.reply('ok', r);
END
$$;

-- Fails up to p_limit queued or running jobs whose lease lapsed (their instance died) with
-- p_error; their callbacks enter the outbox claimed by p_claim. Returns the failed jobs.
CREATE FUNCTION svc_gateway.sweep_leases(
  p_retention_ms bigint, p_lease_ms bigint, p_error text, p_claim text, p_callback_ttl_ms bigint,
  p_limit integer, p_max_finished bigint
) RETURNS SETOF svc_gateway.job_reply
LANGUAGE plpgsql AS $$
DECLARE
  r svc_gateway.jobs;
BEGIN
  FOR r IN
    SELECT * FROM svc_gateway.jobs
    WHERE finished_seq IS NULL AND lease_expires_at < now()
    ORDER BY lease_expires_at LIMIT p_limit
    FOR UPDATE SKIP LOCKED
  LOOP
    UPDATE svc_gateway.jobs SET
      status = 'failed', version = version + 1, error = p_error, request = NULL,
      updated_at = greatest(date_trunc('milliseconds', clock_timestamp()), updated_at),
      lease_owner = NULL,
      lease_expires_at = NULL,
      finished_seq = nextval('svc_gateway.jobs_finished_seq'),
      expires_at = clock_timestamp() + make_interval(secs => p_retention_ms / 1000.0),
      announce_at = clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0)
    WHERE job_id = r.job_id
    RETURNING * INTO r;
    PERFORM svc_gateway.store_job_callback(r, p_lease_ms, p_claim, p_callback_ttl_ms);
    PERFORM svc_gateway.trim_share(r.share, r.finished_seq, p_max_finished);
    RETURN NEXT svc_gateway.reply('failed', r);
  END LOOP;
END
$$;

-- Create-if-absent of a record with a time to live. Returns (created 1 | exists 0 | full -1,
-- value, version).
CREATE FUNCTION svc_gateway.create_record(
  p_key text, p_value text, p_ttl_ms bigint, p_max_records bigint,
  OUT created integer, OUT value text, OUT version integer
)
LANGUAGE plpgsql AS $$
DECLARE
  v_total bigint;
  v_deleted integer;
BEGIN
  SELECT 0, r.value, r.version INTO created, value, version FROM svc_gateway.records r
  WHERE r.key = p_key AND r.expires_at > clock_timestamp();
  IF FOUND THEN RETURN; END IF;
  -- Only an expired record: a live one may have been created since the read above.
  DELETE FROM svc_gateway.records r WHERE r.key = p_key AND r.expires_at <= clock_timestamp();
  GET DIAGNOSTICS v_deleted = ROW_COUNT;
  PERFORM svc_gateway.count_add('records', -v_deleted);
  IF p_max_records > 0 THEN
    SELECT sum(n) INTO v_total FROM svc_gateway.counts WHERE name = 'records';
    IF v_total >= p_max_records THEN
      -- Expired records still count until the retention sweep deletes them: drop a batch now.
      WITH gone AS (
        DELETE FROM svc_gateway.records WHERE key IN (
          SELECT key FROM svc_gateway.records WHERE expires_at <= now()
          ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*) INTO v_deleted FROM gone;
      PERFORM svc_gateway.count_add('records', -v_deleted);
      IF v_total - v_deleted >= p_max_records THEN
        created := -1;
        RETURN;
      END IF;
    END IF;
  END IF;
  INSERT INTO svc_gateway.records (key, value, version, expires_at)
  VALUES (p_key, p_value, 1, clock_timestamp() + make_interval(secs => p_ttl_ms / 1000.0))
  ON CONFLICT (key) DO NOTHING;
  IF FOUND THEN
    PERFORM svc_gateway.count_add('records', 1);
    created := 1; value := p_value; version := 1;
    RETURN;
  END IF;
  SELECT 0, r.value, r.version INTO created, value, version FROM svc_gateway.records r WHERE r.key = p_key;
END
$$;

-- Adds (or extends) a set member; with p_max > 0 a new member is refused when the set holds
-- that many live members. Racing adds to one set are serialised by a transaction-scoped
-- advisory lock on the set. Returns whether the member is in the set afterwards.
CREATE FUNCTION svc_gateway.add_to_set(
  p_lock_class integer, p_set text, p_member text, p_ttl_ms bigint, p_max bigint
) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
  v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
  v_expires bigint := v_now + p_ttl_ms;
  v_current bigint;
  v_live bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(p_lock_class, hashtext(p_set));
  DELETE FROM svc_gateway.set_members WHERE set_name = p_set AND expires_at <= v_now;
  SELECT expires_at INTO v_current FROM svc_gateway.set_members
  WHERE set_name = p_set AND member = p_member;
  IF FOUND THEN
    IF v_current < v_expires THEN
      UPDATE svc_gateway.set_members SET expires_at = v_expires
      WHERE set_name = p_set AND member = p_member;
    END IF;
    RETURN true;
  END IF;
  IF p_max > 0 THEN
    SELECT count(*) INTO v_live FROM (
      SELECT 1 FROM svc_gateway.set_members WHERE set_name = p_set LIMIT p_max) s;
    IF v_live >= p_max THEN RETURN false; END IF;
  END IF;
  INSERT INTO svc_gateway.set_members (set_name, member, expires_at) VALUES (p_set, p_member, v_expires);
  RETURN true;
END
$$;

-- Stores a callback of principal p_owner claimed by p_claim. Returns ok | exists | full (the
-- outbox holds p_max pending entries, or the principal p_max_owner_items / p_max_owner_bytes).
-- Enqueues of one principal are serialised by a transaction-scoped advisory lock.
CREATE FUNCTION svc_gateway.enqueue_callback(
  p_webhook_id text, p_url text, p_payload text, p_authorization text, p_claim text,
  p_lease_ms bigint, p_max bigint, p_ttl_ms bigint, p_owner text, p_max_owner_items bigint,
  p_max_owner_bytes bigint, p_lock_class integer
) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
  v_count bigint;
  v_bytes bigint;
BEGIN
  DELETE FROM svc_gateway.outbox WHERE webhook_id = p_webhook_id AND expires_at <= clock_timestamp();
  PERFORM 1 FROM svc_gateway.outbox WHERE webhook_id = p_webhook_id;
  IF FOUND THEN RETURN 'exists'; END IF;
  IF p_max > 0 THEN
    SELECT count(*) INTO v_count FROM (SELECT 1 FROM svc_gateway.outbox WHERE NOT done LIMIT p_max) s;
    IF v_count >= p_max THEN RETURN 'full'; END IF;
  END IF;
  IF p_max_owner_items > 0 OR p_max_owner_bytes > 0 THEN
    PERFORM pg_advisory_xact_lock(p_lock_class, hashtext(p_owner));
    SELECT count(*), coalesce(sum(octet_length(payload)), 0) INTO v_count, v_bytes
    FROM svc_gateway.outbox WHERE owner_id = p_owner AND NOT done;
    IF (p_max_owner_items > 0 AND v_count >= p_max_owner_items)
      OR (p_max_owner_bytes > 0 AND v_bytes + octet_length(p_payload) > p_max_owner_bytes) THEN
      RETURN 'full';
    END IF;
  END IF;
  INSERT INTO svc_gateway.outbox
    (webhook_id, url, payload, "authorization", attempts, claim, due_at, expires_at, owner_id)
  VALUES (p_webhook_id, p_url, p_payload, p_authorization, 0, p_claim,
    clock_timestamp() + make_interval(secs => p_lease_ms / 1000.0),
    clock_timestamp() + make_interval(secs => p_ttl_ms / 1000.0), p_owner)
  ON CONFLICT (webhook_id) DO NOTHING;
  IF FOUND THEN RETURN 'ok'; END IF;
  RETURN 'exists';
END
$$;
INSERT INTO svc_gateway.schema_migrations (version, name) VALUES (1, 'initial');
