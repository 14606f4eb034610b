package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/seokit/seokit/httpapi/auth"
	"github.com/seokit/seokit/httpapi/store"
	"github.com/seokit/seokit/httpapi/store/sqlstore"
	"github.com/seokit/seokit/seo"
)

const accountsUsage = `Usage: server accounts <command> [flags]

Commands:
  list            list every account
  create          -email E [-name N] [-plan free|pro|enterprise] [-daily-limit N] [-admin] [-password-stdin]
                  create an account; prints its generated dashboard password once
  set-plan        -email E -plan P [-daily-limit N]
                  set the plan; without -daily-limit the plan's limit applies
  reset-password  -email E [-password-stdin]
                  set a new dashboard password (printed once) and sign out its sessions
  create-key      -email E [-name N] [-permissions read,write]
                  create an API key of the account; prints it once

Every command takes -db (default $SEOKIT_DB or seokit.db), the server's API
store. Exit status: 0 done; 1 not done (no such account, email already
registered, store unavailable); 2 bad command line (unknown command or flag,
missing or malformed value, unknown plan).
`

// usageError is a bad command line: main exits with status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// exitCode is the exit status of a run that returned err.
func exitCode(err error) int {
	if errors.As(err, new(usageError)) {
		return 2
	}
	return 1
}

// accountsFlags are the flags of every accounts command; each command
// registers the ones it takes.
type accountsFlags struct {
	db, email, name, plan, permissions string
	dailyLimit                         int
	admin, passwordStdin               bool
}

// runAccounts runs "server accounts <command> [flags]".
func runAccounts(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, accountsUsage)
		return usagef("accounts: name a command: list, create, set-plan, reset-password or create-key")
	}
	cmd, args := args[0], args[1:]
	var f accountsFlags
	fs := flag.NewFlagSet("accounts "+cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.db, "db", env("SEOKIT_DB", "seokit.db"), "API store: SQLite path or postgres:// DSN")
	email := func() { fs.StringVar(&f.email, "email", "", "email of the account (required)") }
	limit := func() {
		fs.IntVar(&f.dailyLimit, "daily-limit", 0, "daily request limit overriding the plan's (0: the plan's)")
	}
	stdinFlag := func() {
		fs.BoolVar(&f.passwordStdin, "password-stdin", false, "read the dashboard password from the first line of standard input instead of generating one")
	}
	switch cmd {
	case "list":
	case "create":
		email()
		fs.StringVar(&f.name, "name", "", "name of the account (default: the email's local part)")
		fs.StringVar(&f.plan, "plan", string(store.Free), "plan: free, pro or enterprise")
		limit()
		fs.BoolVar(&f.admin, "admin", false, "administrator: may manage every account on the dashboard's accounts page")
		stdinFlag()
	case "set-plan":
		email()
		fs.StringVar(&f.plan, "plan", "", "plan: free, pro or enterprise (required)")
		limit()
	case "reset-password":
		email()
		stdinFlag()
	case "create-key":
		email()
		fs.StringVar(&f.name, "name", "cli", "name of the key")
		fs.StringVar(&f.permissions, "permissions", auth.ScopeRead+","+auth.ScopeWrite, "comma-separated scopes and operations of the key")
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, accountsUsage)
		return nil
	default:
		fmt.Fprint(stderr, accountsUsage)
		return usagef("accounts: unknown command %q", cmd)
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{fmt.Errorf("accounts %s: %w", cmd, err)}
	}
	if err := f.check(cmd, fs); err != nil {
		return err
	}
	var password string
	if f.passwordStdin {
		var err error
		if password, err = readPassword(stdin); err != nil {
			return usagef("accounts %s: -password-stdin: %v", cmd, err)
		}
	}

	st, err := openStore(ctx, f.db)
	if err != nil {
		return fmt.Errorf("accounts %s: %w", cmd, err)
	}
	defer st.Close()
	if cmd == "list" {
		return listAccounts(ctx, st, stdout)
	}
	au, err := auth.New(ctx, st, &auth.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return fmt.Errorf("accounts %s: %w", cmd, err)
	}
	c := &accountsCmd{st: st, au: au, f: &f, password: password, stdout: stdout}
	switch cmd {
	case "create":
		err = c.create(ctx)
	case "set-plan":
		err = c.setPlan(ctx)
	case "reset-password":
		err = c.resetPassword(ctx)
	case "create-key":
		err = c.createKey(ctx)
	}
	if err == nil {
		return nil
	}
	if ie, ok := seo.AsInputError(err); ok && !errors.Is(err, store.ErrConflict) {
		return usageError{fmt.Errorf("accounts %s: %s", cmd, ie.Error())}
	}
	return fmt.Errorf("accounts %s: %w", cmd, err)
}

// check validates the flags of cmd that need no store.
func (f *accountsFlags) check(cmd string, fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef("accounts %s: unexpected arguments %q", cmd, fs.Args())
	}
	if cmd != "list" && strings.TrimSpace(f.email) == "" {
		return usagef("accounts %s: -email is required", cmd)
	}
	if cmd == "create" || cmd == "set-plan" {
		switch store.Plan(f.plan) {
		case store.Free, store.Pro, store.Enterprise:
		case "":
			return usagef("accounts %s: -plan is required: free, pro or enterprise", cmd)
		default:
			return usagef("accounts %s: unknown plan %q: use free, pro or enterprise", cmd, f.plan)
		}
		if f.dailyLimit < 0 {
			return usagef("accounts %s: -daily-limit must not be negative", cmd)
		}
	}
	return nil
}

