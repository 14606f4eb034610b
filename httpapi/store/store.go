// Package store defines what the HTTP API keeps: accounts, API keys, OAuth
// clients, authorization codes, refresh tokens, signing keys, revoked
// tokens, daily usage, site-analysis jobs, projects (the sites an account
// monitors, with their analysis history) and, optionally (Screenshots),
// the screenshots of their rendered pages.
//
// Drivers live in subpackages (sqlstore: SQLite by default, PostgreSQL with
// the same SQL) and run the storetest conformance suite.
//
// Secrets are never stored: keys, client secrets, codes and refresh tokens
// are kept as SHA-256 hashes (Hash), passwords as argon2id hashes.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Errors returned by every driver (wrapped or not; test with errors.Is).
var (
	// ErrNotFound: no such record, or it belongs to another account.
	ErrNotFound = errors.New("store: not found")
	// ErrConflict: a unique value (email, key hash, client ID) exists.
	ErrConflict = errors.New("store: already exists")
	// ErrUsed: an authorization code or refresh token was already used.
	ErrUsed = errors.New("store: already used")
	// ErrUnavailable: the database cannot be reached or is locked; the
	// API answers 503 and nothing is half-written.
	ErrUnavailable = errors.New("store: unavailable")
	// ErrLimitReached: a creation would take an account or a project past
	// a cap it was given; nothing is stored. Drivers return a *LimitError.
	ErrLimitReached = errors.New("store: limit reached")
)

// LimitError is the error of a creation refused at a cap: the count and
// the cap were read in the same atomic step as the refused insert, so
// under any concurrency, in one process or many, no cap is exceeded.
// errors.Is(err, ErrLimitReached) holds.
type LimitError struct {
	// What is counted: "projects", "schedules", "alert rules", "active
	// jobs", "rendered pages", "screenshots", "API keys" or "OAuth
	// applications".
	What string
	// Project is the project whose own cap was reached ("" when the cap
	// is the account's, or a job's).
	Project string
	// Limit is the cap given; Count how many there were (at least Limit).
	Limit, Count int
}

func (e *LimitError) Error() string {
	of := "the account"
	if e.Project != "" {
		of = "project " + e.Project
	}
	return fmt.Sprintf("store: %s has %d %s, its cap is %d: %v", of, e.Count, e.What, e.Limit, ErrLimitReached)
}

// Unwrap returns ErrLimitReached.
func (e *LimitError) Unwrap() error { return ErrLimitReached }

// Plan is an account's rate-limit plan.
type Plan string

// Plans of the spec. Enterprise limits are set per account.
const (
	Free       Plan = "free"
	Pro        Plan = "pro"
	Enterprise Plan = "enterprise"
)

// Account is a customer of the API. All keys, tokens and jobs belong to one.
type Account struct {
	ID    string // random, non-sequential ("acct_...")
	Email string // unique, lowercased
	Name  string
	// PasswordHash is an argon2id PHC string; empty means no password
	// sign-in.
	PasswordHash string
	Plan         Plan
	// DailyLimit overrides the plan's limit when > 0 (Enterprise).
	DailyLimit int
	Admin      bool
	CreatedAt  time.Time
}

// APIKey is a stored API key. The key itself is shown once at creation;
// only its hash is kept.
type APIKey struct {
	ID        string // "key_..."
	AccountID string
	Name      string
	// Prefix is the first characters of the key, safe to display
	// ("seo_live_AbC1").
	Prefix      string
	Hash        []byte // SHA-256 of the full key
	Permissions []string
	CreatedAt   time.Time
	LastUsedAt  time.Time // zero if never used
	ExpiresAt   time.Time // zero means no expiry
	RevokedAt   time.Time // zero means active
}

// Client is an API client or OAuth application. Its credentials serve
// POST /auth/token (client credentials, acting as its account) and, with
// redirect URIs, the OAuth authorization-code flow (acting as the
// consenting account).
type Client struct {
	ID           string // the public client_id
	AccountID    string // owner
	Name         string
	SecretHash   []byte // SHA-256 of the client secret
	RedirectURIs []string
	Scopes       []string // scopes the client may be granted
	CreatedAt    time.Time
	RevokedAt    time.Time // zero means active
}

// AuthCode is an OAuth authorization code, single use.
type AuthCode struct {
	Hash        []byte // SHA-256 of the code
	ClientID    string
	AccountID   string // the account that consented
	RedirectURI string
	Scopes      []string
	Challenge   string // PKCE S256 code_challenge
	FamilyID    string // tokens issued from this code share it
	// Resource is the RFC 8707 resource indicator the grant is bound
	// to (its tokens' audience); empty means the API's default audience.
	Resource  string
	ExpiresAt time.Time
	UsedAt    time.Time // zero until redeemed
	CreatedAt time.Time
}

