-- @svc/gateway-kit-postgres migration 003: set members added several at once, all or none.
--
-- `svc_gateway` is the schema name (replaced as in 001). Adds add_to_sets; no table changes.
-- The record store's addToSet and addToSets both call it. It reads a cap of 0 as every
-- RecordStore does: nothing new fits (001's add_to_set read 0 as "unbounded"). add_to_set stays,
-- unchanged, for instances of the previous version during a rolling upgrade: both functions take
-- the same advisory lock per set, so their adds to one set are serialised with each other.

-- Adds (or extends) members of one or more sets, all or none. The argument arrays are parallel:
-- entry i is (p_sets[i], p_members[i], p_ttls_ms[i], p_maxes[i]). With a max (NULL: unbounded) a
-- new member is refused when its set holds that many live members, counting the new members of
-- the entries before it; a max of 0 or less admits none. A member already in its set, or named by
-- an earlier entry, is always accepted; each member keeps the latest of its expiries. Returns -1
-- when every entry is in its set afterwards, else the 0-based index of the first entry that did
-- not fit, having written nothing.
--
-- Racing adds to one set are serialised by a transaction-scoped advisory lock on it (as in
-- add_to_set), taken in lock-key order so that two calls never wait for each other's locks in a
-- cycle; rows are written in (set, member) order.
CREATE FUNCTION svc_gateway.add_to_sets(
  p_lock_class integer, p_sets text[], p_members text[], p_ttls_ms bigint[], p_maxes bigint[]
) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
  v_now bigint := floor(extract(epoch FROM clock_timestamp()) * 1000);
  v_lock integer;
  v_refused bigint;
BEGIN
  FOR v_lock IN SELECT DISTINCT hashtext(s) FROM unnest(p_sets) s ORDER BY 1 LOOP
    PERFORM pg_advisory_xact_lock(p_lock_class, v_lock);
  END LOOP;
  -- Expired members go; one that another transaction holds (the sweeper deleting it, a release)
  -- is skipped rather than waited for, so this call never waits in a cycle with those. The reads
  -- below count live members only, so a skipped expired one changes no answer.
  DELETE FROM svc_gateway.set_members WHERE ctid IN (
    SELECT ctid FROM svc_gateway.set_members
    WHERE set_name = ANY (p_sets) AND expires_at <= v_now
    FOR UPDATE SKIP LOCKED);
  WITH entries AS (
    SELECT e.i, e.set_name, e.member, e.max,
      row_number() OVER (PARTITION BY e.set_name, e.member ORDER BY e.i) = 1 AS first
    FROM unnest(p_sets, p_members, p_maxes) WITH ORDINALITY AS e(set_name, member, max, i)
  ),
  -- The entries that would add a member: the first naming it, when its set does not hold it.
  fresh AS (
    SELECT n.i, n.set_name, n.max,
      row_number() OVER (PARTITION BY n.set_name ORDER BY n.i) AS rank
    FROM entries n
    WHERE n.first AND NOT EXISTS (
      SELECT 1 FROM svc_gateway.set_members m
      WHERE m.set_name = n.set_name AND m.member = n.member AND m.expires_at > v_now)
  ),
  -- Live members of each capped set, counted up to its largest cap in the call (no further).
  live AS (
    SELECT c.set_name, (
      SELECT count(*) FROM (
        SELECT 1 FROM svc_gateway.set_members m
        WHERE m.set_name = c.set_name AND m.expires_at > v_now LIMIT c.cap) s
    ) AS n
    FROM (
      SELECT f.set_name, greatest(max(f.max), 0) AS cap FROM fresh f
      WHERE f.max IS NOT NULL GROUP BY f.set_name
    ) c
  )
  SELECT f.i INTO v_refused
  FROM fresh f JOIN live l ON l.set_name = f.set_name
  WHERE f.max IS NOT NULL AND l.n + f.rank > f.max
  ORDER BY f.i
  LIMIT 1;
  IF FOUND THEN RETURN v_refused - 1; END IF;
  INSERT INTO svc_gateway.set_members (set_name, member, expires_at)
  SELECT e.set_name, e.member, max(v_now + e.ttl)
  FROM unnest(p_sets, p_members, p_ttls_ms) AS e(set_name, member, ttl)
  GROUP BY e.set_name, e.member
  ORDER BY e.set_name COLLATE "C", e.member COLLATE "C"
  ON CONFLICT (set_name, member) DO UPDATE SET expires_at = EXCLUDED.expires_at
  WHERE svc_gateway.set_members.expires_at < EXCLUDED.expires_at;
  RETURN -1;
END
$$;

INSERT INTO svc_gateway.schema_migrations (version, name) VALUES (3, 'set_batches');