// readPassword reads the first line of r (at most 1024 bytes) and checks
// it as a new password.
func readPassword(r io.Reader) (string, error) {
	line, err := bufio.NewReaderSize(io.LimitReader(r, 1026), 2048).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	pw := strings.TrimRight(line, "\r\n")
	if err := auth.ValidatePassword(pw); err != nil {
		return "", err
	}
	return pw, nil
}

// openStore opens the API store; a SQLite file must exist already, so a
// mistyped -db is not a new, empty store.
func openStore(ctx context.Context, dsn string) (*sqlstore.Store, error) {
	if !isPostgres(dsn) && dsn != ":memory:" {
		if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("-db %s: no such file (start the server once to create the store, or name the right file)", dsn)
		}
	}
	return sqlstore.Open(ctx, dsn, nil)
}

// printable escapes control characters, so a stored name cannot send
// escape sequences to the terminal.
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

func limitText(a *store.Account) string {
	if a.DailyLimit > 0 {
		return strconv.Itoa(a.DailyLimit)
	}
	return "plan"
}

// listAccounts prints every account, a page at a time.
func listAccounts(ctx context.Context, st store.Store, stdout io.Writer) error {
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEMAIL\tNAME\tPLAN\tDAILY LIMIT\tADMIN\tCREATED")
	after := ""
	for {
		page, err := st.ListAccounts(ctx, after, store.DefaultListLimit)
		if err != nil {
			return fmt.Errorf("accounts list: %w", err)
		}
		for i := range page {
			a := &page[i]
			admin := "no"
			if a.Admin {
				admin = "yes"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a.ID, printable(a.Email), printable(a.Name), a.Plan, limitText(a), admin,
				a.CreatedAt.UTC().Format(time.DateTime))
		}
		if len(page) < store.DefaultListLimit {
			break
		}
		after = page[len(page)-1].ID
	}
	return tw.Flush()
}

// accountsCmd runs the commands that change accounts.
type accountsCmd struct {
	st       store.Store
	au       *auth.Server
	f        *accountsFlags
	password string // from -password-stdin
	stdout   io.Writer
}

// account returns the account of -email.
func (c *accountsCmd) account(ctx context.Context) (*store.Account, error) {
	a, err := c.st.AccountByEmail(ctx, c.f.email)
	if errors.Is(err, store.ErrNotFound) {
		return nil, fmt.Errorf("no account with email %s", c.f.email)
	}
	return a, err
}

func (c *accountsCmd) create(ctx context.Context) error {
	name := c.f.name
	if name == "" {
		name, _, _ = strings.Cut(strings.TrimSpace(c.f.email), "@")
	}
	password := c.password
	if password == "" {
		password = randomPassword()
	}
	a, err := c.au.CreateAccount(ctx, strings.TrimSpace(c.f.email), name, password, store.Plan(c.f.plan))
	if err != nil {
		return err
	}
	if c.f.dailyLimit > 0 || c.f.admin {
		a.DailyLimit, a.Admin = c.f.dailyLimit, c.f.admin
		if err := c.st.UpdateAccount(ctx, a); err != nil {
			return fmt.Errorf("account %s created, but its daily limit and admin flag were not set: %w", a.ID, err)
		}
	}
	role := ""
	if a.Admin {
		role = ", administrator"
	}
	fmt.Fprintf(c.stdout, "Created account %s %s (plan %s, daily limit %s%s).\n", a.ID, a.Email, a.Plan, limitText(a), role)
	if c.password == "" {
		fmt.Fprintf(c.stdout, "Dashboard password (shown only once): %s\n", password)
	}
	return nil
}

func (c *accountsCmd) setPlan(ctx context.Context) error {
	a, err := c.account(ctx)
	if err != nil {
		return err
	}
	a.Plan, a.DailyLimit = store.Plan(c.f.plan), c.f.dailyLimit
	if err := c.st.UpdateAccount(ctx, a); err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "Account %s: plan %s, daily limit %s.\n", a.Email, a.Plan, limitText(a))
	return nil
}

func (c *accountsCmd) resetPassword(ctx context.Context) error {
	a, err := c.account(ctx)
	if err != nil {
		return err
	}
	password := c.password
	if password == "" {
		password = randomPassword()
	}
	if _, err := c.au.SetPassword(ctx, a.ID, password); err != nil {
		return err
	}
	if c.password == "" {
		fmt.Fprintf(c.stdout, "New dashboard password of %s (shown only once): %s\n", a.Email, password)
	} else {
		fmt.Fprintf(c.stdout, "Dashboard password of %s set.\n", a.Email)
	}
	fmt.Fprintln(c.stdout, "Every dashboard session of the account was signed out.")
	return nil
}

func (c *accountsCmd) createKey(ctx context.Context) error {
	a, err := c.account(ctx)
	if err != nil {
		return err
	}
	var perms []string
	for p := range strings.SplitSeq(c.f.permissions, ",") {
		if p = strings.TrimSpace(p); p != "" {
			perms = append(perms, p)
		}
	}
	key, k, err := c.au.CreateAPIKey(ctx, a.ID, c.f.name, perms, time.Time{})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.stdout, "Created API key %s (%s) of %s with permissions %s.\nAPI key (shown only once): %s\n",
		k.ID, printable(k.Name), a.Email, strings.Join(k.Permissions, ","), key)
	return nil
}
