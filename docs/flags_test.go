package docs_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// serverFlagRE finds the server's flags where examples/server/main.go
// defines them: the flag's name and, when it has one, the environment
// variable it defaults from.
var serverFlagRE = regexp.MustCompile(`fs\.\w+Var\(&c\.[\w.]+, "([a-z0-9-]+)", (?:env\w*\("([A-Z0-9_]+)")?`)

// repeatableFlagRE finds the server's repeatable flags (flag.Value): the
// field and the flag's name. Such a flag reads its environment variable
// after the flags, when none was given: c.<field>.setAll(os.Getenv(...)).
var repeatableFlagRE = regexp.MustCompile(`fs\.Var\(&c\.(\w+), "([a-z0-9-]+)"`)

// docFlagRE finds a row of the flags table of docs/server.md.
var docFlagRE = regexp.MustCompile("(?m)^\\| `(-[a-z0-9-]+)` \\| (?:`([A-Z0-9_]+)`)? *\\|")

// TestServerFlagsDocumented checks that every flag of examples/server is a
// row of the flags table in docs/server.md with the environment variable
// the server reads, that the table names no flag the server lacks, and
// that the command's doc comment names every flag too.
func TestServerFlagsDocumented(t *testing.T) {
	src, err := os.ReadFile("../examples/server/main.go")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile("server.md")
	if err != nil {
		t.Fatal(err)
	}
	code := map[string]string{}
	for _, m := range serverFlagRE.FindAllStringSubmatch(string(src), -1) {
		code["-"+m[1]] = m[2]
	}
	for _, m := range repeatableFlagRE.FindAllStringSubmatch(string(src), -1) {
		e := regexp.MustCompile(`c\.` + m[1] + `\.setAll\(os\.Getenv\("([A-Z0-9_]+)"\)\)`).FindStringSubmatch(string(src))
		if e == nil {
			t.Errorf("examples/server/main.go: repeatable flag -%s reads no environment variable (c.%s.setAll(os.Getenv(...)))", m[2], m[1])
			continue
		}
		code["-"+m[2]] = e[1]
	}
	if len(code) < 40 {
		t.Fatalf("found %d flags in examples/server/main.go; the pattern no longer matches how they are defined", len(code))
	}
	table := map[string]string{}
	for _, m := range docFlagRE.FindAllStringSubmatch(string(doc), -1) {
		table[m[1]] = m[2]
	}
	comment := string(src[:strings.Index(string(src), "\npackage main")])
	for flag, env := range code {
		docEnv, ok := table[flag]
		switch {
		case !ok:
			t.Errorf("docs/server.md: flag %s (%s) is not in the flags table", flag, env)
		case docEnv != env:
			t.Errorf("docs/server.md: flag %s reads %q, the table says %q", flag, env, docEnv)
		}
		if !regexp.MustCompile(`(?m)^//\s.*` + regexp.QuoteMeta(flag) + `\b`).MatchString(comment) {
			t.Errorf("examples/server/main.go: the doc comment does not name %s", flag)
		}
	}
	for flag := range table {
		if _, ok := code[flag]; !ok {
			t.Errorf("docs/server.md: the flags table names %s, which the server does not have", flag)
		}
	}
	t.Logf("%d server flags, each in docs/server.md with its environment variable", len(code))
}