// RefreshToken is an OAuth refresh token. Rotation marks the old one used;
// presenting a used one revokes its family.
type RefreshToken struct {
	Hash      []byte
	FamilyID  string
	ClientID  string
	AccountID string
	Scopes    []string
	// Resource is the grant's resource indicator, as on its AuthCode.
	Resource  string
	ExpiresAt time.Time
	UsedAt    time.Time // set when rotated
	CreatedAt time.Time
}

// SigningKey is an Ed25519 key that signs access tokens. Keys are published
// in the JWKS until RetiredAt; the newest active key signs.
type SigningKey struct {
	KID        string
	PrivateKey []byte // ed25519 seed (32 bytes)
	CreatedAt  time.Time
	RetiredAt  time.Time // zero means active
}

// Usage is one account's request count for one UTC day.
type Usage struct {
	Day   time.Time // UTC midnight
	Count int
}

// JobStatus is the state of a site-analysis job.
type JobStatus string

// Job states: queued -> running -> succeeded | failed | canceled.
const (
	JobQueued    JobStatus = "queued"
	JobRunning   JobStatus = "running"
	JobSucceeded JobStatus = "succeeded"
	JobFailed    JobStatus = "failed"
	JobCanceled  JobStatus = "canceled"
)

// Done reports whether the status is final.
func (s JobStatus) Done() bool {
	return s == JobSucceeded || s == JobFailed || s == JobCanceled
}

// MaxJobResultBytes caps a job result, the JSON of its report: the server
// fails a job whose report is larger rather than store it, and drivers
// refuse it (a *seo.InputError). It admits the reports of 100,000-page
// analyses (about 60 to 120 MB of JSON). Drivers store results compressed
// (site reports shrink 7 to 21 times with gzip), never decompress more
// than this when they read one (a stored result that would is an error, so a hostile row
// cannot exhaust memory), and with JobResults stream a result without
// holding its JSON whole.
const MaxJobResultBytes = 256 << 20

// Job is an asynchronous site analysis.
type Job struct {
	ID          string // "job_...", random
	AccountID   string
	Kind        string // "site"
	Status      JobStatus
	Request     []byte // JSON of the request as accepted
	Progress    []byte // JSON, updated while running
	Result      []byte // JSON of the report when succeeded, at most MaxJobResultBytes
	Error       string // message when failed
	CallbackURL string
	// CallbackState records delivery of the callback ("", "pending",
	// "delivered", "failed") so a restart does not lose or repeat it.
	CallbackState string
	// ProjectID is the project the job belongs to ("" for none). It is set
	// when the job is created and never changes, except that deleting the
	// project clears it.
	ProjectID string
	// Summary is a small JSON document written when the job succeeds (site
	// score, page and finding counts...): what a project's history shows
	// without loading reports. Lists return it; nil until written.
	Summary    []byte
	CreatedAt  time.Time
	StartedAt  time.Time
	FinishedAt time.Time
	UpdatedAt  time.Time
}

