package sqlstore

import "github.com/seokit/seokit/internal/sqldb"

// migrations are applied in order (sqldb.Schema), and recorded in
// schema_migrations. Never edit a released migration: append a new one.
// Times are BIGINT Unix microseconds (NULL for none).
var migrations = [][]string{
	1: {
		`CREATE TABLE accounts (
			id            TEXT PRIMARY KEY,
			email         TEXT UNIQUE,
			name          TEXT NOT NULL,
			password_hash TEXT NOT NULL,
			plan          TEXT NOT NULL,
			daily_limit   BIGINT NOT NULL,
			admin         INTEGER NOT NULL,
			created_at    BIGINT NOT NULL
		)`,
		`CREATE TABLE api_keys (
			id           TEXT PRIMARY KEY,
			account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			name         TEXT NOT NULL,
			prefix       TEXT NOT NULL,
			hash         {{blob}} NOT NULL UNIQUE,
			permissions  TEXT NOT NULL,
			created_at   BIGINT NOT NULL,
			last_used_at BIGINT,
			expires_at   BIGINT,
			revoked_at   BIGINT
		)`,
		`CREATE INDEX api_keys_account ON api_keys (account_id, created_at)`,
		`CREATE TABLE clients (
			id            TEXT PRIMARY KEY,
			account_id    TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			name          TEXT NOT NULL,
			secret_hash   {{blob}},
			redirect_uris TEXT NOT NULL,
			scopes        TEXT NOT NULL,
			created_at    BIGINT NOT NULL,
			revoked_at    BIGINT
		)`,
		`CREATE INDEX clients_account ON clients (account_id, created_at)`,
		`CREATE TABLE auth_codes (
			hash         {{blob}} PRIMARY KEY,
			client_id    TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
			account_id   TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			redirect_uri TEXT NOT NULL,
			scopes       TEXT NOT NULL,
			challenge    TEXT NOT NULL,
			family_id    TEXT NOT NULL,
			expires_at   BIGINT,
			used_at      BIGINT,
			created_at   BIGINT NOT NULL
		)`,
		`CREATE TABLE refresh_tokens (
			hash       {{blob}} PRIMARY KEY,
			family_id  TEXT NOT NULL,
			client_id  TEXT NOT NULL REFERENCES clients (id) ON DELETE CASCADE,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			scopes     TEXT NOT NULL,
			expires_at BIGINT,
			used_at    BIGINT,
			created_at BIGINT NOT NULL
		)`,
		`CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id)`,
		`CREATE TABLE revoked_families (
			family_id  TEXT PRIMARY KEY,
			revoked_at BIGINT NOT NULL
		)`,
		`CREATE TABLE revoked_tokens (
			jti        TEXT PRIMARY KEY,
			expires_at BIGINT NOT NULL
		)`,
		`CREATE INDEX revoked_tokens_expiry ON revoked_tokens (expires_at)`,
		`CREATE TABLE signing_keys (
			kid         TEXT PRIMARY KEY,
			private_key {{blob}} NOT NULL,
			created_at  BIGINT NOT NULL,
			retired_at  BIGINT
		)`,
		`CREATE TABLE daily_usage (
			account_id TEXT NOT NULL,
			day        TEXT NOT NULL,
			n          BIGINT NOT NULL,
			PRIMARY KEY (account_id, day)
		)`,
		`CREATE TABLE jobs (
			id             TEXT PRIMARY KEY,
			account_id     TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			kind           TEXT NOT NULL,
			status         TEXT NOT NULL,
			request        {{blob}},
			progress       {{blob}},
			result         {{blob}},
			error          TEXT NOT NULL,
			callback_url   TEXT NOT NULL,
			callback_state TEXT NOT NULL,
			created_at     BIGINT NOT NULL,
			started_at     BIGINT,
			finished_at    BIGINT,
			updated_at     BIGINT NOT NULL
		)`,
		`CREATE INDEX jobs_account ON jobs (account_id, created_at)`,
		`CREATE INDEX jobs_unfinished ON jobs (created_at) WHERE status IN ('queued', 'running')`,
	},
	2: {
		`CREATE TABLE mutes (
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			domain     TEXT NOT NULL,
			ids        TEXT NOT NULL,
			updated_at BIGINT NOT NULL,
			PRIMARY KEY (account_id, domain)
		)`,
	},
	3: {
		`CREATE TABLE screenshots (
			job_id     TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
			url_hash   {{blob}} NOT NULL,
			url        TEXT NOT NULL,
			png        {{blob}} NOT NULL,
			created_at BIGINT NOT NULL,
			PRIMARY KEY (job_id, url_hash)
		)`,
	},
	4: {
		`CREATE TABLE projects (
			id         TEXT PRIMARY KEY,
			account_id TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			name       TEXT NOT NULL,
			domain     TEXT NOT NULL,
			time_zone  TEXT NOT NULL,
			config     {{blob}},
			keywords   TEXT NOT NULL,
			created_at BIGINT NOT NULL,
			updated_at BIGINT NOT NULL,
			UNIQUE (account_id, domain)
		)`,
		`CREATE INDEX projects_account ON projects (account_id, created_at)`,
		// Deleting a project keeps its jobs, without their project.
		`ALTER TABLE jobs ADD COLUMN project_id TEXT REFERENCES projects (id) ON DELETE SET NULL`,
		`ALTER TABLE jobs ADD COLUMN summary {{blob}}`,
		`CREATE INDEX jobs_project ON jobs (account_id, project_id, created_at)`,
	},
	5: {
		`CREATE TABLE schedules (
			id          TEXT PRIMARY KEY,
			account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
			kind        TEXT NOT NULL,
			spec        TEXT NOT NULL,
			next_run    BIGINT NOT NULL,
			last_run    BIGINT,
			last_job_id TEXT NOT NULL,
			last_error  TEXT NOT NULL,
			paused      INTEGER NOT NULL,
			created_at  BIGINT NOT NULL,
			updated_at  BIGINT NOT NULL
		)`,
		`CREATE INDEX schedules_project ON schedules (account_id, project_id, created_at)`,
		`CREATE INDEX schedules_due ON schedules (next_run) WHERE paused = 0`,
	},
	6: {
		`CREATE TABLE alert_rules (
			id          TEXT PRIMARY KEY,
			account_id  TEXT NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
			project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
			kind        TEXT NOT NULL,
			params      {{blob}},
			channel     TEXT NOT NULL,
			target      TEXT NOT NULL,
			secret      TEXT NOT NULL,
			muted       INTEGER NOT NULL,
			muted_until BIGINT,
			created_at  BIGINT NOT NULL,
			updated_at  BIGINT NOT NULL
		)`,
		`CREATE INDEX alert_rules_project ON alert_rules (account_id, project_id, created_at)`,
		`CREATE TABLE alert_deliveries (
			id           TEXT PRIMARY KEY,
			account_id   TEXT NOT NULL,
			project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
			rule_id      TEXT NOT NULL REFERENCES alert_rules (id) ON DELETE CASCADE,
			job_id       TEXT NOT NULL,
			dedupe_key   TEXT NOT NULL,
			change_key   TEXT NOT NULL,
			payload      {{blob}},
			state        TEXT NOT NULL,
			attempts     INTEGER NOT NULL,
			next_attempt BIGINT,
			last_error   TEXT NOT NULL,
			created_at   BIGINT NOT NULL,
			delivered_at BIGINT,
			UNIQUE (rule_id, dedupe_key)
		)`,
		`CREATE INDEX alert_deliveries_due ON alert_deliveries (state, next_attempt)`,
		`CREATE INDEX alert_deliveries_project ON alert_deliveries (project_id, created_at)`,
		`CREATE INDEX alert_deliveries_change ON alert_deliveries (rule_id, change_key, created_at)`,
	},
	7: {
		// The pages each job rendered (TakeRender): the plan's cap of
		// rendered pages counts them, across restarts and instances.
		`CREATE TABLE job_renders (
			job_id   TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
			url_hash {{blob}} NOT NULL,
			PRIMARY KEY (job_id, url_hash)
		)`,
	},
	// One outbox for alerts and job callbacks: alert_deliveries becomes
	// deliveries, with a kind, a target (a callback's URL), a lease apart
	// from the next attempt (so an account's attempts in flight can be
	// counted) and a project and rule only for alerts. Callbacks of jobs
	// that ended before this version and were not yet delivered are
	// added, due at once.
	8: {
		`CREATE TABLE deliveries (
			id           TEXT PRIMARY KEY,
			kind         TEXT NOT NULL,
			account_id   TEXT NOT NULL,
			project_id   TEXT REFERENCES projects (id) ON DELETE CASCADE,
			rule_id      TEXT REFERENCES alert_rules (id) ON DELETE CASCADE,
			job_id       TEXT NOT NULL,
			target       TEXT NOT NULL,
			dedupe_key   TEXT NOT NULL,
			change_key   TEXT NOT NULL,
			payload      {{blob}},
			state        TEXT NOT NULL,
			attempts     INTEGER NOT NULL,
			next_attempt BIGINT,
			lease_until  BIGINT,
			last_error   TEXT NOT NULL,
			created_at   BIGINT NOT NULL,
			delivered_at BIGINT,
			UNIQUE (rule_id, dedupe_key)
		)`,
		`INSERT INTO deliveries (id, kind, account_id, project_id, rule_id, job_id, target, dedupe_key, change_key, payload,
			state, attempts, next_attempt, lease_until, last_error, created_at, delivered_at)
			SELECT id, 'alert', account_id, project_id, rule_id, job_id, '', dedupe_key, change_key, payload,
			state, attempts, next_attempt, NULL, last_error, created_at, delivered_at FROM alert_deliveries`,
		`DROP TABLE alert_deliveries`,
		`INSERT INTO deliveries (id, kind, account_id, project_id, rule_id, job_id, target, dedupe_key, change_key, payload,
			state, attempts, next_attempt, lease_until, last_error, created_at, delivered_at)
			SELECT 'dlv_' || id, 'callback', account_id, NULL, NULL, id, callback_url, id, '', NULL,
			'pending', 0, updated_at, NULL, '', updated_at, NULL FROM jobs
			WHERE status IN ('succeeded', 'failed', 'canceled') AND callback_state = 'pending' AND callback_url <> ''`,
		`CREATE UNIQUE INDEX deliveries_callback ON deliveries (job_id) WHERE kind = 'callback'`,
		`CREATE INDEX deliveries_due ON deliveries (state, next_attempt)`,
		`CREATE INDEX deliveries_leased ON deliveries (account_id, lease_until) WHERE state = 'pending'`,
		`CREATE INDEX deliveries_project ON deliveries (project_id, created_at)`,
		`CREATE INDEX deliveries_change ON deliveries (rule_id, change_key, created_at)`,
	},
	// OAuth grants bound to a resource (RFC 8707): the resource indicator
	// of the authorization request, the audience of the grant's tokens.
	// Grants from before keep the API's default audience ('').
	9: {
		`ALTER TABLE auth_codes ADD COLUMN resource TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE refresh_tokens ADD COLUMN resource TEXT NOT NULL DEFAULT ''`,
	},
	// Index status: the latest run of each analysis (deleted with its
	// job), and the URL inspections counted per Search Console property:
	// one row per day with the day's count, and one row per place in the
	// minute (at most the per-minute quota of them), held by an
	// inspection from its start until a minute after its end.
	10: {
		`CREATE TABLE index_runs (
			account_id  TEXT NOT NULL,
			analysis_id TEXT NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
			run_id      TEXT NOT NULL,
			property    TEXT NOT NULL,
			status      TEXT NOT NULL,
			started_at  BIGINT NOT NULL,
			updated_at  BIGINT NOT NULL,
			lease_until BIGINT,
			progress    {{blob}},
			report      {{blob}},
			error       TEXT NOT NULL,
			PRIMARY KEY (account_id, analysis_id)
		)`,
		`CREATE TABLE index_quota_days (
			property TEXT NOT NULL,
			day      TEXT NOT NULL,
			n        BIGINT NOT NULL,
			PRIMARY KEY (property, day)
		)`,
		`CREATE TABLE index_quota_slots (
			property TEXT NOT NULL,
			slot     INTEGER NOT NULL,
			token    TEXT NOT NULL,
			taken_at BIGINT NOT NULL,
			ended_at BIGINT,
			PRIMARY KEY (property, slot)
		)`,
	},
}

// tables lists the tables in creation order (Dump reads them in this
// order).
var tables = []string{"schema_migrations", "accounts", "api_keys", "clients", "auth_codes", "refresh_tokens",
	"revoked_families", "revoked_tokens", "signing_keys", "daily_usage", "jobs", "mutes", "screenshots",
	"projects", "schedules", "alert_rules", "job_renders", "deliveries", "index_runs", "index_quota_days",
	"index_quota_slots"}

// schema is the store's migrations and version table.
var schema = &sqldb.Schema{
	VersionTable: "schema_migrations",
	// Several instances starting at once apply each migration once.
	LockID:     0x5e0c17_5703e,
	Migrations: migrations,
}

// SchemaVersion is the schema version this package writes.
func SchemaVersion() int { return schema.Version() }
