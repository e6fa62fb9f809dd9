-- One login role and one schema per service (docs/adr/0006-deployment.md). Postgres runs this once,
-- when its data volume is first initialised, in the POSTGRES_DB database (policyhub).
--
-- DEV ONLY: the passwords below are the docker-compose defaults. On a real deployment a DBA runs the
-- same statements with generated passwords, and each service gets its URL from its own Secret.
--
-- A role owns its schema and nothing else: it cannot read another service's schema, and it cannot
-- create tables in public. It keeps USAGE on public, where extensions live (admin-orgs installs the
-- trusted extension pg_trgm there and uses public.gin_trgm_ops). The database-level CREATE privilege
-- is needed because every service runs `CREATE SCHEMA IF NOT EXISTS <its schema>` at the start of its
-- migrations, and Postgres checks that privilege before it notices the schema exists.

REVOKE CREATE ON SCHEMA public FROM PUBLIC;
REVOKE ALL ON DATABASE policyhub FROM PUBLIC;

CREATE ROLE admin_orgs LOGIN PASSWORD 'admin_orgs_dev';
CREATE SCHEMA admin_orgs AUTHORIZATION admin_orgs;
ALTER ROLE admin_orgs SET search_path = admin_orgs;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE policyhub TO admin_orgs;

CREATE ROLE policy_sets LOGIN PASSWORD 'policy_sets_dev';
CREATE SCHEMA policy_sets AUTHORIZATION policy_sets;
ALTER ROLE policy_sets SET search_path = policy_sets;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE policyhub TO policy_sets;

CREATE ROLE runs LOGIN PASSWORD 'runs_dev';
CREATE SCHEMA runs AUTHORIZATION runs;
ALTER ROLE runs SET search_path = runs;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE policyhub TO runs;

CREATE ROLE storage LOGIN PASSWORD 'storage_dev';
CREATE SCHEMA storage AUTHORIZATION storage;
ALTER ROLE storage SET search_path = storage;
GRANT CONNECT, TEMPORARY, CREATE ON DATABASE policyhub TO storage;