// Project is one site an account monitors: its domain, crawl settings and
// tracked keywords. Its analyses are the jobs with its ID as ProjectID.
type Project struct {
	ID        string // "prj_...", random
	AccountID string
	Name      string
	// Domain is the site's host, normalised like site analyses do; unique
	// per account.
	Domain string
	// TimeZone is an IANA time zone name; empty is stored as "UTC".
	TimeZone string
	// Config is a crawler.Config JSON document (nil for the defaults),
	// with any credentials already sealed by the caller.
	Config []byte
	// Keywords are the tracked keywords, capped by the caller.
	Keywords  []string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// MaxProjects caps the list Projects returns, and so the projects one
// account may have.
const MaxProjects = 1000

// Accounts stores accounts.
type Accounts interface {
	CreateAccount(ctx context.Context, a *Account) error
	Account(ctx context.Context, id string) (*Account, error)
	AccountByEmail(ctx context.Context, email string) (*Account, error)
	UpdateAccount(ctx context.Context, a *Account) error
	CountAccounts(ctx context.Context) (int, error)
	// ListAccounts returns at most limit accounts (0 or less means
	// DefaultListLimit, more than MaxListLimit means MaxListLimit) ordered
	// by ID, starting after the account with ID after ("" starts at the
	// first). Pass the last ID of a page to get the next one; a short page
	// is the last.
	ListAccounts(ctx context.Context, after string, limit int) ([]Account, error)
}

// Page sizes of ListAccounts.
const (
	DefaultListLimit = 100
	MaxListLimit     = 1000
)

// Bounds of an account's stored API keys: CreateKey refuses a key past
// MaxKeys usable ones (neither revoked nor expired) with a *LimitError
// ("API keys"), and keeps the newest KeptInactiveKeys of the revoked and
// expired ones, deleting the older in the same step, so that the keys an
// account stores, and Keys lists, stay under MaxKeys+KeptInactiveKeys
// however many it creates and revokes.
const (
	MaxKeys          = 100
	KeptInactiveKeys = 20
)

// Keys stores API keys.
type Keys interface {
	// CreateKey stores a new API key, within the bounds of MaxKeys and
	// KeptInactiveKeys, counted and inserted in one atomic step.
	CreateKey(ctx context.Context, k *APIKey) error
	// KeyByHash returns the key with this hash, revoked or not.
	KeyByHash(ctx context.Context, hash []byte) (*APIKey, error)
	// Keys lists an account's keys, newest first.
	Keys(ctx context.Context, accountID string) ([]APIKey, error)
	// RevokeKey revokes an account's key; ErrNotFound for another's.
	RevokeKey(ctx context.Context, accountID, id string, at time.Time) error
	// TouchKey records a use, at most about once a minute per key.
	TouchKey(ctx context.Context, id string, at time.Time) error
}

// MaxClients caps the API clients and OAuth applications of an account
// (CreateClientWithin), as MaxKeys caps its API keys: each is a stored row
// that every list of the account's applications reads.
const MaxClients = 100

// Clients stores API clients and OAuth applications.
type Clients interface {
	CreateClient(ctx context.Context, c *Client) error
	// CreateClientWithin stores a new client as CreateClient does if its
	// account has fewer than limit clients (MaxClients when limit is not
	// in 1 to MaxClients), else a *LimitError ("OAuth applications"),
	// counted and inserted in one atomic step, so that instances sharing
	// the store together never exceed it.
	CreateClientWithin(ctx context.Context, c *Client, limit int) error
	Client(ctx context.Context, id string) (*Client, error)
	Clients(ctx context.Context, accountID string) ([]Client, error)
	UpdateClient(ctx context.Context, c *Client) error
	DeleteClient(ctx context.Context, accountID, id string) error
}

// Grants stores OAuth codes, refresh tokens and revocations.
type Grants interface {
	// CreateCode stores a code. Codes that expired over an hour ago go as
	// codes are added: the table holds no more than the codes of the last
	// CodeTTL and an hour.
	CreateCode(ctx context.Context, c *AuthCode) error
	// UseCode marks the code used and returns it. A code already used
	// returns it with ErrUsed (so its family can be revoked); exactly one
	// of any number of concurrent calls succeeds.
	UseCode(ctx context.Context, hash []byte, at time.Time) (*AuthCode, error)
	// Code returns the code without using it (used or not), ErrNotFound
	// when there is none: the token endpoint checks a request before it
	// spends the code.
	Code(ctx context.Context, hash []byte) (*AuthCode, error)
	// CreateRefresh stores a refresh token. Tokens that expired over an
	// hour ago go as tokens are added, as codes do.
	CreateRefresh(ctx context.Context, t *RefreshToken) error
	// UseRefresh marks the token used and returns it; a used token returns
	// it with ErrUsed. Exactly one concurrent call succeeds.
	UseRefresh(ctx context.Context, hash []byte, at time.Time) (*RefreshToken, error)
	// RefreshToken returns the token without using it (used or not),
	// ErrNotFound when there is none: the token endpoint checks a request
	// before it spends the token.
	RefreshToken(ctx context.Context, hash []byte) (*RefreshToken, error)
	// RevokeFamily revokes every token of a grant family.
	RevokeFamily(ctx context.Context, familyID string, at time.Time) error
	FamilyRevoked(ctx context.Context, familyID string) (bool, error)
	// RevokeToken revokes one access token by its jti until it expires.
	RevokeToken(ctx context.Context, jti string, expires time.Time) error
	TokenRevoked(ctx context.Context, jti string) (bool, error)
}

// SigningKeys stores the token signing keys.
type SigningKeys interface {
	AddSigningKey(ctx context.Context, k *SigningKey) error
	// SigningKeys lists keys not retired before the given time, newest
	// first.
	SigningKeys(ctx context.Context, since time.Time) ([]SigningKey, error)
	RetireSigningKey(ctx context.Context, kid string, at time.Time) error
}

// Limits counts requests per account and UTC day.
type Limits interface {
	// Take atomically counts one request of accountID on day if fewer
	// than limit were counted, and returns the count after the call and
	// whether the request was admitted. Under any concurrency exactly
	// limit requests are admitted per day.
	Take(ctx context.Context, accountID string, day time.Time, limit int) (count int, ok bool, err error)
	// Usage returns the daily counts in [from, to], days without requests
	// left out.
	Usage(ctx context.Context, accountID string, from, to time.Time) ([]Usage, error)
}

// LimitsN is implemented by Limits stores that count several requests in
// one write. ratelimit.Local uses it to reserve a busy account's requests
// a few at a time instead of writing once per request.
type LimitsN interface {
	// TakeN atomically counts up to n (at least 1) requests of accountID
	// on day, as many as fit under limit, and returns the count after the
	// call and how many it counted: 0 when the count had reached limit.
	// Under any concurrency at most limit requests are counted per day.
	TakeN(ctx context.Context, accountID string, day time.Time, limit, n int) (count, taken int, err error)
}

// Jobs stores site-analysis jobs.
type Jobs interface {
	// CreateJob stores a new job; a job with a ProjectID that is not one
	// of the account's projects is ErrNotFound and nothing is stored.
	CreateJob(ctx context.Context, j *Job) error
	// CreateJobWithin stores a new job as CreateJob does if the account
	// has fewer than maxActive queued and running jobs, counted and
	// inserted in one atomic step; otherwise it stores nothing and
	// returns a *LimitError ("active jobs"). maxActive <= 0 means no cap.
	CreateJobWithin(ctx context.Context, j *Job, maxActive int) error
	// ActivateJob releases the account's queued job id held back by an
	// Error starting with held (a scheduled run waiting for a slot): it
	// clears the Error and sets UpdatedAt to at if the account has fewer
	// than maxActive queued and running jobs not held back, counted and
	// updated in one atomic step, and reports whether it did. A job that
	// is not held back (released meanwhile, by this or another instance,
	// or canceled) is not released again: false. maxActive <= 0 means no
	// cap.
	ActivateJob(ctx context.Context, accountID, id, held string, maxActive int, at time.Time) (bool, error)
	// TakeRender records that job jobID renders pageURL, unless the job
	// already recorded limit other pages: it reports whether the page may
	// be rendered. A page recorded before (a resumed crawl rendering it
	// again) may be, and is not counted twice. The count is stored with
	// the job, so it survives a restart and is shared by every instance
	// crawling the job; it goes with the job. limit <= 0 admits nothing.
	TakeRender(ctx context.Context, jobID, pageURL string, limit int) (bool, error)
	// Job returns the account's job; ErrNotFound for another account's.
	Job(ctx context.Context, accountID, id string) (*Job, error)
	// Jobs lists the account's newest jobs without their results (Result
	// is nil): a list never loads reports.
	Jobs(ctx context.Context, accountID string, limit int) ([]Job, error)
	// ActiveJobs counts the account's queued and running jobs.
	ActiveJobs(ctx context.Context, accountID string) (int, error)
	// UpdateJob stores status, progress, result, summary, error, callback
	// state and times (never the ProjectID). Once a job is in a final state only CallbackState changes
	// (other changes return ErrConflict), so a late progress update cannot
	// undo a cancel. When it stores a final state with CallbackState
	// "pending" for a job with a CallbackURL, it adds the job's callback
	// Delivery (DeliveryCallback, due at once) in the same transaction,
	// once per job.
	UpdateJob(ctx context.Context, j *Job) error
	// Unfinished lists queued and running jobs of every account, oldest
	// first, so a restarted server can resume them; without results.
	Unfinished(ctx context.Context) ([]Job, error)
}

// CanceledResults is an optional interface of a Jobs store: the report a
// canceled job's crawl had made when the cancel stopped it is kept with
// the job, so a cancel loses no work.
type CanceledResults interface {
	// KeepCanceledResult stores result (the report's JSON), summary and
	// progress of a job in status JobCanceled that has no result yet;
	// the status stays canceled. Any other job is ErrConflict (ErrNotFound
	// when there is none).
	KeepCanceledResult(ctx context.Context, accountID, id string, result, summary, progress []byte) error
}

// StoredResult is a job's stored report, read as a stream of its JSON.
// It is a snapshot read with the job: deleting or pruning the job
// afterwards does not change it.
type StoredResult interface {
	// Open returns the report's JSON (what Job returns in Result) from its
	// first byte; a stream that would grow past MaxJobResultBytes fails.
	Open() (io.ReadCloser, error)
	// StoredSize is the number of bytes the result holds in memory as
	// stored (compressed).
	StoredSize() int
	// Size is the length of the JSON as recorded when it was stored, for
	// estimates; Open's stream is capped whatever it says.
	Size() int
}

// JobResults reads a job with its report as a stream. A driver that
// stores results compressed may implement it, so that reading a large
// report (a comparison of two analyses) holds its compressed form and
// not its JSON.
type JobResults interface {
	// JobResult returns the account's job like Job, but with Result nil
	// and, when the job has a result, the result as a StoredResult (nil
	// otherwise). ErrNotFound for another account's job.
	JobResult(ctx context.Context, accountID, id string) (*Job, StoredResult, error)
}

// Projects stores projects. Every method is scoped to one account: another
// account's project is ErrNotFound.
type Projects interface {
	// CreateProject stores a new project. An empty ID is filled with a
	// random "prj_..." one, zero CreatedAt and UpdatedAt with now, an
	// empty TimeZone with "UTC". ErrConflict when the account already has
	// a project for the domain, ErrNotFound for a missing account.
	CreateProject(ctx context.Context, p *Project) error
	// CreateProjectWithin stores a new project as CreateProject does if
	// the account has fewer than limit projects (limit <= 0 or above
	// MaxProjects means MaxProjects), counted and inserted in one atomic
	// step; otherwise it stores nothing and returns a *LimitError
	// ("projects").
	CreateProjectWithin(ctx context.Context, p *Project, limit int) error
	// Project returns the account's project.
	Project(ctx context.Context, accountID, id string) (*Project, error)
	// Projects lists the account's projects, newest first, at most
	// MaxProjects.
	Projects(ctx context.Context, accountID string) ([]Project, error)
	// UpdateProject stores the name, domain, time zone, config and
	// keywords of the account's project; a zero UpdatedAt is set to now.
	// ErrConflict when another of its projects has the domain.
	UpdateProject(ctx context.Context, p *Project) error
	// DeleteProject deletes the account's project and what hangs off it
	// (schedules, alert rules, deliveries). Its jobs keep existing with
	// an empty ProjectID.
	DeleteProject(ctx context.Context, accountID, id string) error
	// ProjectJobs lists the jobs of the account's project, newest first,
	// at most limit (0 or less means 100; at most 1000), without their
	// results but with their summaries. An unknown project lists none.
	ProjectJobs(ctx context.Context, accountID, projectID string, limit int) ([]Job, error)
}

// Retention prunes the analysis history of an account. A driver may
// implement it; without it nothing is pruned.
type Retention interface {
	// PruneJobs deletes finished jobs (succeeded, failed, canceled) of the
	// account, never a queued or running one, with their screenshots, and
	// returns how many it deleted. With a projectID it deletes the
	// project's finished site analyses (Kind "site") beyond the newest keep
	// (by CreatedAt, then ID; keep <= 0 keeps any number) and those created
	// before before (zero: no age limit). With projectID "" it deletes the
	// account's finished jobs of any kind without a project created before
	// before, and keep is ignored. A job being read meanwhile is either read whole or
	// ErrNotFound.
	PruneJobs(ctx context.Context, accountID, projectID string, keep int, before time.Time) (int, error)
}

// Mutes stores the check IDs and areas an account mutes for a domain (its
// project): analyses of the domain leave their findings out and count
// them as muted.
type Mutes interface {
	// Mutes returns the IDs muted for the account's domain in the order
	// set; nil when none are.
	Mutes(ctx context.Context, accountID, domain string) ([]string, error)
	// SetMutes replaces the IDs muted for the account's domain; an empty
	// list removes them. The caller validates the IDs.
	SetMutes(ctx context.Context, accountID, domain string, ids []string) error
}

// MaxScreenshotBytes caps one stored screenshot: PutScreenshot refuses a
// larger image with a *seo.InputError.
const MaxScreenshotBytes = 5 << 20

// Screenshots stores the viewport screenshots of a site analysis's
// rendered pages, one per job and page URL. A driver may implement it;
// without it site analyses keep no screenshots. Screenshots are deleted
// with their job.
type Screenshots interface {
	// PutScreenshot stores the screenshot of pageURL for job jobID,
	// replacing one stored before. ErrNotFound when the job does not
	// exist; a *seo.InputError for an empty image, one larger than
	// MaxScreenshotBytes or an empty URL. It does not cap the number of
	// screenshots of a job: PutScreenshotWithin does.
	PutScreenshot(ctx context.Context, jobID, pageURL string, png []byte) error
	// PutScreenshotWithin stores the screenshot as PutScreenshot does if
	// the job has a screenshot of pageURL already (it is replaced) or
	// fewer than limit screenshots, counted and stored in one atomic step;
	// otherwise it stores nothing and returns a *LimitError
	// ("screenshots"). The count is the stored screenshots, so it holds
	// across restarts and instances.
	PutScreenshotWithin(ctx context.Context, jobID, pageURL string, png []byte, limit int) error
	// Screenshot returns the screenshot of pageURL in the account's job;
	// ErrNotFound when there is none or the job is another account's.
	Screenshot(ctx context.Context, accountID, jobID, pageURL string) ([]byte, error)
}

// Statuses of an IndexRun.
const (
	IndexRunning   = "running"
	IndexSucceeded = "succeeded"
	IndexFailed    = "failed"
)

// MaxIndexRunBytes caps an IndexRun's Report and Progress: larger ones are
// refused with a *seo.InputError.
const MaxIndexRunBytes = 16 << 20

// IndexRun is the latest Search Console index status run of a site
// analysis (POST /v1/analyze/site/{id}/index-status), kept so that every
// instance, and a restarted one, answers for it.
type IndexRun struct {
	AccountID  string
	AnalysisID string
	// RunID tells one run of the analysis from the next.
	RunID    string
	Property string
	// Status is IndexRunning, IndexSucceeded or IndexFailed.
	Status    string
	StartedAt time.Time
	UpdatedAt time.Time
	// LeaseUntil is when a running run counts as abandoned unless the
	// instance running it renews it: a run found running past its lease
	// was cut short (its server stopped).
	LeaseUntil time.Time
	// Progress is the run's progress (JSON); Report its joined report
	// (JSON), nil while it runs. Error says why a failed run failed.
	Progress []byte
	Report   []byte
	Error    string
}

// InspectionTicket is one URL inspection counted by TakeInspection; End
// it when the inspection's answer has come.
type InspectionTicket struct {
	Property string
	Slot     int
	Token    string
}

// IndexStatus keeps index status runs and counts Search Console URL
// inspections per property, for every instance sharing the store. A
// driver may implement it; without it the server keeps runs and counts in
// its own memory.
type IndexStatus interface {
	// StartIndexRun stores r (Status IndexRunning, a new RunID) as the
	// analysis's run unless the analysis has a run still running whose
	// lease has not ended at r.StartedAt: then it stores nothing and
	// returns that run with started false. Both in one atomic step, so
	// two instances never start two runs of one analysis.
	StartIndexRun(ctx context.Context, r *IndexRun) (cur *IndexRun, started bool, err error)
	// UpdateIndexRun stores the status, progress, report, error, lease
	// and UpdatedAt of the run r.RunID; ErrNotFound when the analysis's
	// run is another one now.
	UpdateIndexRun(ctx context.Context, r *IndexRun) error
	// IndexRun returns the account's analysis's latest run; ErrNotFound
	// when none was started.
	IndexRun(ctx context.Context, accountID, analysisID string) (*IndexRun, error)
	// ReplaceJobResult stores result (the report's JSON, at most
	// MaxJobResultBytes) and summary of the account's succeeded job
	// anew: an index status run merged its findings into the report.
	// ErrNotFound for no such job, ErrConflict for one not succeeded.
	ReplaceJobResult(ctx context.Context, accountID, id string, result, summary []byte) error

	// TakeInspection counts one inspection of property if fewer than
	// perMinute of its inspections are in flight or ended less than a
	// minute before now, and fewer than perDay were counted on day (the
	// caller's quota day, such as a Pacific-time date), in atomic steps:
	// under any concurrency, in one process or many, neither count passes
	// its quota. An inspection in flight longer than lease (an instance
	// that stopped) counts as ended at its start plus lease. It returns
	// the ticket; or, when the minute is full, a nil ticket and the time
	// a place may free (retry), a zero retry when the place is held by
	// an inspection in flight; or a *LimitError ("inspections") when the
	// day's are spent.
	TakeInspection(ctx context.Context, property, day string, now time.Time, perMinute, perDay int, lease time.Duration) (t *InspectionTicket, retry time.Time, err error)
	// EndInspection records when the ticket's inspection ended; its place
	// in the minute frees a minute later.
	EndInspection(ctx context.Context, t *InspectionTicket, at time.Time) error
	// Inspections returns the inspections counted for property on day.
	Inspections(ctx context.Context, property, day string) (int, error)
}

// Kinds of scheduled runs.
const (
	// ScheduleSite runs a site analysis of the project's domain with its
	// saved crawl configuration.
	ScheduleSite = "site"
	// ScheduleRankings checks the positions of the project's tracked
	// keywords (and records them in the rank history).
	ScheduleRankings = "rankings"
)

// MaxSchedules caps the schedules of one project, and the list Schedules
// returns.
const MaxSchedules = 100

// Schedule is a recurring run of a project: a site analysis or a rank
// check, due at the times its Spec names in the project's time zone.
type Schedule struct {
	ID        string // "sch_...", random
	AccountID string
	ProjectID string
	Kind      string // ScheduleSite or ScheduleRankings
	// Spec is the schedule as monitor.ParseSchedule accepts it ("daily@06:00",
	// "weekly@mon 06:00", "0 6 * * 1-5"); the caller validates it.
	Spec string
	// NextRun is the next due time; ClaimSchedule moves it on.
	NextRun time.Time
	// LastRun is the due time of the latest run claimed; zero before the
	// first.
	LastRun time.Time
	// LastJobID is the site analysis of the latest run ("" for none).
	LastJobID string
	// LastError says why the latest run was skipped or failed ("" when it
	// ran).
	LastError string
	// Paused schedules are never due.
	Paused    bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Schedules stores the schedules of projects. Every method taking an
// account is scoped to it: another account's schedule or project is
// ErrNotFound. Deleting a project deletes its schedules.
type Schedules interface {
	// CreateSchedule stores a new schedule of the account's project. An
	// empty ID is filled with a random "sch_..." one, zero CreatedAt and
	// UpdatedAt with now. ErrNotFound when the project is not the
	// account's.
	CreateSchedule(ctx context.Context, sc *Schedule) error
	// CreateScheduleWithin stores a new schedule as CreateSchedule does if
	// the account has fewer than limit schedules (limit <= 0: no account
	// cap) and the project fewer than MaxSchedules, counted and inserted
	// in one atomic step; otherwise it stores nothing and returns a
	// *LimitError ("schedules"; Project set for the project's cap).
	CreateScheduleWithin(ctx context.Context, sc *Schedule, limit int) error
	// Schedule returns the account's schedule.
	Schedule(ctx context.Context, accountID, id string) (*Schedule, error)
	// Schedules lists the schedules of the account's project, oldest
	// first, at most MaxSchedules.
	Schedules(ctx context.Context, accountID, projectID string) ([]Schedule, error)
	// CountSchedules counts the account's schedules, over all its
	// projects.
	CountSchedules(ctx context.Context, accountID string) (int, error)
	// UpdateSchedule stores the spec, NextRun and Paused of the account's
	// schedule; a zero UpdatedAt is set to now. sc.LastRun must be the
	// schedule's as read: when a run was claimed since (ClaimSchedule
	// moved LastRun), nothing changes and the error is ErrConflict, so a
	// NextRun computed from an older LastRun never lands after a newer
	// run.
	UpdateSchedule(ctx context.Context, sc *Schedule) error
	// DeleteSchedule deletes the account's schedule.
	DeleteSchedule(ctx context.Context, accountID, id string) error
	// DueSchedules lists at most limit (1 to 1000) schedules of every
	// account that are not paused and whose NextRun is at or before now,
	// the longest due first.
	DueSchedules(ctx context.Context, now time.Time, limit int) ([]Schedule, error)
	// ClaimSchedule claims the run of schedule id due at due, in one
	// transaction: when the schedule is not paused and its NextRun is at
	// or before due (no run at or after due was claimed), it sets NextRun
	// to next (after due), LastRun to due, LastJobID to j's ID ("" when j
	// is nil) and LastError to "", stores j (when not nil) with the
	// schedule's account and project, and returns true. Otherwise it
	// changes nothing and returns false: under any concurrency, in one
	// process or many, each due time is claimed once.
	ClaimSchedule(ctx context.Context, id string, due, next time.Time, j *Job) (bool, error)
	// SetScheduleError records why the run claimed for due was skipped
	// or failed, unless a later run was claimed since.
	SetScheduleError(ctx context.Context, id string, due time.Time, msg string) error
}

// AlertRule is one alert rule of a project: what change to watch for
// (Kind and Params, as monitor.ParseRule reads them) and where to send it.
type AlertRule struct {
	ID        string // "alr_...", random
	AccountID string
	ProjectID string
	// Kind is a monitor rule kind ("new_findings", "score_drop"...);
	// Params its JSON parameters.
	Kind   string
	Params []byte
	// Channel is "webhook", "slack" or "email"; Target the URL or the
	// e-mail address.
	Channel string
	Target  string
	// Secret is the webhook signing secret, sealed by the caller ("" for
	// other channels).
	Secret string
	// Muted stops the rule until it is unmuted; MutedUntil, when set,
	// stops it until then.
	Muted      bool
	MutedUntil time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Delivery states.
const (
	DeliveryPending    = "pending"
	DeliveryDelivered  = "delivered"
	DeliveryFailed     = "failed"
	DeliverySuppressed = "suppressed"
)

// Delivery kinds: what a Delivery carries.
const (
	// DeliveryAlert is an alert of an alert rule (RuleID, ProjectID,
	// Payload the alert's JSON), sent through the rule's channel.
	DeliveryAlert = "alert"
	// DeliveryCallback is the callback of a finished site analysis
	// (JobID), POSTed to Target, the job's callback URL. Jobs.UpdateJob
	// stores it when it stores the job's final state.
	DeliveryCallback = "callback"
)

// Delivery is one message of the outbox: an alert or a job callback to
// send, retried until it is delivered or given up. A sent alert stays as
// a line of its project's alert log; a callback's outcome is recorded as
// its job's CallbackState, and the delivery is then deleted.
type Delivery struct {
	ID        string // "dlv_...", random
	Kind      string // DeliveryAlert (empty means it) or DeliveryCallback
	AccountID string
	// ProjectID and RuleID are an alert's ("" for a callback).
	ProjectID string
	RuleID    string
	// JobID is the analysis whose evaluation raised the alert ("" for a
	// test alert or a rank check), or the job of a callback.
	JobID string
	// Target is where a callback is POSTed ("" for an alert: its rule
	// says where).
	Target string
	// DedupeKey identifies the change (monitor.Alert.Fingerprint, or a
	// test's own key): one delivery per rule and key. ChangeKey
	// (monitor.Alert.ChangeKey) is the same for each flap of a change.
	// A callback has one delivery per job.
	DedupeKey string
	ChangeKey string
	// Payload is the body to send: the alert's JSON; a callback's is nil
	// until its first attempt builds it from the job.
	Payload []byte
	// State is DeliveryPending until sent, then DeliveryDelivered, or
	// DeliveryFailed after the last attempt; DeliverySuppressed for an
	// alert not sent (muted rule, cool-down), LastError saying why.
	State       string
	Attempts    int
	NextAttempt time.Time
	// LeaseUntil is set while an attempt holds the delivery (see
	// ClaimDeliveries); zero otherwise.
	LeaseUntil  time.Time
	LastError   string
	CreatedAt   time.Time
	DeliveredAt time.Time
}

// AlertDelivery is a Delivery of kind DeliveryAlert, the name the alert
// log's methods use.
type AlertDelivery = Delivery

// MaxAlertRules caps the rules of one project; MaxAlertDeliveries the log
// kept per project (older sent, failed and suppressed deliveries are
// deleted as new ones come).
const (
	MaxAlertRules      = 100
	MaxAlertDeliveries = 1000
)

// Alerts stores alert rules and the outbox of deliveries (alerts and job
// callbacks). Every method taking an account is scoped to it: another
// account's rule or project is ErrNotFound.
type Alerts interface {
	// CreateAlertRule stores a new rule; an empty ID is filled with a
	// random "alr_..." one, zero times with now. ErrNotFound when the
	// project is not the account's.
	CreateAlertRule(ctx context.Context, r *AlertRule) error
	// CreateAlertRuleWithin stores a new rule as CreateAlertRule does if
	// the account has fewer than limit rules (limit <= 0: no account cap)
	// and the project fewer than MaxAlertRules, counted and inserted in
	// one atomic step; otherwise it stores nothing and returns a
	// *LimitError ("alert rules"; Project set for the project's cap).
	CreateAlertRuleWithin(ctx context.Context, r *AlertRule, limit int) error
	// AlertRule returns the account's rule.
	AlertRule(ctx context.Context, accountID, id string) (*AlertRule, error)
	// AlertRules lists the rules of the account's project, oldest first,
	// at most MaxAlertRules.
	AlertRules(ctx context.Context, accountID, projectID string) ([]AlertRule, error)
	// CountAlertRules counts the account's rules (every project).
	CountAlertRules(ctx context.Context, accountID string) (int, error)
	// UpdateAlertRule stores the kind, params, channel, target, secret,
	// muted state and UpdatedAt (zero: now) of the account's rule.
	UpdateAlertRule(ctx context.Context, r *AlertRule) error
	// DeleteAlertRule deletes the account's rule and its deliveries.
	DeleteAlertRule(ctx context.Context, accountID, id string) error
	// AddAlertDelivery stores a delivery unless the rule has one with the
	// same DedupeKey (then it returns false and stores nothing). When the
	// rule has a delivery with the same ChangeKey created at or after
	// coolDownSince that was not suppressed, the new one is stored as
	// DeliverySuppressed ("cool-down"). An empty ID is filled with a
	// random "dlv_..." one, an empty State with pending, zero times with
	// now. The project's log beyond MaxAlertDeliveries is pruned (never a
	// pending delivery).
	AddAlertDelivery(ctx context.Context, d *AlertDelivery, coolDownSince time.Time) (bool, error)
	// ClaimDeliveries claims up to limit pending deliveries of any kind
	// due at now (NextAttempt <= now) and not leased (LeaseUntil zero or
	// <= now), oldest NextAttempt first, and sets their LeaseUntil to
	// now+lease in the same transaction, so that another instance claiming
	// at the same time gets other ones. With perAccount > 0, an account's
	// deliveries leased at now count against it: the claim returns no
	// delivery of an account that would then hold more than perAccount
	// leases, whatever the instance that holds them, and skips to other
	// accounts' deliveries instead.
	ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit, perAccount int) ([]Delivery, error)
	// UpdateDelivery stores the state, attempts, next attempt, last error,
	// delivery time and payload of a delivery and clears its lease
	// (LeaseUntil is zero after it). A delivery with a LeaseUntil (as
	// claimed) is written only if that is still its lease: a worker whose
	// lease expired and was claimed again writes nothing and gets
	// ErrNotFound. A callback delivered or failed is recorded as its job's
	// CallbackState (a job deleted meanwhile is skipped) and the delivery
	// deleted, in one transaction. ErrNotFound when the delivery is gone.
	UpdateDelivery(ctx context.Context, d *Delivery) error
	// AlertDeliveries lists the alert deliveries of the account's project,
	// newest first, at most limit (0 or less, or more than
	// MaxAlertDeliveries, means MaxAlertDeliveries).
	AlertDeliveries(ctx context.Context, accountID, projectID string, limit int) ([]AlertDelivery, error)
}

// Store is everything the API keeps.
type Store interface {
	Accounts
	Keys
	Clients
	Grants
	SigningKeys
	Limits
	Jobs
	Mutes
	Projects
	Schedules
	Alerts
	Retention
	// Ping reports whether the database answers.
	Ping(ctx context.Context) error
	Close() error
}
