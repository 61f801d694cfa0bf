// Prints the query plans of the statements on the request path and in the sweeps, on a schema
// filled with 100 000 jobs (90 % finished), 100 000 records, 20 000 set members and 5 000 pending
// callbacks: `node bench/explain.ts` (starts its own PostgreSQL). docs/postgres.md quotes them.
import pg from 'pg';
import { migrate } from '../src/index.ts';
import { startPostgres } from '../test/postgres-server.ts';

const postgres = await startPostgres();
const client = new pg.Client({ connectionString: postgres.url });
await client.connect();
const s = 'svc_gateway';
await migrate({ client, schema: s });
await client.query(`
  INSERT INTO ${s}.jobs (job_id, owner_id, status, version, updated_at, invocation_id, action_id,
    action_name, created_at, lease_owner, lease_expires_at, finished_seq, expires_at, announce_at,
    share)
  SELECT 'job_' || i, 'principal_' || (i % 100), CASE WHEN i % 10 = 0 THEN 'running' ELSE 'completed' END,
    2, now(), '"inv"', '"a"', '"A"', '"2026-01-01T00:00:00.000Z"',
    CASE WHEN i % 10 = 0 THEN 'instance' END,
    CASE WHEN i % 10 = 0 THEN now() + interval '30 s' END,
    CASE WHEN i % 10 <> 0 THEN i END,
    CASE WHEN i % 10 <> 0 THEN now() + interval '1 day' END,
    CASE WHEN i % 1000 = 1 THEN now() + interval '30 s' END,
    'principal_' || (i % 100)
  FROM generate_series(1, 100000) i;
  INSERT INTO ${s}.records (key, value, version, expires_at)
    SELECT 'idem:p:' || i, '{}', 1, now() + interval '1 day' FROM generate_series(1, 100000) i;
  INSERT INTO ${s}.set_members (set_name, member, expires_at)
    SELECT 'quota:activeJobs:p' || (i % 200), 'job_' || i, (extract(epoch FROM now()) * 1000)::bigint + i
    FROM generate_series(1, 20000) i;
  INSERT INTO ${s}.outbox (webhook_id, url, payload, due_at, expires_at)
    SELECT 'job_' || i || '_completed', 'https://hooks.example', '{}', now() + interval '1 min', now() + interval '1 day'
    FROM generate_series(1, 5000) i;
`);
await client.query('VACUUM ANALYZE');

const statements: [string, string][] = [
  [
    'get / update / cancel: the job by id (FOR UPDATE in the functions)',
    `SELECT * FROM ${s}.jobs WHERE job_id = 'job_5' AND (expires_at IS NULL OR expires_at > clock_timestamp()) FOR UPDATE`,
  ],
  [
    'create when full: the earliest-finished job',
    `SELECT job_id FROM ${s}.jobs WHERE finished_seq IS NOT NULL ORDER BY finished_seq LIMIT 1 FOR UPDATE SKIP LOCKED`,
  ],
  ['create: the job count (16 shard rows)', `SELECT sum(n) FROM ${s}.counts WHERE name = 'jobs'`],
  [
    'lease renewal',
    `UPDATE ${s}.jobs SET lease_expires_at = now() WHERE job_id = ANY(ARRAY['job_10','job_20']) AND finished_seq IS NULL AND (lease_owner = 'x' OR lease_expires_at < clock_timestamp())`,
  ],
  [
    'terminal write, 1 in 8: the retention share cut (no lock)',
    `SELECT finished_seq FROM ${s}.jobs WHERE share = 'principal_7' AND finished_seq IS NOT NULL ORDER BY finished_seq DESC OFFSET 1000 LIMIT 1`,
  ],
  [
    'terminal write, 1 in 8: the share rows older than the cut',
    `SELECT job_id FROM ${s}.jobs WHERE share = 'principal_7' AND finished_seq IS NOT NULL AND finished_seq <= 1000 FOR UPDATE SKIP LOCKED`,
  ],
  [
    'worker-loss sweep',
    `SELECT * FROM ${s}.jobs WHERE finished_seq IS NULL AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT 200 FOR UPDATE SKIP LOCKED`,
  ],
  [
    'unannounced sweep',
    `SELECT job_id FROM ${s}.jobs WHERE announce_at <= now() AND expires_at > now() ORDER BY announce_at LIMIT 200 FOR UPDATE SKIP LOCKED`,
  ],
  [
    'retention: one batch of expired jobs',
    `SELECT job_id FROM ${s}.jobs WHERE expires_at <= now() ORDER BY expires_at LIMIT 500 FOR UPDATE SKIP LOCKED`,
  ],
  [
    'outbox: claim due callbacks',
    `SELECT webhook_id FROM ${s}.outbox WHERE due_at <= now() AND NOT done AND expires_at > now() ORDER BY due_at LIMIT 32 FOR UPDATE SKIP LOCKED`,
  ],
  [
    'record get',
    `SELECT value, version FROM ${s}.records WHERE key = 'idem:p:77' AND expires_at > clock_timestamp()`,
  ],
  [
    'set: prune + count (quota check)',
    `DELETE FROM ${s}.set_members WHERE set_name = 'quota:activeJobs:p7' AND expires_at <= 0`,
  ],
  [
    'set: rangeOfSet page',
    `SELECT member, expires_at FROM ${s}.set_members WHERE set_name = 'quota:activeJobs:p7' AND expires_at > 0 AND (expires_at, member) > (0::bigint, '' COLLATE "C") ORDER BY expires_at, member LIMIT 50`,
  ],
  [
    'per principal (operators, future retention rules)',
    `SELECT job_id FROM ${s}.jobs WHERE owner_id = 'principal_7' ORDER BY finished_seq LIMIT 50`,
  ],
];
for (const [name, sql] of statements) {
  await client.query('BEGIN');
  const { rows } = await client.query(
    `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON) ${sql}`,
  );
  await client.query('ROLLBACK');
  console.log(`-- ${name}`);
  for (const row of rows) console.log(row['QUERY PLAN']);
  console.log();
}
await client.end();
await postgres.stop();
